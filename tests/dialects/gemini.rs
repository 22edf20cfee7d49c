//! The Gemini dialect: its fixtures replayed, then its rules — completeness over every
//! candidate, running-total usage, generated function-call ids, Gemini 3 streamed function-call
//! arguments (`partialArgs`).

use deltafold::{Assembler, Event};
use serde_json::{json, Value};

use crate::{assemble, replay, replay_fixtures_of, sse};

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

/// A Gemini 3 streamed-call chunk: one `functionCall` part.
fn call_part(call: Value) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}], "usageMetadata": {"trafficType": "ON_DEMAND"}})
}

#[test]
fn streamed_call_arguments_are_live_and_always_a_prefix_of_the_final_json() {
    let body =
        std::fs::read(replay::fixture::root().join("gemini/partial_args_streamed_calls.sse"))
            .unwrap();
    let mut assembler = Assembler::new();
    let (mut started, mut deltas, mut finished, mut usage_events) = (0, 0, 0, 0);
    let mut seen: Vec<String> = vec![String::new(); 2];
    for piece in body.chunks(7) {
        assembler.push(piece);
        while let Some(event) = assembler.next_event().unwrap() {
            match event {
                Event::ToolCallStarted { .. } => started += 1,
                Event::ToolCallArgumentsDelta { index, .. } => {
                    deltas += 1;
                    let call = assembler
                        .message(0)
                        .unwrap()
                        .tool_calls()
                        .nth(index as usize);
                    let call = call.unwrap();
                    // The snapshot is valid JSON at every step, completed in O(depth).
                    let partial: Value =
                        serde_json::from_str(&call.partial().unwrap().to_string()).unwrap();
                    assert!(partial.is_object(), "{partial}");
                    seen[index as usize] = call.arguments().to_owned();
                }
                Event::ToolCallFinished { .. } => finished += 1,
                Event::Usage { .. } => usage_events += 1,
                _ => {}
            }
        }
    }
    let message = assembler.finish().unwrap().into_message();
    assert_eq!((started, finished), (2, 2));
    assert!(deltas >= 10, "{deltas} argument deltas");
    assert_eq!(
        usage_events, 1,
        "the {{trafficType}}-only usageMetadata is no usage"
    );
    let calls: Vec<_> = message.tool_calls().collect();
    for (call, streamed) in calls.iter().zip(&seen) {
        let final_text = serde_json::to_string(&call.args).unwrap();
        let reparsed: Value = serde_json::from_str(streamed).unwrap();
        assert_eq!(reparsed, Value::Object(call.args.clone()), "{final_text}");
    }
    assert_eq!(calls[0].signature(), Some("c2lnLW9yZGVyLTE="));
    assert_eq!(calls[1].signature(), None);
    assert_eq!(
        Value::Object(calls[1].args.clone()),
        json!({"order_ref": "A-17"})
    );
}

#[test]
fn a_streamed_call_left_open_is_closed_by_the_finish_reason_or_the_end_of_input() {
    let opened = [
        call_part(json!({"name": "write", "willContinue": true})),
        call_part(
            json!({"partialArgs": [{"jsonPath": "$.rows[0].n", "numberValue": 1}], "willContinue": true}),
        ),
        call_part(
            json!({"partialArgs": [{"jsonPath": "$.rows[1].label", "stringValue": "tw", "willContinue": true}], "willContinue": true}),
        ),
    ];
    let finished = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}]});
    let mut with_finish = opened.to_vec();
    with_finish.push(finished);
    let message = assemble(&sse(&with_finish)).unwrap().into_message();
    let call = message.tool_calls().next().unwrap();
    assert_eq!(
        Value::Object(call.args.clone()),
        json!({"rows": [{"n": 1}, {"label": "tw"}]})
    );
    // Cut before any finish: the call is complete as far as it came, in the partial message.
    let error = assemble(&sse(&opened)).unwrap_err();
    assert!(error.is_truncated(), "{error}");
    let partial = error.partial().unwrap().choices[0].message.clone();
    assert_eq!(partial.tool_calls().count(), 1, "{partial:?}");
}

