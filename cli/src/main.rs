//! `deltafold`: assemble a streamed chat-completion answer — a recording, stdin, or a live HTTP
//! response — showing it as it arrives, or printing the result as JSON.

mod args;
mod display;
mod output;
mod paint;
mod reencode;
mod remote;
mod replay;
mod safe_json;
mod summary;
mod wrap;

use std::fs::File;
use std::io::{self, IsTerminal};
use std::process::ExitCode;

use deltafold::Completion;

use crate::args::{Args, Input, Mode};
use crate::display::LiveDisplay;
use crate::output::{EventsOutput, JsonOutput, Sink};
use crate::paint::escape_for_terminal;
use crate::reencode::{ResponseJsonOutput, StreamOutput};

/// The bundled demo: a recorded answer with reasoning, text and two parallel tool calls.
const DEMO: &str = include_str!("../../fixtures/demo/demo.sse");

const DEMO_INTRO: &str = "deltafold demo: replaying a recorded answer bundled with the binary.\n\
     Try `deltafold FILE`, `deltafold < FILE` (stdin) or `deltafold --url URL`; `deltafold --help`.";

/// How a run ended: what was assembled (complete or partial) and the error that stopped it.
pub struct Outcome {
    /// The result to print; partial when `error` is set, `None` when nothing was assembled.
    pub completion: Option<Completion>,
    /// Why the run failed, as one line for stderr.
    pub error: Option<String>,
}

impl Outcome {
    /// A finished assembly: the completion, or the error with its partial result.
    /// An incomplete result without a single choice (an empty input in lenient mode, a stream
    /// whose every event was skipped) is a failure: nothing was understood.
    pub fn from_result(result: Result<Completion, deltafold::Error>) -> Self {
        match result {
            Ok(completion) if !completion.complete && completion.choices.is_empty() => {
                Self::failed("the stream held no answer: none of it was understood".to_owned())
            }
            Ok(completion) => Outcome {
                completion: Some(completion),
                error: None,
            },
            Err(error) => Self::from_error(error),
        }
    }

    /// A stream error; its partial result is kept when something was assembled.
    pub fn from_error(error: deltafold::Error) -> Self {
        let message = error.to_string();
        Outcome {
            completion: error
                .into_partial()
                .filter(|partial| !partial.choices.is_empty()),
            error: Some(message),
        }
    }

    /// A failure before anything was assembled.
    pub fn failed(message: String) -> Self {
        Outcome {
            completion: None,
            error: Some(message),
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse_checked();
    match run(&args) {
        Ok(code) => code,
        // The reader went away (`deltafold … | head`): nothing left to say to anyone.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        // A re-encoding past its limits (`Encoder::try_encode`) ends the run from the sink: the
        // stream's error, not the output's.
        Err(error) => {
            match error
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<deltafold::Error>())
            {
                Some(stream) => eprintln!("deltafold: {}", one_line(&stream.to_string())),
                None => eprintln!("deltafold: cannot write the output: {error}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// Runs the command; fails only when stdout cannot be written.
fn run(args: &Args) -> io::Result<ExitCode> {
    let input = args.input(io::stdin().is_terminal());
    let options = args.options();
    let pace = args.pace(&input);
    let stdout = io::stdout();
    let terminal = stdout.is_terminal();
    let color = args.color(terminal);
    let width = args::screen_width(terminal);
    let stdout = stdout.lock();
    let mut sink: Box<dyn Sink> = match args.mode() {
        Mode::Json => Box::new(JsonOutput::new(stdout)),
        Mode::Events => Box::new(EventsOutput::new(stdout)),
        Mode::Reencode(target) => Box::new(StreamOutput::new(stdout, target, terminal)),
        Mode::ResponseJson(target) => Box::new(ResponseJsonOutput::new(stdout, target, terminal)),
        Mode::Display if matches!(input, Input::Demo) => Box::new(
            LiveDisplay::new(stdout, color)
                .with_width(width)
                .with_intro(DEMO_INTRO),
        ),
        Mode::Display => Box::new(LiveDisplay::new(stdout, color).with_width(width)),
    };
    let outcome = match input {
        Input::Demo => replay::replay(DEMO.as_bytes(), "the demo", options, pace, &mut *sink)?,
        Input::Stdin => replay::replay(io::stdin().lock(), "stdin", options, pace, &mut *sink)?,
        Input::File(path) if path.is_dir() => {
            Outcome::failed(format!("cannot read {}: it is a directory", path.display()))
        }
        Input::File(path) => match File::open(&path) {
            Ok(file) => {
                let name = path.display().to_string();
                replay::replay(file, &name, options, pace, &mut *sink)?
            }
            Err(error) => Outcome::failed(format!("cannot open {}: {error}", path.display())),
        },
        Input::Url(request) => remote::fetch(&request, args.http_options(), &mut *sink)?,
    };
    if let Some(error) = &outcome.error {
        sink.fail(&one_line(error))?;
    }
    sink.finish(outcome.completion.as_ref())?;
    Ok(report(&outcome))
}

/// Writes the error (or, in lenient mode, why the answer is incomplete) to stderr as one clean
/// line, and picks the exit status.
fn report(outcome: &Outcome) -> ExitCode {
    if let Some(error) = &outcome.error {
        eprintln!("deltafold: {}", one_line(error));
        return ExitCode::FAILURE;
    }
    let incomplete = outcome
        .completion
        .as_ref()
        .filter(|completion| !completion.complete)
        .and_then(|completion| completion.message())
        .and_then(|message| message.response_metadata.incomplete.as_deref());
    if let Some(why) = incomplete {
        eprintln!("deltafold: warning: incomplete answer: {}", one_line(why));
    }
    ExitCode::SUCCESS
}

/// Joins the lines of a message that has several (a provider's error text may), and shows its
/// control characters as escapes: the text may come from the server, and must not drive the
/// terminal.
fn one_line(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    escape_for_terminal(&joined).into_owned()
}
