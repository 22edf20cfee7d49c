//! Choices: keyed by their index (sparse, out of order, or by position without one); empty
//! choices and null deltas carry nothing; the same choice twice in one chunk appends both.

use deltafold::ContentBlock;

use crate::{body, chunk_with, completion, data, delta, finish, message, text, DONE};

#[test]
fn choices_are_keyed_by_index_not_position_and_may_be_sparse_and_out_of_order() {
    let completion = completion(&body(&[
        chunk_with(
            r#"{"index":2,"delta":{"content":"two"}},{"index":0,"delta":{"content":"zero"}}"#,
            "",
        ),
        delta(2, r#"{"content":" more"}"#),
        chunk_with(r#"{"index":0,"delta":{"content":" more"}}"#, ""),
        finish(2, "stop"),
        finish(0, "length"),
        DONE.into(),
    ]));
    let summary: Vec<(u32, String, String)> = completion
        .choices
        .iter()
        .map(|choice| {
            (
                choice.index,
                choice.message.text(),
                choice.message.response_metadata.finish_reason.to_string(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (0, "zero more".to_string(), "length".to_string()),
            (2, "two more".to_string(), "stop".to_string()),
        ]
    );
}

#[test]
fn a_choice_without_an_index_is_keyed_by_its_position() {
    let completion = completion(&body(&[
        chunk_with(
            r#"{"delta":{"content":"first"}},{"delta":{"content":"second"}}"#,
            "",
        ),
        chunk_with(
            r#"{"delta":{},"finish_reason":"stop"},{"delta":{},"finish_reason":"stop"}"#,
            "",
        ),
        DONE.into(),
    ]));
    let texts: Vec<(u32, String)> = completion
        .choices
        .iter()
        .map(|choice| (choice.index, choice.message.text()))
        .collect();
    assert_eq!(texts, [(0, "first".to_string()), (1, "second".to_string())]);
}

#[test]
fn empty_choices_and_null_or_missing_delta_carry_nothing() {
    let message = message(&body(&[
        data(
            r#"{"choices":[],"created":0,"id":"","model":"","prompt_filter_results":[{"prompt_index":0}]}"#,
        ),
        delta(0, "null"),
        chunk_with(r#"{"index":0,"finish_reason":null}"#, ""),
        delta(0, "{}"),
        delta(
            0,
            r#"{"role":"assistant","content":null,"refusal":null,"tool_calls":null,"reasoning_content":null}"#,
        ),
        text("only this"),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.content, vec![ContentBlock::text("only this")]);
    assert!(message.usage.is_none());
}

#[test]
fn the_same_choice_twice_in_one_chunk_appends_both() {
    let message = message(&body(&[
        data(
            r#"{"choices":[{"index":0,"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}"#,
        ),
        DONE.into(),
    ]));
    assert_eq!(message.text(), "ab");
}
