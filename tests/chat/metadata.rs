//! Response metadata: the first non-empty id, model, timestamp and fingerprint win; unknown
//! fields are kept; logprobs entries append per choice.

use serde_json::{json, Value};

use crate::{body, chunk_with, completion, data, described, finish, message, run, DONE};

#[test]
fn metadata_takes_the_first_non_empty_value_and_repeats_change_nothing() {
    let run = run(&body(&[
        data(r#"{"id":"","model":null,"system_fingerprint":"","choices":[]}"#),
        data(
            r#"{"id":"first","model":"model-a","created":111,"system_fingerprint":"fp_a","service_tier":"default","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":""}]}"#,
        ),
        data(
            r#"{"id":"second","model":"model-b","created":222,"system_fingerprint":"fp_b","service_tier":"flex","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        ),
        data(
            r#"{"id":"third","model":"model-c","created":333,"system_fingerprint":"fp_c","service_tier":"priority","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
        ),
        data(r#"{"id":"first","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
        DONE.into(),
    ]));
    let events = described(&run.events);
    let message = run.result.expect("a clean stream").into_message();
    let metadata = &message.response_metadata;
    assert_eq!(message.id.as_deref(), Some("first"));
    assert_eq!(metadata.id.as_deref(), Some("first"));
    assert_eq!(metadata.model_name.as_deref(), Some("model-a"));
    assert_eq!(metadata.created, Some(111));
    assert_eq!(metadata.system_fingerprint.as_deref(), Some("fp_a"));
    assert_eq!(metadata.service_tier.as_deref(), Some("default"));
    assert_eq!(metadata.finish_reason, "stop");
    let finishes: Vec<&String> = events
        .iter()
        .filter(|event| event.starts_with("choice_finished"))
        .collect();
    assert_eq!(finishes, ["choice_finished 0 stop"]);
}

#[test]
fn a_placeholder_created_of_zero_does_not_win_over_the_real_timestamp() {
    // Azure's first chunk (prompt_filter_results) carries empty placeholders: "" id and model,
    // and created 0. Like the empty id and model, the 0 is "not reported".
    let message = message(&body(&[
        data(
            r#"{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[]}"#,
        ),
        data(
            r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"created":1735700000,"id":"chatcmpl-az","model":"gpt-4o"}"#,
        ),
        DONE.into(),
    ]));
    assert_eq!(message.response_metadata.id.as_deref(), Some("chatcmpl-az"));
    assert_eq!(message.response_metadata.created, Some(1735700000));
}

#[test]
fn unknown_top_level_and_choice_fields_are_kept_in_response_metadata() {
    let message = message(&body(&[
        data(
            r#"{"id":"gen-1","provider":"Novita","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"native_finish_reason":null}]}"#,
        ),
        data(
            r#"{"id":"gen-1","provider":"Other","error":null,"choices":[{"index":0,"delta":{},"finish_reason":"stop","native_finish_reason":"end_turn"}]}"#,
        ),
        DONE.into(),
    ]));
    let extra = &message.response_metadata.extra;
    assert_eq!(extra["provider"], "Novita");
    assert_eq!(extra["native_finish_reason"], "end_turn");
    assert!(!extra.contains_key("object"));
}

#[test]
fn logprobs_entries_append_per_choice() {
    let entry =
        |token: &str| json!({"token": token, "logprob": -0.5, "bytes": [], "top_logprobs": []});
    let with_logprobs = |index: u32, token: &str| {
        chunk_with(
            &format!(
                r#"{{"index":{index},"delta":{{"content":"{token}"}},"logprobs":{{"content":[{}],"refusal":null}}}}"#,
                entry(token)
            ),
            "",
        )
    };
    let completion = completion(&body(&[
        with_logprobs(0, "a"),
        with_logprobs(1, "x"),
        chunk_with(r#"{"index":0,"delta":{},"logprobs":null}"#, ""),
        with_logprobs(0, "b"),
        with_logprobs(1, "y"),
        finish(0, "stop"),
        finish(1, "stop"),
        DONE.into(),
    ]));
    let logprobs: Vec<Value> = completion
        .messages()
        .map(|message| {
            Value::Object(
                message
                    .response_metadata
                    .logprobs
                    .as_ref()
                    .unwrap()
                    .to_map(),
            )
        })
        .collect();
    assert_eq!(
        logprobs,
        [
            json!({"content": [entry("a"), entry("b")]}),
            json!({"content": [entry("x"), entry("y")]}),
        ]
    );
}
