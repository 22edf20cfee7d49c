//! The UI stream targets (`vercel-ui`, `ag-ui`) from the Rust side: the ends of runs derived
//! from the event order, a failed source ending in the protocol's error event (through the
//! `Stream` adapter too), and the AG-UI ids a caller sets. The protocols' own packages check
//! every fixture and recording in `tests/node/`.

use std::io;

use deltafold::encode::{EncodeExt, Encoder, Target, VERCEL_UI_HEADER};
use deltafold::{AssembleExt, Assembler, Options};
use futures::executor::block_on;
use futures::stream::{self, StreamExt};
use serde_json::Value;

const REASONING_TEXT_CALL: &str = concat!(
    "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Think\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"1}\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}\n\n",
    "data: [DONE]\n\n",
);

/// The whole stream re-encoded by `encoder`.
fn encode(body: &str, mut encoder: Encoder) -> String {
    let mut assembler = Assembler::new();
    let mut out = String::new();
    assembler.push(body.as_bytes());
    assembler.end_input();
    while let Some(event) = assembler.next_event().unwrap() {
        let event = event.into_owned();
        encoder.encode(&event, &assembler, &mut out);
    }
    encoder.finish(&mut out);
    out
}

/// The `type` of every `data:` JSON line, in order.
fn types(sse: &str) -> Vec<String> {
    sse.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| match serde_json::from_str::<Value>(data) {
            Ok(json) => json["type"].as_str().unwrap_or_default().to_owned(),
            Err(_) => data.to_owned(),
        })
        .collect()
}

#[test]
fn vercel_ui_ends_each_run_where_the_next_kind_begins() {
    let out = encode(REASONING_TEXT_CALL, Encoder::new(Target::VercelUi));
    assert_eq!(
        types(&out),
        [
            "start",
            "start-step",
            "reasoning-start",
            "reasoning-delta",
            "reasoning-end",
            "text-start",
            "text-delta",
            "text-delta",
            "text-end",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-delta",
            "tool-input-available",
            "finish-step",
            "finish",
            "[DONE]",
        ]
    );
    assert!(out.contains(r#""messageId":"c1","messageMetadata":{"model":"m"}"#));
    assert!(out.contains(r#""input":{"a":1}"#));
    assert!(out.contains(r#""finishReason":"tool-calls""#));
    assert!(out.contains(r#""usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7}"#));
    assert_eq!(VERCEL_UI_HEADER, ("x-vercel-ai-ui-message-stream", "v1"));
}

#[test]
fn ag_ui_closes_every_message_and_call_before_the_run_finishes() {
    let out = encode(REASONING_TEXT_CALL, Encoder::ag_ui("thread-7", "run-9"));
    assert_eq!(
        types(&out),
        [
            "RUN_STARTED",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "RUN_FINISHED",
        ]
    );
    assert!(out.contains(r#"{"type":"RUN_STARTED","threadId":"thread-7","runId":"run-9"}"#));
    // The call hangs on the text message before it.
    assert!(out.contains(r#""toolCallName":"f","parentMessageId":"run-9-text-1""#));
}

#[test]
fn a_failed_source_ends_in_the_protocols_error_event_then_the_error() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n";
    for (target, last) in [(Target::VercelUi, "[DONE]"), (Target::AgUi, "RUN_ERROR")] {
        let reads = vec![
            Ok(body.as_bytes().to_vec()),
            Err(io::Error::other("connection reset")),
        ];
        let items: Vec<_> = block_on(
            stream::iter(reads)
                .assemble_with(Options::default())
                .encode(target)
                .collect(),
        );
        let text: String = items
            .iter()
            .filter_map(|item| item.as_ref().ok().cloned())
            .collect();
        assert!(text.contains("connection reset"), "{target}: {text}");
        assert_eq!(
            types(&text).last().map(String::as_str),
            Some(last),
            "{target}"
        );
        assert!(
            items.last().unwrap().is_err(),
            "{target}: the error comes last"
        );
    }
    // A provider target is left cut: no error event, the error itself.
    let mut encoder = Encoder::new(Target::OpenAiChat);
    let mut out = String::new();
    encoder.fail("gone", &mut out);
    assert!(out.is_empty());
}
