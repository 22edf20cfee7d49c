//! The assembly rules of the OpenAI chat-completion dialect, one test per rule, each on a tiny
//! inline stream built with the helpers below; one module per concern.

#[path = "../support/replay/mod.rs"]
mod replay;

mod choices;
mod content;
mod end_of_stream;
mod errors;
mod events;
mod limits;
mod metadata;
mod tool_calls;
mod usage;

use deltafold::assemble::FinishedToolCall;
use deltafold::{AiMessage, Completion, Error, Event, Options};
use replay::Run;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Stream builders

/// One event: `data: <payload>` and its blank line.
fn data(payload: &str) -> String {
    format!("data: {payload}\n\n")
}

/// The end of a clean stream.
const DONE: &str = "data: [DONE]\n\n";

/// A chunk with the given choices (a JSON list body) and extra top-level fields.
fn chunk_with(choices: &str, extra: &str) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(",{extra}")
    };
    data(&format!(
        r#"{{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[{choices}]{extra}}}"#
    ))
}

/// A chunk whose only choice `index` carries `delta`.
fn delta(index: u32, delta: &str) -> String {
    chunk_with(&format!(r#"{{"index":{index},"delta":{delta}}}"#), "")
}

/// A chunk whose only choice `index` finishes with `reason`.
fn finish(index: u32, reason: &str) -> String {
    chunk_with(
        &format!(r#"{{"index":{index},"delta":{{}},"finish_reason":"{reason}"}}"#),
        "",
    )
}

/// A chunk with tool-call fragments (JSON objects) for choice 0.
fn tools(fragments: &[&str]) -> String {
    delta(0, &format!(r#"{{"tool_calls":[{}]}}"#, fragments.join(",")))
}

/// A text delta for choice 0.
fn text(text: &str) -> String {
    delta(0, &json!({ "content": text }).to_string())
}

/// A usage-only chunk (`choices: []`).
fn usage_chunk(usage: &str) -> String {
    chunk_with("", &format!(r#""usage":{usage}"#))
}

fn body(parts: &[String]) -> String {
    parts.concat()
}

// ---------------------------------------------------------------------------------------------
// Runners

fn run_with(body: &str, options: Options) -> Run {
    replay::run([body.as_bytes()], options)
}

fn run(body: &str) -> Run {
    run_with(body, Options::new())
}

/// The three ways the tests that must not depend on chunking feed a stream: whole, byte by
/// byte, in 3-byte pieces.
fn every_cut(bytes: &[u8], options: Options) -> [Run; 3] {
    [
        replay::run([bytes], options.clone()),
        replay::run(bytes.chunks(1), options.clone()),
        replay::run(bytes.chunks(3), options),
    ]
}

fn completion(body: &str) -> Completion {
    match run(body).result {
        Ok(completion) => completion,
        Err(error) => panic!("unexpected error: {error}"),
    }
}

fn message(body: &str) -> AiMessage {
    let completion = completion(body);
    assert!(completion.complete, "the stream should be complete");
    completion.into_message()
}

fn failure_with(body: &str, options: Options) -> Error {
    match run_with(body, options).result {
        Ok(completion) => panic!("expected an error, got {completion:?}"),
        Err(error) => error,
    }
}

fn failure(body: &str) -> Error {
    failure_with(body, Options::new())
}

/// The partial first message an error carries.
fn partial_message(error: &Error) -> &AiMessage {
    let partial = error
        .partial()
        .expect("the error carries the partial result");
    assert!(!partial.complete, "a partial result is never complete");
    partial.message().expect("a partial message")
}

/// A compact, readable line per event.
fn describe(event: &Event<'_>) -> String {
    match event {
        Event::Started { id, model } => format!(
            "started {} {}",
            id.as_deref().unwrap_or("-"),
            model.as_deref().unwrap_or("-")
        ),
        Event::TextDelta { choice, text } => format!("text {choice} {text}"),
        Event::ReasoningDelta { choice, text } => format!("reasoning {choice} {text}"),
        Event::RefusalDelta { choice, text } => format!("refusal {choice} {text}"),
        Event::ToolCallStarted {
            choice,
            index,
            id,
            name,
        } => format!("tool_started {choice}.{index} {id} {name}"),
        Event::ToolCallArgumentsDelta {
            choice,
            index,
            delta,
            ..
        } => format!("tool_args {choice}.{index} {delta}"),
        Event::ToolCallFinished {
            choice,
            index,
            call,
        } => match call {
            FinishedToolCall::ToolCall(call) => format!(
                "tool_finished {choice}.{index} {} {}",
                call.name,
                call.args_json()
            ),
            FinishedToolCall::InvalidToolCall(call) => {
                format!("tool_invalid {choice}.{index} {} {}", call.name, call.args)
            }
        },
        Event::TextEnd { choice, block } => format!("text_end {choice} {block}"),
        Event::ReasoningEnd { choice, block } => format!("reasoning_end {choice} {block}"),
        Event::RefusalEnd { choice, block } => format!("refusal_end {choice} {block}"),
        Event::Usage { usage } => format!(
            "usage {}/{}/{}",
            usage.input_tokens, usage.output_tokens, usage.total_tokens
        ),
        Event::ChoiceFinished { choice, reason } => format!("choice_finished {choice} {reason}"),
        Event::Done => "done".into(),
        other => format!("{other:?}"),
    }
}

fn described(events: &[Event<'_>]) -> Vec<String> {
    events.iter().map(describe).collect()
}

fn position(events: &[String], prefix: &str) -> usize {
    events
        .iter()
        .position(|event| event.starts_with(prefix))
        .unwrap_or_else(|| panic!("no event starting with {prefix:?} in {events:#?}"))
}

fn tool_calls(message: &AiMessage) -> Vec<Value> {
    message
        .tool_calls()
        .map(|call| json!({"id": call.id, "name": call.name, "args": call.args}))
        .collect()
}
