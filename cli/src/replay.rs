//! Replaying a recorded stream (a file, stdin or the bundled demo): read a chunk, push it, show
//! the events it completes, repeat — so a pipe that is still being written displays live, and
//! the run ends at `[DONE]` even if the pipe stays open.

use std::io::{self, Read};
use std::thread;
use std::time::Duration;

use deltafold::{Assembler, Options};

use crate::output::Sink;
use crate::Outcome;

/// Bytes asked of the input per read.
const CHUNK_BYTES: usize = 8 * 1024;

/// Assembles what `input` yields, showing each event on `sink` and pausing `pace` between
/// events. `name` says where the bytes come from, for a read error. Fails only when the sink
/// cannot write.
pub fn replay(
    mut input: impl Read,
    name: &str,
    options: Options,
    pace: Duration,
    sink: &mut dyn Sink,
) -> io::Result<Outcome> {
    let mut assembler = Assembler::with_options(options);
    let mut chunk = vec![0; CHUNK_BYTES];
    let mut pacer = Pacer::new(pace);
    let mut bytes_read = 0;
    loop {
        let read = match input.read(&mut chunk) {
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Ok(read_failed(assembler, name, &error)),
        };
        bytes_read += read;
        if read == 0 {
            assembler.end_input();
        } else {
            assembler.push(&chunk[..read]);
        }
        let result = match show_events(&mut assembler, sink, &mut pacer)? {
            Err(error) => Err(error),
            // After `[DONE]` nothing more counts: do not wait for the writer to close the pipe.
            Ok(()) if read == 0 || assembler.is_done() => assembler.finish(),
            Ok(()) => continue,
        };
        return Ok(match result {
            Err(error) => match no_stream(&error, name, bytes_read) {
                Some(message) => Outcome::failed(message),
                None => Outcome::from_error(error),
            },
            Ok(completion) if bytes_read == 0 && completion.choices.is_empty() => {
                Outcome::failed(empty(name))
            }
            Ok(completion) => Outcome::from_result(Ok(completion)),
        });
    }
}

/// Shows every event the assembler has ready. The outer error is the sink's, the inner one the
/// stream's.
fn show_events(
    assembler: &mut Assembler,
    sink: &mut dyn Sink,
    pacer: &mut Pacer,
) -> io::Result<Result<(), deltafold::Error>> {
    loop {
        let event = match assembler.next_event() {
            Ok(Some(event)) => event.into_owned(),
            Ok(None) => return Ok(Ok(())),
            Err(error) => return Ok(Err(error)),
        };
        pacer.wait();
        sink.event(&event, assembler)?;
    }
}

/// When `error` means that the input is no event stream at all, what to say in its place
/// (the stream error would call an empty input "truncated", bare binary data "invalid UTF-8").
/// Only when nothing was assembled: a stream cut short after an answer began keeps its error
/// and its partial.
fn no_stream(error: &deltafold::Error, name: &str, bytes_read: usize) -> Option<String> {
    if error
        .partial()
        .is_some_and(|partial| !partial.choices.is_empty())
    {
        return None;
    }
    let location = error.location().unwrap_or_default();
    if bytes_read == 0 {
        Some(empty(name))
    } else if error.is_invalid_utf8() {
        Some(format!(
            "{name} is not an event stream: it is not text (byte {} is not UTF-8)",
            location.offset
        ))
    } else if error.is_truncated() && location.event == 0 {
        Some(format!(
            "{name} is not an event stream: no event in the {bytes_read} bytes read (an SSE event \
             is a `data: …` line and a blank line)"
        ))
    } else {
        None
    }
}

/// Why an empty input fails: not a stream cut short, a stream that never began.
fn empty(name: &str) -> String {
    format!("{name} is empty: nothing was read, so there is no answer")
}

/// The input broke off: keep what was assembled and report the read error.
fn read_failed(assembler: Assembler, name: &str, error: &io::Error) -> Outcome {
    let partial = match assembler.finish() {
        Ok(completion) => Some(completion),
        Err(error) => error.into_partial(),
    };
    Outcome {
        completion: partial,
        error: Some(format!("cannot read {name}: {error}")),
    }
}

/// Sleeps between events, not before the first.
struct Pacer {
    pace: Duration,
    first: bool,
}

impl Pacer {
    /// A pacer that waits `pace` between events; zero never sleeps.
    fn new(pace: Duration) -> Self {
        Pacer { pace, first: true }
    }

    fn wait(&mut self) {
        if !self.first && !self.pace.is_zero() {
            thread::sleep(self.pace);
        }
        self.first = false;
    }
}
