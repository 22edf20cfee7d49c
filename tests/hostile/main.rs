//! Hostile input: whatever bytes arrive, assembly ends in `Ok` or a typed `Err` that says where
//! it happened and carries what arrived; limits refuse floods. One module per kind of bad input.
//!
//! docs/bad-input.md lists every kind of bad input tried here, what the library does with it and
//! the test that shows it. The fuzz targets in `fuzz/` explore the same ground at random; each
//! input they found that broke a rule is kept in `fuzz_regressions` as a regression test. What
//! needs a counting allocator (memory held by floods, work growing linearly) is in the `memory`
//! test binary; the rules a hostile input merely exercises are tested with the chat rules.

#[path = "../support/replay/mod.rs"]
mod replay;

mod bytes;
mod fuzz_regressions;
mod garbage;
mod limits;
mod nesting;
mod not_a_stream;
mod payloads;
mod truncation;

use deltafold::{Assembler, Completion, Error, ErrorKind, Event, Options};
use replay::{run, Run};
use serde_json::{json, Value};

const MIB: usize = 1 << 20;

/// One SSE event carrying `payload`.
fn event(payload: &str) -> String {
    format!("data: {payload}\n\n")
}

/// A stream of one event per payload.
fn stream(payloads: &[&str]) -> String {
    payloads.iter().map(|payload| event(payload)).collect()
}

/// A chunk with a text delta for choice 0.
fn text(content: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {"content": content}}]}).to_string()
}

/// A chunk that finishes choice 0.
fn finish(reason: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}).to_string()
}

/// A tool-call fragment for choice 0.
fn tool(call: Value) -> String {
    json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}).to_string()
}

fn assemble(bytes: &[u8]) -> Result<Completion, Error> {
    deltafold::assemble(bytes, Options::new())
}

fn lenient(bytes: &[u8]) -> Result<Completion, Error> {
    deltafold::assemble(bytes, Options::new().lenient(true))
}

/// Pulls every event the assembler has ready.
fn drain(assembler: &mut Assembler) -> Result<Vec<Event<'static>>, Error> {
    let mut events = Vec::new();
    replay::drain_into(assembler, &mut events).map(|()| events)
}

/// The three ways every precise test feeds a stream: whole, byte by byte, in 3-byte pieces.
fn every_cut(bytes: &[u8], options: Options) -> [Run; 3] {
    [
        run([bytes], options.clone()),
        run(bytes.chunks(1), options.clone()),
        run(bytes.chunks(3), options),
    ]
}

/// The error of a run that must fail.
fn expect_error(result: Result<Completion, Error>) -> Error {
    match result {
        Ok(completion) => panic!("expected an error, got {completion:?}"),
        Err(error) => error,
    }
}

/// The message (or partial message) of choice 0.
fn first_text(completion: &Completion) -> String {
    completion
        .message()
        .map(|message| message.text())
        .unwrap_or_default()
}

/// An error's partial result; every stream error carries one.
fn partial(error: &Error) -> &Completion {
    error
        .partial()
        .unwrap_or_else(|| panic!("{error} carries no partial result"))
}

/// The completion a run ended with: the result, or the error's partial.
fn reached(result: &Result<Completion, Error>) -> &Completion {
    match result {
        Ok(completion) => completion,
        Err(error) => partial(error),
    }
}

/// Asserts what every error must have: a kind from the stream's side, a place, and the partial.
fn assert_typed(error: &Error) {
    assert!(
        matches!(
            error.kind(),
            ErrorKind::Malformed
                | ErrorKind::InvalidUtf8
                | ErrorKind::LimitExceeded
                | ErrorKind::Truncated
                | ErrorKind::Provider
        ),
        "unexpected kind in {error}"
    );
    assert!(error.location().is_some(), "{error} has no location");
    assert!(error.partial().is_some(), "{error} has no partial result");
}
