//! Everything that counts allocations, in one test binary with a counting global allocator
//! (`counting`): the heap held while streaming (`heap`), floods refused in bounded memory
//! (`floods`), work that grows linearly with the input (`linear`), and what one short stream
//! costs (`per_stream`). Counting is per thread and deterministic, so these tests do not depend
//! on how loaded the machine is; timings belong in `benches/`.

#[allow(dead_code)] // The bench support module is shared; these tests use part of it.
#[path = "../../benches/support/mod.rs"]
mod support;

mod bounded;
mod counting;
mod encoders;
mod floods;
mod heap;
mod hostile;
mod linear;
mod per_stream;

use deltafold::{Assembler, Completion, Error, Event};

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

const MIB: usize = 1 << 20;

/// One SSE event carrying `payload`.
fn event(payload: &str) -> String {
    format!("data: {payload}\n\n")
}

fn assemble(bytes: &[u8]) -> Result<Completion, Error> {
    deltafold::assemble(bytes, deltafold::Options::new())
}

/// Pulls every event the assembler has ready.
fn drain(assembler: &mut Assembler) -> Result<Vec<Event<'static>>, Error> {
    let mut events = Vec::new();
    while let Some(event) = assembler.next_event()? {
        events.push(event.into_owned());
    }
    Ok(events)
}

/// The error of a run that must fail.
fn expect_error(result: Result<Completion, Error>) -> Error {
    match result {
        Ok(completion) => panic!("expected an error, got {completion:?}"),
        Err(error) => error,
    }
}

/// An error's partial result; every stream error carries one.
fn partial(error: &Error) -> &Completion {
    error
        .partial()
        .unwrap_or_else(|| panic!("{error} carries no partial result"))
}
