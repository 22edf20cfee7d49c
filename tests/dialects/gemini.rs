//! The Gemini dialect: its fixtures replayed, then its rules — completeness over every
//! candidate, running-total usage, generated function-call ids.

use serde_json::json;

use crate::{assemble, replay_fixtures_of, sse};

#[test]
fn every_fixture_replays_to_its_expected_message() {
    replay_fixtures_of("gemini");
}

#[test]
fn is_complete_only_when_every_candidate_finished() {
    let chunk = |finish: [Option<&str>; 2]| {
        json!({"candidates": [
            {"index": 0, "content": {"parts": [{"text": "a"}], "role": "model"}, "finishReason": finish[0]},
            {"index": 1, "content": {"parts": [{"text": "b"}], "role": "model"}, "finishReason": finish[1]},
        ]})
    };
    let unfinished = sse(&[chunk([None, None]), chunk([Some("STOP"), None])]);
    let error = assemble(&unfinished).unwrap_err();
    assert!(error.is_truncated());
    assert!(
        error.to_string().contains("choice 1 was unfinished"),
        "{error}"
    );
    let finished = sse(&[
        chunk([None, None]),
        chunk([Some("STOP"), Some("MAX_TOKENS")]),
    ]);
    let completion = assemble(&finished).unwrap();
    assert!(completion.complete);
    let texts: Vec<String> = completion.messages().map(|m| m.text()).collect();
    assert_eq!(texts, ["aa", "bb"]);
    assert_eq!(
        completion.choices[1]
            .message
            .response_metadata
            .finish_reason,
        "MAX_TOKENS"
    );
}

#[test]
fn usage_is_a_running_total_with_thoughts_counted_as_output() {
    let body = sse(&[
        json!({"candidates": [{"content": {"parts": [{"text": "Hm", "thought": true}]}}], "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8}}),
        json!({"candidates": [{"content": {"parts": [{"text": "Hi"}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 2, "thoughtsTokenCount": 5, "cachedContentTokenCount": 4, "totalTokenCount": 15}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let usage = message.usage.clone().unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (8, 7, 15)
    );
    assert_eq!(usage.output_token_details.unwrap().reasoning, Some(5));
    assert_eq!(usage.input_token_details.unwrap().cache_read, Some(4));
    assert_eq!(
        (message.reasoning().as_str(), message.text().as_str()),
        ("Hm", "Hi")
    );
}

#[test]
fn function_calls_get_unique_generated_ids_and_keep_given_ones() {
    let body = sse(&[json!({"candidates": [{"content": {"parts": [
        {"functionCall": {"name": "a", "args": {"x": 1}}},
        {"functionCall": {"id": "call_df_1", "name": "b", "args": {}}},
        {"functionCall": {"name": "c"}},
    ]}, "finishReason": "STOP"}]})]);
    let message = assemble(&body).unwrap().into_message();
    let ids: Vec<&str> = message.tool_calls().map(|call| call.id.as_str()).collect();
    assert_eq!(ids, ["call_df_0", "call_df_1", "call_df_2"]);
}
