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
    loop {
        let read = match input.read(&mut chunk) {
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Ok(read_failed(assembler, name, &error)),
        };
        if read == 0 {
            assembler.end_input();
        } else {
            assembler.push(&chunk[..read]);
        }
        if let Err(error) = show_events(&mut assembler, sink, &mut pacer)? {
            return Ok(Outcome::from_error(error));
        }
        // After `[DONE]` nothing more counts: do not wait for the writer to close the pipe.
        if read == 0 || assembler.is_done() {
            return Ok(Outcome::from_result(assembler.finish()));
        }
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
