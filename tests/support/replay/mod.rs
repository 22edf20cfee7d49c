//! The one replay-and-compare harness of the integration tests.
//!
//! This file drives an `Assembler` the way a transport does — push each piece, pull every event,
//! then end the input and finish — so that tests can compare runs. Its submodules compare a run
//! with a hand-written expectation: `expect` (the messages or the error), `story` (the events
//! against the messages) and `fixture` (every stream under `fixtures/`, replayed in every
//! chunking and checked with both).
// Each test binary includes this module and uses a different part of it.
#![allow(dead_code)]

pub mod expect;
pub mod fixture;
pub mod story;

use deltafold::{Assembler, Completion, Error, Event, Options};

/// What one run produced: every event, then the result of `finish` (or the error that stopped
/// the stream).
pub struct Run {
    pub events: Vec<Event<'static>>,
    pub result: Result<Completion, Error>,
}

impl Run {
    /// The messages: the final ones, or the partial ones the error carries.
    pub fn completion(&self) -> Option<&Completion> {
        match &self.result {
            Ok(completion) => Some(completion),
            Err(error) => error.partial(),
        }
    }
}

/// Pushes the pieces one by one, pulling every event after each push, then ends the input.
pub fn run<'a>(pieces: impl IntoIterator<Item = &'a [u8]>, options: Options) -> Run {
    run_fed(pieces, options, |assembler, piece| assembler.push(piece))
}

/// Gives the assembler each piece with `feed` (bytes, or frames framed elsewhere), pulling every
/// event after each, then ends the input.
pub fn run_fed<T>(
    pieces: impl IntoIterator<Item = T>,
    options: Options,
    mut feed: impl FnMut(&mut Assembler, T),
) -> Run {
    let mut assembler = Assembler::with_options(options);
    let mut events = Vec::new();
    for piece in pieces {
        feed(&mut assembler, piece);
        if let Err(error) = drain_into(&mut assembler, &mut events) {
            return Run {
                events,
                result: Err(error),
            };
        }
    }
    assembler.end_input();
    if let Err(error) = drain_into(&mut assembler, &mut events) {
        return Run {
            events,
            result: Err(error),
        };
    }
    Run {
        events,
        result: assembler.finish(),
    }
}

/// Pulls every event the assembler has ready.
pub fn drain_into(
    assembler: &mut Assembler,
    events: &mut Vec<Event<'static>>,
) -> Result<(), Error> {
    while let Some(event) = assembler.next_event()? {
        events.push(event.into_owned());
    }
    Ok(())
}
