//! The OpenAI Responses dialect: its fixtures replayed, then its rules — errors, function-call
//! arguments completed by their `done` events, incomplete responses.

use serde_json::{json, Value};

use crate::{assemble, created, replay_fixtures_of, sse};

#[test]
fn every_fixture_replays_to_its_expected_message() {
    replay_fixtures_of("openai-responses");
}

#[test]
fn error_waits_for_response_failed_or_the_end_of_input() {
    let error_event = json!({"type": "error", "code": "server_error", "message": "boom", "param": null, "sequence_number": 1});
    let failed = json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "boom"}}});
    let error = assemble(&sse(&[created(), error_event.clone(), failed])).unwrap_err();
    assert!(error.is_provider());
    assert_eq!(error.provider_error().unwrap().message, "boom");
    let partial = error.partial().unwrap().message().unwrap();
    assert_eq!(partial.response_metadata.finish_reason, "failed");

    let error = assemble(&sse(&[created(), error_event])).unwrap_err();
    assert!(error.is_provider(), "{error}");
    assert_eq!(
        error.provider_error().unwrap().code.as_deref(),
        Some("server_error")
    );
}

#[test]
fn arguments_done_completes_what_the_deltas_left_out() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": "{\"a\":"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "arguments": "{\"a\":1}"}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": ""}}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": "{\"b\":2}"}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let calls: Vec<_> = message
        .tool_calls()
        .map(|c| (c.id.clone(), Value::Object(c.args.clone())))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_1".to_owned(), json!({"a": 1})),
            ("call_2".to_owned(), json!({"b": 2}))
        ]
    );
    assert_eq!(message.response_metadata.finish_reason, "completed");
}

#[test]
fn incomplete_is_a_complete_stream_whose_finish_reason_says_why() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Once upon"}),
        json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}),
    ]);
    let completion = assemble(&body).unwrap();
    assert!(completion.complete);
    assert_eq!(
        completion
            .message()
            .unwrap()
            .response_metadata
            .finish_reason,
        "max_output_tokens"
    );
    let truncated = sse(&[created()]);
    assert!(assemble(&truncated).unwrap_err().is_truncated());
}
