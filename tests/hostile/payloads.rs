//! Payloads that are not what the dialect reads: malformed JSON, negative, huge and non-integer
//! indices, repeated JSON keys — a malformed event at its place, skipped in lenient mode — and
//! the largest and null indices, which are accepted.

use deltafold::Options;

use crate::{
    assemble, event, every_cut, expect_error, finish, first_text, lenient, partial, stream, text,
};

#[test]
fn malformed_json_is_a_malformed_error_at_its_event_and_lenient_mode_skips_it() {
    let payloads = [
        r#"{"choices": ["#,
        "not json",
        "null",
        "[1, 2]",
        r#""a string""#,
        r#"{"choices": {"index": 0}}"#,
        r#"{"choices": [{"index": 0, "delta": {"content": 5}}]}"#,
        r#"{"choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}}]}"#,
        r#"{"choices": [{"index": 0, "delta": {"content": "a"}}]} trailing"#,
        r#"{"choices": [{"index": 0, "delta": {"content": "\ud800"}}]}"#,
    ];
    for payload in payloads {
        let first = event(&text("Hel"));
        let body = format!(
            "{first}{}{}{}",
            event(payload),
            event(&text("lo")),
            event(&finish("stop"))
        );
        for run in every_cut(body.as_bytes(), Options::new()) {
            let error = expect_error(run.result);
            assert!(error.is_malformed(), "{payload}: {error}");
            let location = error.location().unwrap();
            assert_eq!((location.event, location.offset), (2, first.len() as u64));
            assert_eq!(first_text(partial(&error)), "Hel", "{payload}");
        }
        let completion = lenient(body.as_bytes()).unwrap();
        let message = completion.message().unwrap();
        assert_eq!(message.text(), "Hello", "{payload}");
        let warnings = &message.response_metadata.warnings;
        assert_eq!(warnings.len(), 1, "{payload}: {warnings:?}");
        assert!(warnings[0].contains("event 2"), "{warnings:?}");
    }
}

/// Choice and tool-call indices that are not a `u32`.
const BAD_INDICES: [&str; 7] = [
    "-1",
    "4294967296",
    "18446744073709551616",
    "1.5",
    "1e3",
    "\"0\"",
    "true",
];

#[test]
fn a_bad_choice_index_is_a_malformed_event() {
    for index in BAD_INDICES {
        let body = format!(
            "{}{}{}",
            event(&text("ok")),
            event(&format!(
                r#"{{"choices":[{{"index":{index},"delta":{{"content":"x"}}}}]}}"#
            )),
            event(&finish("stop"))
        );
        let error = expect_error(assemble(body.as_bytes()));
        assert!(error.is_malformed(), "index {index}: {error}");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(first_text(partial(&error)), "ok");
        let completion = lenient(body.as_bytes()).unwrap();
        assert_eq!(first_text(&completion), "ok", "index {index}");
        assert!(completion.complete);
    }
}

#[test]
fn a_bad_tool_call_index_is_a_malformed_event() {
    for index in BAD_INDICES {
        let body = stream(&[
            &text("ok"),
            &format!(
                r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{index},"id":"c","function":{{"name":"f","arguments":"{{}}"}}}}]}}}}]}}"#
            ),
            &finish("stop"),
        ]);
        let error = expect_error(assemble(body.as_bytes()));
        assert!(error.is_malformed(), "index {index}: {error}");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(first_text(partial(&error)), "ok");
    }
}

#[test]
fn the_largest_and_null_indices_are_accepted() {
    let body = stream(&[
        r#"{"choices":[{"index":4294967295,"delta":{"tool_calls":[{"index":4294967295,"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
        r#"{"choices":[{"index":null,"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let completion = assemble(body.as_bytes()).unwrap();
    let indices: Vec<u32> = completion
        .choices
        .iter()
        .map(|choice| choice.index)
        .collect();
    assert_eq!(indices, [0, u32::MAX]);
    assert_eq!(first_text(&completion), "x");
    assert_eq!(completion.choices[1].message.tool_calls().count(), 1);
}

/// A JSON object that repeats a key: `serde_json` semantics apply (the derived delta refuses
/// a duplicate field, the chunk keeps the last `choices`); either way a typed outcome.
#[test]
fn duplicate_json_keys_give_a_typed_outcome() {
    let repeated_content = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a","content":"b"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let error = expect_error(assemble(repeated_content.as_bytes()));
    assert!(error.is_malformed(), "{error}");
    let repeated_choices = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let completion = assemble(repeated_choices.as_bytes()).unwrap();
    assert_eq!(first_text(&completion), "b");
}
