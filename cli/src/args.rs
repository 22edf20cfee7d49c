//! The command line: what to read, how to show it.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};
use deltafold::dialect::ParseDialectError;
use deltafold::encode::Target;
use deltafold::http::HttpOptions;
use deltafold::Dialect;

/// Pause between events when playing the bundled demo, so a newcomer sees it stream.
const DEMO_PACE: Duration = Duration::from_millis(30);

const EXAMPLES: &str = "\
Examples:
  deltafold                              play the bundled demo stream (in a terminal)
  deltafold answer.sse                   replay a recorded stream
  deltafold --json < answer.sse          read the stream from stdin when it is not a terminal
  curl -sN … | deltafold                 assemble a stream from stdin as it arrives
  deltafold --json answer.sse            print the final message as one JSON line
  deltafold --events answer.sse          print every event as a JSON line
  deltafold --to anthropic answer.sse    re-encode the stream as Anthropic's SSE
  deltafold --json-as gemini answer.sse  print the final message as Gemini's response JSON
  deltafold --url https://api.openai.com/v1/chat/completions \\
      -H \"Authorization: Bearer $OPENAI_API_KEY\" \\
      --data '{\"model\":\"gpt-4o-mini\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}'

With --url, a redirect is followed only within the same origin (scheme, host and port) and no
Referer is sent: a redirect elsewhere is refused, so the headers, the query and the body of the
request never leave the origin it was written for.

The live display wraps reasoning and text between words to the terminal's width (COLUMNS when
set; not at all into a pipe or a file). When parallel tool calls interleave, a call's arguments
resume under its header marked (continued), after a dim …: each fragment is shown once.

Exit status: 0 when the stream completed, 1 when it ended in an error (the partial message is
still printed, the error goes to stderr) or when nothing in it was understood (an empty input, an
input that is not an event stream), 2 for a usage error.";

/// Fold a streamed chat-completion answer (server-sent events) into a complete message,
/// showing reasoning, text and tool calls as they arrive.
#[derive(Debug, Parser)]
// The usage line is spelled out: for a conflict (`--json --events`) clap would otherwise build
// one from the arguments given, which showed FILE as required (`deltafold --json <FILE>`).
#[command(
    name = "deltafold",
    version,
    after_help = EXAMPLES,
    override_usage = "deltafold [OPTIONS] [FILE]\n       deltafold [OPTIONS] --url URL"
)]
pub struct Args {
    /// A recorded stream to assemble, or `-` for stdin. Without FILE or --url, reads stdin
    /// when it is a pipe or a file, and plays a bundled demo stream when it is a terminal.
    #[arg(value_name = "FILE", conflicts_with = "url")]
    input: Option<PathBuf>,

    /// Play the bundled demo stream, whatever stdin is.
    #[arg(long, conflicts_with_all = ["input", "url"])]
    demo: bool,

    /// Send a request to this URL and assemble the live response (POST with --data or
    /// --data-file, GET without).
    #[arg(long, value_name = "URL")]
    url: Option<String>,

