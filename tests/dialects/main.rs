//! The dialects other than OpenAI chat completions, one module each: every fixture under
//! `fixtures/<dialect>/` replayed whole, byte by byte and at random split points through the
//! shared harness, then the rules of that dialect, one test each; and, across dialects, the
//! detection of the dialect and the `<think>` extraction.

#[path = "../support/replay/mod.rs"]
mod replay;

mod anthropic;
mod bedrock;
mod cohere;
mod detection;
mod gemini;
mod gemini_server_tools;
mod ollama;
mod openai_responses;
mod responses_images;
mod responses_items;
mod responses_rotating_ids;
mod think_tags;

use deltafold::{Completion, Error, Options};
use serde_json::{json, Value};

/// Replays every fixture of one dialect's folder; each folder holds at least six.
fn replay_fixtures_of(dir: &str) {
    let fixtures = replay::fixture::discover(dir);
    assert!(
        fixtures.len() >= 6,
        "only {} fixtures in {dir}",
        fixtures.len()
    );
    replay::fixture::assert_all_replay(&fixtures);
}

fn assemble(body: &str) -> Result<Completion, Error> {
    deltafold::assemble(body.as_bytes(), Options::new())
}

/// An Anthropic stream: one named event per `(event, data)`.
fn anthropic(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// An SSE stream of unnamed events.
fn sse(payloads: &[Value]) -> String {
    payloads
        .iter()
        .map(|data| format!("data: {data}\n\n"))
        .collect()
}

/// A newline-delimited stream.
fn ndjson(lines: &[Value]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The `response.created` event that opens an OpenAI Responses stream.
fn created() -> Value {
    json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5", "created_at": 1, "status": "in_progress"}})
}
