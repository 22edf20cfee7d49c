//! Tool-call slots: which fragment continues which call (by index, by id, or the latest), ids and
//! names never concatenated, when a call is finished, how its arguments become a tool call or an
//! invalid one, generated ids, and the order of blocks.

use deltafold::{ContentBlock, Options};
use serde_json::json;

use crate::{
    body, chunk_with, delta, described, finish, message, position, run, run_with, text, tool_calls,
    tools, DONE,
};

#[test]
fn tool_call_id_and_name_take_the_first_non_empty_value_and_are_never_concatenated() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"","type":"function","function":{"name":"","arguments":""}}"#]),
        tools(&[
            r#"{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}"#,
        ]),
        tools(&[
            r#"{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"\"Oslo\"}"}}"#,
        ]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [json!({"id": "call_1", "name": "get_weather", "args": {"city": "Oslo"}})]
    );
}

#[test]
fn the_same_index_with_a_different_id_starts_a_new_call() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"call_a","function":{"name":"f","arguments":"{\"n\":"}}"#]),
        tools(&[r#"{"index":0,"function":{"arguments":"1}"}}"#]),
        tools(&[r#"{"index":0,"id":"call_b","function":{"name":"g","arguments":"{\"n\":"}}"#]),
        tools(&[r#"{"index":0,"function":{"arguments":"2}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "call_a", "name": "f", "args": {"n": 1}}),
            json!({"id": "call_b", "name": "g", "args": {"n": 2}}),
        ]
    );
}

/// Two indices that share an id stay two calls: nothing is merged or dropped.
#[test]
fn the_same_id_on_two_indices_keeps_both_calls() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"dup","function":{"name":"f","arguments":"{\"n\":0}"}}"#]),
        tools(&[r#"{"index":1,"id":"dup","function":{"name":"f","arguments":"{\"n\":1}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "dup", "name": "f", "args": {"n": 0}}),
            json!({"id": "dup", "name": "f", "args": {"n": 1}}),
        ]
    );
}

/// Without indices, a known id continues its call, a new id starts one, no id continues the
/// latest; a conflicting later name does not rename a call.
#[test]
fn without_indices_ids_decide_and_first_names_win() {
    let message = message(&body(&[
        tools(&[r#"{"id":"a","function":{"name":"first","arguments":"{\"x\":"}}"#]),
        tools(&[r#"{"id":"b","function":{"name":"second","arguments":"{\"y\":"}}"#]),
        tools(&[r#"{"function":{"arguments":"2}"}}"#]),
        tools(&[r#"{"id":"a","function":{"name":"renamed","arguments":"1}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "a", "name": "first", "args": {"x": 1}}),
            json!({"id": "b", "name": "second", "args": {"y": 2}}),
        ]
    );
}

#[test]
fn several_fragments_for_one_index_in_one_chunk_are_merged_in_order() {
    let message = message(&body(&[
        tools(&[
            r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\""}}"#,
            r#"{"index":1,"id":"call_2","function":{"name":"g","arguments":"{}"}}"#,
            r#"{"index":0,"function":{"arguments":":"}}"#,
            r#"{"index":0,"function":{"arguments":"[1,2]}"}}"#,
        ]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "call_1", "name": "f", "args": {"a": [1, 2]}}),
            json!({"id": "call_2", "name": "g", "args": {}}),
        ]
    );
}

#[test]
fn tool_calls_are_finished_by_finish_reason_not_when_their_arguments_parse() {
    let events = described(
        &run(&body(&[
            tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}"#]),
            text("more text after a complete-looking call"),
            tools(&[r#"{"index":0,"function":{"arguments":""}}"#]),
            finish(0, "tool_calls"),
            DONE.into(),
        ]))
        .events,
    );
    let finished = position(&events, "tool_finished 0.0 f {}");
    assert!(
        finished > position(&events, "text 0 more text"),
        "{events:#?}"
    );
    assert_eq!(events[finished + 1], "choice_finished 0 tool_calls");
}

#[test]
fn another_choice_finishing_does_not_finish_this_choices_tool_calls() {
    let events = described(
        &run(&body(&[
            chunk_with(
                r#"{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}]}}"#,
                "",
            ),
            chunk_with(r#"{"index":1,"delta":{"content":"other"},"finish_reason":"stop"}"#, ""),
            chunk_with(
                r#"{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" "}}]}}"#,
                "",
            ),
            finish(0, "tool_calls"),
            DONE.into(),
        ]))
        .events,
    );
    assert!(
        position(&events, "tool_finished 0.0") > position(&events, "tool_args 0.0  "),
        "{events:#?}"
    );
}

#[test]
fn tool_calls_are_finished_at_done_and_at_the_end_of_a_lenient_stream() {
    let at_done = described(
        &run(&body(&[
            tools(&[
                r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\":1}"}}"#,
            ]),
            DONE.into(),
        ]))
        .events,
    );
    let n = at_done.len();
    assert_eq!(at_done[n - 2..], ["tool_finished 0.0 f {\"a\":1}", "done"]);

    let cut = run_with(
        &tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\":1}"}}"#]),
        Options::new().lenient(true),
    );
    let completion = cut.result.expect("lenient mode returns the message");
    assert!(!completion.complete);
    assert_eq!(
        tool_calls(completion.message().unwrap()),
        [json!({"id": "call_1", "name": "f", "args": {"a": 1}})]
    );
}

#[test]
fn empty_arguments_are_an_empty_object_and_an_object_is_a_tool_call() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"call_1","function":{"name":"now","arguments":""}}"#]),
        // Some compatibles send the arguments as an object rather than a JSON string.
        tools(&[
            r#"{"index":1,"id":"call_2","function":{"name":"f","arguments":{"city":"Oslo"}}}"#,
        ]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "call_1", "name": "now", "args": {}}),
            json!({"id": "call_2", "name": "f", "args": {"city": "Oslo"}}),
        ]
    );
    assert_eq!(message.invalid_tool_calls().count(), 0);
}

#[test]
fn malformed_trailing_and_non_object_arguments_are_invalid_with_the_raw_text_and_why() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\": tru"}}"#]),
        tools(&[
            r#"{"index":1,"id":"call_2","function":{"name":"f","arguments":"{\"a\":1}{\"a\":1}"}}"#,
        ]),
        tools(&[
            r#"{"index":2,"id":"call_3","function":{"name":"f","arguments":"\"just a string\""}}"#,
        ]),
        tools(&[r#"{"index":3,"id":"call_4","function":{"name":"f","arguments":"null"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(message.tool_calls().count(), 0);
    let invalid: Vec<(&str, &str, &str)> = message
        .invalid_tool_calls()
        .map(|call| (call.id.as_str(), call.args.as_str(), call.error.as_str()))
        .collect();
    assert_eq!(invalid.len(), 4, "{invalid:?}");
    assert_eq!(invalid[0].1, "{\"a\": tru");
    assert!(invalid[0].2.contains("line 1 column"), "{}", invalid[0].2);
    assert_eq!(invalid[1].1, "{\"a\":1}{\"a\":1}");
    assert!(
        invalid[1].2.contains("trailing characters"),
        "{}",
        invalid[1].2
    );
    assert_eq!(invalid[2].2, "arguments are a JSON string, not an object");
    assert_eq!(invalid[3].2, "arguments are a JSON null, not an object");
    let ids: Vec<&str> = invalid.iter().map(|(id, _, _)| *id).collect();
    assert_eq!(ids, ["call_1", "call_2", "call_3", "call_4"]);
}

#[test]
fn missing_ids_are_generated_unique_within_the_message() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"function":{"name":"f","arguments":"{}"}}"#]),
        tools(&[r#"{"index":1,"id":"call_df_0","function":{"name":"g","arguments":"{}"}}"#]),
        tools(&[r#"{"index":2,"function":{"name":"h","arguments":"{}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    let ids: Vec<&str> = message.tool_calls().map(|call| call.id.as_str()).collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| !id.is_empty()), "{ids:?}");
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 3, "ids must be unique: {ids:?}");
    assert_eq!(ids[1], "call_df_0", "a provider id is never replaced");
}

#[test]
fn blocks_and_tool_calls_keep_the_order_of_their_first_appearance() {
    let message = message(&body(&[
        text("Calling"),
        tools(&[
            r#"{"index":1,"id":"call_second_index","function":{"name":"g","arguments":"{}"}}"#,
        ]),
        tools(&[r#"{"index":0,"id":"call_first_index","function":{"name":"f","arguments":"{}"}}"#]),
        text(" both."),
        delta(0, r#"{"reasoning_content":"late thought"}"#),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    let order: Vec<String> = message
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text, .. } => format!("text {text}"),
            ContentBlock::Reasoning { text, .. } => format!("reasoning {text}"),
            ContentBlock::ToolCall(call) => format!("tool {}", call.id),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        order,
        [
            "text Calling both.",
            "tool call_second_index",
            "tool call_first_index",
            "reasoning late thought",
        ]
    );
}