    /// A request header, `Name: value`; repeatable.
    #[arg(
        short = 'H',
        long = "header",
        value_name = "NAME: VALUE",
        requires = "url",
        value_parser = parse_header
    )]
    headers: Vec<(String, String)>,

    /// The request body (JSON; remember `"stream": true`).
    #[arg(
        long,
        value_name = "JSON",
        requires = "url",
        conflicts_with = "data_file"
    )]
    data: Option<String>,

    /// Read the request body from a file.
    #[arg(long, value_name = "FILE", requires = "url")]
    data_file: Option<PathBuf>,

    /// Give up when the response stays silent this long, headers included (seconds, may be
    /// fractional) [default: 120].
    #[arg(long, value_name = "SECS", requires = "url", value_parser = parse_seconds)]
    idle_timeout: Option<Duration>,

    /// Give up when the whole answer takes longer than this (seconds, may be fractional)
    /// [default: no deadline].
    #[arg(long, value_name = "SECS", requires = "url", value_parser = parse_seconds)]
    deadline: Option<Duration>,

    /// Print only the final message, as one JSON line (LangChain's AIMessage dict); a JSON array
    /// of messages when the response has several choices.
    #[arg(long, conflicts_with_all = ["events", "to", "json_as"])]
    json: bool,

    /// Print every event as one JSON line as it happens. Argument deltas carry a `partial`
    /// field, the arguments so far as valid JSON, on a call's first delta and then whenever its
    /// arguments have at least doubled since the last one (so the output stays linear); the
    /// whole arguments come with `tool_call_finished`.
    #[arg(long, conflicts_with_all = ["to", "json_as"])]
    events: bool,

    /// Write the stream re-encoded as it arrives: a provider's SSE (openai, anthropic,
    /// openai-responses, gemini) or a UI stream protocol (vercel-ui: the AI SDK's UI message
    /// stream; ag-ui: AG-UI events).
    #[arg(long, value_name = "NAME", value_parser = parse_target, conflicts_with = "json_as")]
    to: Option<Target>,

    /// Print only the final message, as this provider's non-streamed response JSON (one line):
    /// openai, anthropic, openai-responses, gemini, vercel-ui (the AI SDK's UIMessage) or ag-ui
    /// (a MESSAGES_SNAPSHOT event).
    #[arg(long, value_name = "NAME", value_parser = parse_target)]
    json_as: Option<Target>,

    /// Give back what arrived: a truncated stream exits 0 with the message marked incomplete,
    /// and a malformed event is skipped with a warning.
    #[arg(long)]
    lenient: bool,

    /// The stream's wire format [default: detected from the first payload].
    #[arg(long, value_name = "NAME", value_parser = DialectParser)]
    dialect: Option<Dialect>,

    /// Move reasoning that the model writes between `<think>` and `</think>` in its text
    /// (DeepSeek-R1 and other open models) to the reasoning block.
    #[arg(long)]
    think_tags: bool,

    /// Pause between events, in milliseconds [default: 30 for the demo, 0 otherwise].
    #[arg(long, value_name = "MS", conflicts_with = "url")]
    pace: Option<u64>,

    /// When to use colour and dimming in the live display.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// When the live display uses ANSI styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How the result is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The live human-readable display and a summary.
    Display,
    /// The final message(s) as one JSON line.
    Json,
    /// Every event as one JSON line.
    Events,
    /// The stream re-encoded into a provider's SSE (`--to`).
    Reencode(Target),
    /// The final message as a provider's non-streamed JSON (`--json-as`).
    ResponseJson(Target),
}

/// Where the stream comes from.
#[derive(Debug)]
pub enum Input {
    /// The bundled demo stream.
    Demo,
    /// Standard input.
    Stdin,
    /// A recorded stream on disk.
    File(PathBuf),
    /// A live HTTP response.
    Url(Request),
}

/// The HTTP request of `--url`.
#[derive(Debug)]
pub struct Request {
    /// Where to send it.
    pub url: String,
    /// Headers as given, in order.
    pub headers: Vec<(String, String)>,
    /// The body, when one was given.
    pub body: Option<Body>,
}

/// Where the request body comes from.
#[derive(Debug)]
pub enum Body {
    /// Given inline with `--data`.
    Inline(String),
    /// Read from a file with `--data-file`.
    File(PathBuf),
}

impl Args {
    /// The arguments, or a usage error (exit status 2) when an HTTP-only flag comes without
    /// `--url`. clap's `requires = "url"` alone does not catch that once FILE is given: FILE
    /// conflicts with `--url`, and clap then drops the requirement, so the flag was ignored.
    pub fn parse_checked() -> Self {
        let args = Args::parse();
        if let Some(flag) = args.http_flag_without_url() {
            let input = match &args.input {
                Some(path) if path.as_os_str() == "-" => "stdin".to_owned(),
                Some(path) => format!("FILE ({})", path.display()),
                None if args.demo => "the demo".to_owned(),
                None => "stdin or the demo".to_owned(),
            };
            Args::command()
                .error(
                    ErrorKind::ArgumentConflict,
                    format!(
                        "{flag} applies to an HTTP request (--url) and would be ignored: the \
                         input is {input}"
                    ),
                )
                .exit();
        }
        args
    }