#[test]
fn two_streamed_calls_and_a_whole_one_stay_three_calls() {
    let body = sse(&[
        json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "read_theme"}, "thoughtSignature": "sig-a"}]}}]}),
        call_part(json!({"name": "read_screen", "willContinue": true})),
        call_part(
            json!({"partialArgs": [{"jsonPath": "$.id", "stringValue": "A"}], "willContinue": true}),
        ),
        call_part(json!({})),
        call_part(json!({"name": "read_screen", "willContinue": true})),
        call_part(
            json!({"partialArgs": [{"jsonPath": "$.id", "stringValue": "B"}, {"jsonPath": "$.ok", "boolValue": false}, {"jsonPath": "$.none", "nullValue": null}]}),
        ),
        json!({"candidates": [{"content": {"parts": [{"text": "done"}]}, "finishReason": "STOP"}]}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let calls: Vec<(String, Value)> = message
        .tool_calls()
        .map(|call| (call.name.clone(), Value::Object(call.args.clone())))
        .collect();
    assert_eq!(
        calls,
        [
            ("read_theme".to_owned(), json!({})),
            ("read_screen".to_owned(), json!({"id": "A"})),
            (
                "read_screen".to_owned(),
                json!({"id": "B", "ok": false, "none": null})
            ),
        ]
    );
    assert_eq!(
        message.tool_calls().next().unwrap().signature(),
        Some("sig-a")
    );
    assert_eq!(message.text(), "done");
}

#[test]
fn a_malformed_json_path_is_a_malformed_payload() {
    let body = sse(&[
        call_part(json!({"name": "f", "willContinue": true})),
        call_part(
            json!({"partialArgs": [{"jsonPath": "location", "stringValue": "x"}], "willContinue": true}),
        ),
    ]);
    let error = assemble(&body).unwrap_err();
    assert!(error.is_malformed(), "{error}");
    assert!(error.to_string().contains("jsonPath"), "{error}");
}

/// The events (as text, argument deltas by name only) and the message a body assembles into,
/// pushed in pieces of 5 bytes.
fn events_and_message(body: &[u8]) -> (Vec<String>, deltafold::message::AiMessage) {
    let mut assembler = Assembler::new();
    let mut events = Vec::new();
    for piece in body.chunks(5) {
        assembler.push(piece);
        while let Some(event) = assembler.next_event().unwrap() {
            // The raw argument text keeps the body's spacing: the rest of each event is compared.
            let text = match event {
                Event::ToolCallArgumentsDelta { .. } => "ToolCallArgumentsDelta".to_owned(),
                event => format!("{:?}", event.into_owned()),
            };
            events.push(text);
        }
    }
    let message = assembler.finish().unwrap().into_message();
    (events, message)
}

#[test]
fn a_non_streamed_answer_reads_the_same_pretty_printed_or_on_one_line_or_in_an_array() {
    let answer = json!({"candidates": [{"content": {"parts": [{"text": "Hi {there}"}, {"functionCall": {"name": "f", "args": {"a": [1, {"b": "}"}]}}}], "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"});
    let one_line = format!("{answer}\n");
    let pretty = serde_json::to_string_pretty(&answer).unwrap();
    let array = format!("[{}\n]", pretty.replace('\n', "\n  "));
    let (events, message) = events_and_message(one_line.as_bytes());
    assert!(
        events
            .iter()
            .any(|event| event.starts_with("ToolCallFinished")),
        "{events:?}"
    );
    assert_eq!(message.text(), "Hi {there}");
    for body in [pretty, array] {
        assert_eq!(
            events_and_message(body.as_bytes()),
            (events.clone(), message.clone()),
            "{body}"
        );
    }
}

/// A non-streamed `generateContent` body on one line with no newline after it (as a proxy may
/// send it) is whole: the framing is decided at the end of input, before its last line is read.
#[test]
fn a_one_line_body_without_its_newline_is_whole() {
    let body = json!({
        "candidates": [{
            "content": {"parts": [{"text": "Hi"}], "role": "model"},
            "finishReason": "STOP",
            "index": 0
        }],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4},
        "modelVersion": "gemini-2.5-flash"
    })
    .to_string();
    for bytes in [body.clone(), body.clone() + "\n"] {
        let completion = deltafold::assemble(bytes.as_bytes(), deltafold::Options::new()).unwrap();
        assert!(completion.complete, "{bytes}");
        assert_eq!(completion.choices[0].message.text(), "Hi");
    }
    let mut assembler = Assembler::new();
    for byte in body.as_bytes() {
        assembler.push(std::slice::from_ref(byte));
    }
    let completion = assembler.finish().unwrap();
    assert!(completion.complete);
    assert_eq!(completion.choices[0].message.text(), "Hi");
}
