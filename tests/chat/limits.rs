//! The limits of `Options`: too many tool calls or choices, too much content, an oversized event —
//! each a limit error carrying the partial message.

use deltafold::{ErrorKind, Options};

use crate::{body, data, delta, failure_with, finish, partial_message, text, tools, DONE};

#[test]
fn too_many_tool_calls_is_a_limit_error_with_the_partial() {
    let error = failure_with(
        &body(&[
            tools(&[r#"{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}"#]),
            tools(&[r#"{"index":1,"id":"b","function":{"name":"f","arguments":"{}"}}"#]),
            tools(&[r#"{"index":2,"id":"c","function":{"name":"f","arguments":"{}"}}"#]),
            finish(0, "tool_calls"),
            DONE.into(),
        ]),
        Options::new().max_tool_calls(2),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(error.to_string().contains("max_tool_calls"), "{error}");
    assert_eq!(partial_message(&error).tool_calls().count(), 2);
}

#[test]
fn too_many_choices_is_a_limit_error_with_the_partial() {
    let error = failure_with(
        &body(&[
            delta(0, r#"{"content":"zero"}"#),
            delta(1, r#"{"content":"one"}"#),
            DONE.into(),
        ]),
        Options::new().max_choices(1),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(error.to_string().contains("max_choices"), "{error}");
    let partial = error.partial().unwrap();
    assert_eq!(partial.choices.len(), 1);
    assert_eq!(partial.choices[0].message.text(), "zero");
}

#[test]
fn too_much_content_is_a_limit_error_with_the_partial() {
    let error = failure_with(
        &body(&[text("hello"), text("world!"), DONE.into()]),
        // One choice, one block, and room for ten bytes of its text.
        Options::new().max_message_bytes(
            deltafold::Limits::CHOICE_OVERHEAD + deltafold::Limits::BLOCK_OVERHEAD + 10,
        ),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(error.to_string().contains("max_message_bytes"), "{error}");
    assert_eq!(partial_message(&error).text(), "hello");
}

#[test]
fn an_oversized_event_is_a_limit_error_with_the_partial() {
    let small = data(r#"{"choices":[{"index":0,"delta":{"content":"ok"}}]}"#);
    let large = text(&"x".repeat(500));
    let error = failure_with(
        &body(&[small.clone(), large, DONE.into()]),
        Options::new().max_event_bytes(small.len() + 10),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        error.location().map(|at| at.offset),
        Some(small.len() as u64)
    );
    assert_eq!(partial_message(&error).text(), "ok");
}