    /// The first flag given that only a request with `--url` uses, when there is no `--url`.
    fn http_flag_without_url(&self) -> Option<&'static str> {
        if self.url.is_some() {
            return None;
        }
        [
            (!self.headers.is_empty(), "--header (-H)"),
            (self.data.is_some(), "--data"),
            (self.data_file.is_some(), "--data-file"),
            (self.idle_timeout.is_some(), "--idle-timeout"),
            (self.deadline.is_some(), "--deadline"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The input the arguments name; `stdin_is_terminal` decides what no FILE means.
    pub fn input(&self, stdin_is_terminal: bool) -> Input {
        if let Some(url) = &self.url {
            let body = match (&self.data, &self.data_file) {
                (Some(data), _) => Some(Body::Inline(data.clone())),
                (None, Some(path)) => Some(Body::File(path.clone())),
                (None, None) => None,
            };
            return Input::Url(Request {
                url: url.clone(),
                headers: self.headers.clone(),
                body,
            });
        }
        match &self.input {
            None if self.demo || stdin_is_terminal => Input::Demo,
            None => Input::Stdin,
            Some(path) if path.as_os_str() == "-" => Input::Stdin,
            Some(path) => Input::File(path.clone()),
        }
    }

    /// The output mode.
    pub fn mode(&self) -> Mode {
        if self.json {
            Mode::Json
        } else if let Some(target) = self.json_as {
            Mode::ResponseJson(target)
        } else if let Some(target) = self.to {
            Mode::Reencode(target)
        } else if self.events {
            Mode::Events
        } else {
            Mode::Display
        }
    }

    /// The assembler options the flags ask for.
    pub fn options(&self) -> deltafold::Options {
        let options = deltafold::Options::new()
            .lenient(self.lenient)
            .think_tags(self.think_tags);
        match self.dialect {
            Some(dialect) => options.dialect(dialect),
            None => options,
        }
    }

    /// The options of `--url`: the assembler's, and the time bounds the flags set.
    pub fn http_options(&self) -> HttpOptions {
        let options = HttpOptions::from(self.options()).deadline(self.deadline);
        match self.idle_timeout {
            Some(timeout) => options.idle_timeout(Some(timeout)),
            None => options,
        }
    }

    /// The pause between events: as given, else the demo's pace when the demo is watched live.
    pub fn pace(&self, input: &Input) -> Duration {
        match (self.pace, input) {
            (Some(millis), _) => Duration::from_millis(millis),
            (None, Input::Demo) if !matches!(self.mode(), Mode::Json | Mode::ResponseJson(_)) => {
                DEMO_PACE
            }
            (None, _) => Duration::ZERO,
        }
    }

    /// Whether to style the display, given whether stdout is a terminal.
    pub fn color(&self, stdout_is_terminal: bool) -> bool {
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                stdout_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// The width the live display wraps its prose to: `COLUMNS` when set to a number, else the
/// terminal's width when stdout is one; `None` (no wrapping) for a pipe or a file.
pub fn screen_width(stdout_is_terminal: bool) -> Option<usize> {
    let columns = std::env::var("COLUMNS").ok();
    if let Some(columns) = columns.and_then(|columns| columns.trim().parse().ok()) {
        return Some(columns).filter(|&columns| columns > 0);
    }
    if !stdout_is_terminal {
        return None;
    }
    let size = rustix::termios::tcgetwinsize(std::io::stdout()).ok()?;
    Some(usize::from(size.ws_col)).filter(|&columns| columns > 0)
}

/// Parses `Name: value` as curl does: the name up to the first colon, the value trimmed.
fn parse_header(header: &str) -> Result<(String, String), String> {
    let (name, value) = header
        .split_once(':')
        .ok_or_else(|| format!("expected `Name: value`, got {header:?}"))?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("invalid header name {name:?}"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// A positive number of seconds, fractions allowed (`0.5`).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("expected a number of seconds, got {text:?}"))?;
    if seconds <= 0.0 {
        return Err(format!(
            "expected a positive number of seconds, got {text:?}"
        ));
    }
    Duration::try_from_secs_f64(seconds).map_err(|error| format!("{text:?}: {error}"))
}

fn parse_target(name: &str) -> Result<Target, String> {
    name.parse()
}

/// `--dialect`: the names `--help` lists are the library's registry ([`Dialect::ALL`]), and
/// a name is read by `Dialect`'s `FromStr`, which also takes its aliases (`responses`, `claude`).
#[derive(Debug, Clone, Copy)]
struct DialectParser;

impl TypedValueParser for DialectParser {
    type Value = Dialect;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Dialect, clap::Error> {
        let name = StringValueParser::new().parse_ref(command, arg, value)?;
        name.parse().map_err(|error: ParseDialectError| {
            clap::Error::raw(ErrorKind::InvalidValue, format!("{error}\n")).with_cmd(command)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Dialect::ALL
                .into_iter()
                .map(|dialect| PossibleValue::new(dialect.name())),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_split_at_the_first_colon() {
        assert_eq!(
            parse_header("Authorization:  Bearer a:b "),
            Ok(("Authorization".into(), "Bearer a:b".into()))
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header(": empty name").is_err());
    }

    #[test]
    fn seconds_may_be_fractional_but_must_be_positive() {
        assert_eq!(parse_seconds("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_seconds("3"), Ok(Duration::from_secs(3)));
        for bad in ["0", "-1", "soon", "NaN", "inf", "1e300"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
