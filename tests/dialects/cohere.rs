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
    assert_eq!((usage.input_tokens, usage.output_tokens), (30, 8));
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

#[test]
fn plan_citations_annotate_the_tool_plan_and_content_citations_their_block() {
    let body = sse(&[
        json!({"id": "c2", "type": "message-start", "delta": {"message": {"role": "assistant"}}}),
        json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will search."}}}),
        json!({"type": "citation-start", "index": 0, "delta": {"message": {"citations": {"start": 7, "end": 13, "text": "search", "type": "PLAN",
            "sources": [{"type": "tool", "id": "web:0", "tool_output": {"url": "https://t.test"}}]}}}}),
        json!({"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "Penguins."}}}}),
        json!({"type": "citation-start", "index": 1, "delta": {"message": {"citations": {"start": 0, "end": 8, "text": "Penguins", "type": "TEXT_CONTENT", "content_index": 0,
            "sources": [{"type": "document", "id": "doc:0", "document": {"id": "doc:0", "title": "p.txt", "url": "https://p.test", "snippet": "…"}}]}}}}),
        json!({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let plan = message.content[0].citations();
    assert_eq!(plan.len(), 1);
    assert_eq!(plan[0].extras["citation_type"], "PLAN");
    assert_eq!(plan[0].extras["tool_output"]["url"], "https://t.test");
    let text = message.content[1].citations();
    assert_eq!(
        (text[0].url.as_deref(), text[0].title.as_deref()),
        (Some("https://p.test"), Some("p.txt"))
    );
    assert_eq!((text[0].start_index, text[0].end_index), (Some(0), Some(8)));
    assert_eq!(text[0].extras["document"], json!({"snippet": "…"}));
}
