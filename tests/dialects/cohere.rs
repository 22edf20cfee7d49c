//! The Cohere v2 chat dialect: the fixtures replayed, then the rules — detection from the event
//! names or the payloads alone, the tool plan as text before the calls (as LangChain puts it),
//! `message-end` as the end and an error it reports.

use deltafold::{Dialect, Options};
use serde_json::{json, Value};

use crate::{assemble, replay_fixtures_of, sse};

#[test]
fn every_fixture_replays_to_its_expected_message() {
    replay_fixtures_of("cohere");
}

fn payloads() -> Vec<Value> {
    vec![
        json!({"id": "c1", "type": "message-start", "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}}),
        json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will add."}}}),
        json!({"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {"id": "add_1", "type": "function", "function": {"name": "add", "arguments": ""}}}}}),
        json!({"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "{\"a\": 2, \"b\": 2}"}}}}}),
        json!({"type": "tool-call-end", "index": 0}),
        json!({"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {"billed_units": {"input_tokens": 3, "output_tokens": 4}, "tokens": {"input_tokens": 30, "output_tokens": 8}}}}),
    ]
}

#[test]
fn unnamed_events_are_detected_from_their_type() {
    let body = sse(&payloads());
    let mut assembler = deltafold::Assembler::new();
    assembler.feed(body.as_bytes()).unwrap();
    assert_eq!(assembler.dialect(), Some(Dialect::Cohere));
    let message = assembler.finish().unwrap().into_message();
    assert_eq!(message.text(), "I will add.");
    let call = message.tool_calls().next().unwrap();
    assert_eq!((call.id.as_str(), call.name.as_str()), ("add_1", "add"));
    assert_eq!(Value::Object(call.args.clone()), json!({"a": 2, "b": 2}));
    let usage = message.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (3, 4));
    assert_eq!(message.response_metadata.finish_reason, "TOOL_CALL");
}

#[test]
fn message_end_ends_the_stream_and_what_follows_is_ignored() {
    let mut body = sse(&payloads());
    body.push_str("data: {\"type\":\"content-delta\",\"index\":0,\"delta\":{\"message\":{\"content\":{\"text\":\"late\"}}}}\n\n");
    let completion =
        deltafold::assemble(body.as_bytes(), Options::new().dialect(Dialect::Cohere)).unwrap();
    assert!(completion.complete);
    assert_eq!(completion.into_message().text(), "I will add.");
    assert_eq!("cohere".parse::<Dialect>(), Ok(Dialect::Cohere));
}

#[test]
fn an_error_at_message_end_is_a_provider_error_with_the_partial() {
    let mut events = payloads();
    events.truncate(2);
    events.push(json!({"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "internal error"}}));
    let error = assemble(&sse(&events)).unwrap_err();
    assert!(error.is_provider(), "{error}");
    assert_eq!(error.provider_error().unwrap().message, "internal error");
    assert_eq!(
        error.partial().unwrap().message().unwrap().text(),
        "I will add."
    );
}
