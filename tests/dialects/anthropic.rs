//! The Anthropic Messages dialect: its fixtures replayed, then its rules — signatures, tool calls
//! finished at their block's stop, usage across partial reports, when a stream is complete.

use std::fs;

use deltafold::{Assembler, Dialect, Event};
use serde_json::{json, Value};

use crate::{anthropic, assemble, replay_fixtures_of};

fn message_start() -> (&'static str, Value) {
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    )
}

#[test]
fn every_fixture_replays_to_its_expected_message() {
    replay_fixtures_of("anthropic");
}

#[test]
fn signature_deltas_replace_and_tool_calls_finish_at_their_block_stop() {
    let body = anthropic(&[
        message_start(),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "first"}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "second"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\":1}"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
        ),
    ]);
    let mut assembler = Assembler::new();
    assembler.push(body.as_bytes());
    let mut finished_before_text_block = false;
    while let Some(event) = assembler.next_event().unwrap() {
        if let Event::ToolCallFinished { call, .. } = event {
            finished_before_text_block = matches!(call, deltafold::assemble::FinishedToolCall::ToolCall(c) if c.args["a"] == 1);
        }
    }
    assert!(
        finished_before_text_block,
        "the call is final at its content_block_stop"
    );
    assert!(!assembler.messages()[0].is_finished());
    let content = &assembler.messages()[0].blocks()[0];
    assert!(
        matches!(content, deltafold::assemble::PartialBlock::Content(deltafold::ContentBlock::Reasoning { signature: Some(s), .. }) if s == "second")
    );
    assert_eq!(assembler.dialect(), Some(Dialect::Anthropic));
}

#[test]
fn input_tokens_include_cache_reads_and_writes_across_partial_reports() {
    let body = anthropic(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "model": "c", "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20, "output_tokens": 1}}}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": "###"}, "usage": {"input_tokens": 6, "output_tokens": 42}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let usage = message.usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (126, 42, 168)
    );
    let details = usage.input_token_details.unwrap();
    assert_eq!(
        (details.cache_read, details.cache_creation),
        (Some(100), Some(20))
    );
    assert_eq!(message.response_metadata.extra["stop_sequence"], "###");
    assert_eq!(message.response_metadata.finish_reason, "end_turn");
}

#[test]
fn stream_is_complete_at_message_stop_or_once_the_stop_reason_came() {
    let started = anthropic(&[message_start()]);
    let error = assemble(&started).unwrap_err();
    assert!(error.is_truncated(), "{error}");
    let stopped = anthropic(&[
        message_start(),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    assert!(assemble(&stopped).unwrap().complete);
    let finished = anthropic(&[
        message_start(),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ),
    ]);
    assert!(assemble(&finished).unwrap().complete);
}

#[test]
fn an_input_json_delta_without_a_tool_use_start_is_no_tool_call() {
    let body = anthropic(&[
        message_start(),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"a\":1}"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 3}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    // Strict: a malformed event.
    let error = assemble(&body).unwrap_err();
    assert_eq!(error.kind(), deltafold::ErrorKind::Malformed, "{error}");
    assert!(error.to_string().contains("content_block_start"), "{error}");
    // Lenient: skipped with a warning, and no call named "".
    let message = deltafold::assemble(body.as_bytes(), deltafold::Options::new().lenient(true))
        .unwrap()
        .into_message();
    assert_eq!(message.tool_calls().count(), 0);
    assert_eq!(message.response_metadata.warnings.len(), 1);
}

#[test]
fn a_tool_use_start_input_without_a_block_stop_is_kept() {
    let body = anthropic(&[
        message_start(),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 3}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let call = message.tool_calls().next().unwrap();
    assert_eq!(Value::Object(call.args.clone()), json!({"a": 1}));
    // Nor when the stream is cut before its end (lenient: the partial message).
    let cut = body.split("event: message_delta").next().unwrap();
    let message = deltafold::assemble(cut.as_bytes(), deltafold::Options::new().lenient(true))
        .unwrap()
        .into_message();
    let call = message.tool_calls().next().unwrap();
    assert_eq!(Value::Object(call.args.clone()), json!({"a": 1}));
}

#[test]
fn a_whole_message_body_reads_as_its_stream() {
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "Let me look.", "signature": "sig_1"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "rust"}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 20}});
    let mut assembler = Assembler::new();
    assembler.push(format!("{body}\n").as_bytes());
    let mut events = Vec::new();
    while let Some(event) = assembler.next_event().unwrap() {
        events.push(event.into_owned());
    }
    assert_eq!(assembler.dialect(), Some(Dialect::Anthropic));
    let message = assembler.finish().unwrap().into_message();
    assert_eq!(message.text(), "Checking.");
    assert_eq!(message.reasoning(), "Let me look.");
    let call = message.tool_calls().next().unwrap();
    assert_eq!(
        (call.name.as_str(), Value::Object(call.args.clone())),
        ("lookup", json!({"q": "rust"}))
    );
    assert_eq!(message.response_metadata.finish_reason, "tool_use");
    assert_eq!(message.id.as_deref(), Some("msg_1"));
    let usage = message.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (10, 20));
    assert!(events
        .iter()
        .any(|event| matches!(event, Event::ToolCallFinished { .. })));
    assert!(matches!(events.last(), Some(Event::Done)));
}

#[test]
fn what_the_dialect_holds_between_events_counts_against_max_message_bytes() {
    let limited = deltafold::Options::new().max_message_bytes(64 * 1024);
    let fragment = "x".repeat(16 * 1024);
    let stopless = |start: Value, deltas: usize| {
        let mut events = vec![message_start(), ("content_block_start", start)];
        for _ in 0..deltas {
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": fragment}}),
            ));
        }
        anthropic(&events)
    };
    // `input_json_delta` into a server-side tool call whose stop never comes.
    let opaque = stopless(
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
        8,
    );
    // A `tool_use` start whose input waits for its block's stop.
    let start_input = stopless(
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": "x".repeat(128 * 1024)}}}),
        0,
    );
    for body in [opaque, start_input] {
        let error = deltafold::assemble(body.as_bytes(), limited.clone()).unwrap_err();
        assert_eq!(error.kind(), deltafold::ErrorKind::LimitExceeded, "{error}");
    }
}

#[test]
fn a_server_side_block_without_a_stop_is_kept_with_its_input() {
    let body = anthropic(&[
        message_start(),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"query\":\"rust\"}"}}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let blocks = serde_json::to_value(&message).unwrap()["content_blocks"].clone();
    assert_eq!(blocks[0]["type"], "server_tool_call", "{blocks}");
    assert_eq!(blocks[0]["id"], "srvtoolu_1", "{blocks}");
    assert_eq!(blocks[0]["args"], json!({"query": "rust"}), "{blocks}");
}

#[test]
fn server_tool_activity_streams_as_events_in_block_order() {
    let body = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/anthropic/server_tools.sse"),
    )
    .unwrap();
    let mut assembler = Assembler::new();
    assembler.push(&body);
    assembler.end_input();
    let mut seen = Vec::new();
    let mut partial_views = Vec::new();
    loop {
        let event = match assembler.next_event().unwrap() {
            Some(event) => event.into_owned(),
            None => break,
        };
        match event {
            Event::ServerToolCallStarted {
                block, id, name, ..
            } => seen.push(format!("started {block} {id} {name}")),
            Event::ServerToolCallArgumentsDelta { block, .. } => {
                let message = &assembler.messages()[0];
                let Some(deltafold::assemble::PartialBlock::ServerToolCall(call)) =
                    message.blocks().get(block as usize)
                else {
                    panic!("block {block} is no server tool call");
                };
                partial_views.push(call.partial_value());
            }
            Event::ServerToolCallFinished { block, call, .. } => seen.push(format!(
                "finished {block} {}",
                Value::Object(call.args.clone())
            )),
            Event::ServerToolResult { block, result, .. } => seen.push(format!(
                "result {block} {} {:?}",
                result.tool_call_id, result.status
            )),
            _ => {}
        }
    }
    assert_eq!(
        seen,
        [
            "started 0 srvtoolu_01Bash bash_code_execution",
            r#"finished 0 {"command":"python3 -c 'print(2+2)'"}"#,
            "result 1 srvtoolu_01Bash Success",
            "started 2 srvtoolu_01Fetch web_fetch",
            r#"finished 2 {"url":"https://example.com/gone"}"#,
            "result 3 srvtoolu_01Fetch Error",
            "started 4 mcptoolu_01Wiki remote_mcp",
            r#"finished 4 {"repoName":"rust-lang/rust"}"#,
            "result 5 mcptoolu_01Wiki Error",
        ]
    );
    // The empty first fragment makes no event; the half-written command shows as valid JSON.
    assert_eq!(
        partial_views[0],
        Some(json!({"command": "python3 -c 'print(2"}))
    );
    assert_eq!(partial_views.len(), 4);
}

/// One stream is one message: the same `message_start` again changes nothing; another
/// message's is malformed (its blocks would reuse the first one's indexes and join a thinking
/// block to the wrong signature). Lenient, its blocks follow as blocks of their own.
#[test]
fn another_message_start_is_malformed_and_never_joins_two_messages_blocks() {
    let body = fs::read_to_string("fixtures/anthropic/another_message_start.sse").unwrap();
    let message = deltafold::assemble(body.as_bytes(), deltafold::Options::new().lenient(true))
        .unwrap()
        .into_message();
    let reasoning: Vec<Value> = message
        .content
        .iter()
        .map(|block| serde_json::to_value(block).unwrap())
        .filter(|block| block["type"] == "reasoning")
        .map(|block| json!([block["reasoning"], block["extras"]["signature"]]))
        .collect();
    assert_eq!(
        reasoning,
        [
            json!(["Planning.", "sigOpen"]),
            json!(["Another plan.", "sigOther"])
        ]
    );
    assert_eq!(message.text(), "Hello");
    assert_eq!(message.response_metadata.warnings.len(), 1);
}
