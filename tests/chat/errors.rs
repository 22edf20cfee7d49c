//! Errors a stream reports: the provider's error (an error object with or without choices, an
//! `error` event, in every position of the stream) with the partial message, and a malformed
//! payload, named by its event, byte offset and a snippet, or skipped with a warning in lenient
//! mode.

use deltafold::{Assembler, ErrorKind, Options};

use crate::{
    body, data, delta, every_cut, failure, finish, message, partial_message, replay, run_with,
    text, DONE,
};

/// The error object of the tests that place one anywhere in a stream.
const PROVIDER_ERROR: &str =
    r#"{"error":{"message":"overloaded","type":"server_error","code":"529"}}"#;

#[test]
fn an_error_object_without_choices_is_a_provider_error_with_the_partial_message() {
    let error = failure(&body(&[
        text("Half an answer"),
        data(
            r#"{"error":{"message":"The server had an error","type":"server_error","param":null,"code":"internal"}}"#,
        ),
        DONE.into(),
    ]));
    assert_eq!(error.kind(), ErrorKind::Provider);
    let provider = error.provider_error().expect("the provider's error object");
    assert_eq!(provider.code.as_deref(), Some("internal"));
    assert_eq!(provider.kind.as_deref(), Some("server_error"));
    assert_eq!(provider.message, "The server had an error");
    assert!(
        error
            .to_string()
            .contains("internal: The server had an error"),
        "{error}"
    );
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "Half an answer");
    assert!(partial.response_metadata.incomplete.is_some());

    // However the bytes are cut, and in lenient mode too, the error stops the stream at its
    // event with the text before it.
    let stream = body(&[text("Hel"), data(PROVIDER_ERROR), text("lo")]);
    for run in every_cut(stream.as_bytes(), Options::new().lenient(true)) {
        let error = run.result.expect_err("the provider error stops the stream");
        assert!(error.is_provider(), "{error}");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(partial_message(&error).text(), "Hel");
    }
}

#[test]
fn an_error_object_with_choices_keeps_the_usage_and_metadata_of_that_payload() {
    let error = failure(&body(&[
        data(r#"{"id":"gen-9","choices":[{"index":0,"delta":{"content":"Once"}}]}"#),
        data(
            r#"{"id":"gen-9","model":"late-model","provider":"Together","error":{"code":502,"message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":" upon"},"finish_reason":"error"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}"#,
        ),
    ]));
    assert_eq!(error.kind(), ErrorKind::Provider);
    let provider = error.provider_error().unwrap();
    assert_eq!(provider.code.as_deref(), Some("502"));
    assert_eq!(provider.message, "Provider disconnected");
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "Once upon");
    assert_eq!(
        partial.response_metadata.model_name.as_deref(),
        Some("late-model")
    );
    assert_eq!(partial.response_metadata.extra["provider"], "Together");
    let usage = partial
        .usage
        .as_ref()
        .expect("the usage of the error payload");
    assert_eq!((usage.input_tokens, usage.output_tokens), (9, 2));
}

#[test]
fn an_error_event_is_a_provider_error_with_code_type_and_message() {
    let stream = format!(
        "{}event: error\ndata: {}\n\n",
        delta(0, r#"{"reasoning":"Planning the call."}"#),
        r#"{"error":{"message":"Tool call validation failed","type":"invalid_request_error","code":"tool_use_failed"}}"#
    );
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Provider);
    let provider = error.provider_error().unwrap();
    assert_eq!(
        (
            provider.code.as_deref(),
            provider.kind.as_deref(),
            provider.message.as_str()
        ),
        (
            Some("tool_use_failed"),
            Some("invalid_request_error"),
            "Tool call validation failed"
        )
    );
    assert_eq!(partial_message(&error).reasoning(), "Planning the call.");

    let plain = failure(&format!(
        "{}event: error\ndata: upstream overloaded\n\n",
        text("hi")
    ));
    assert_eq!(plain.kind(), ErrorKind::Provider);
    assert_eq!(
        plain.provider_error().unwrap().message,
        "upstream overloaded"
    );

    // Whatever form the data takes, the message is the provider's, at the event's place.
    for data in [PROVIDER_ERROR, "overloaded", r#"{"error":"overloaded"}"#] {
        let error = failure(&format!("{}event: error\ndata: {data}\n\n", text("Hel")));
        assert!(error.is_provider(), "{error}");
        assert_eq!(error.provider_error().unwrap().message, "overloaded");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(partial_message(&error).text(), "Hel");
    }
}

#[test]
fn an_error_as_the_first_event_is_a_provider_error_with_an_empty_partial() {
    let error = failure(&data(PROVIDER_ERROR));
    assert!(error.is_provider(), "{error}");
    assert_eq!(error.location().map(|location| location.event), Some(1));
    let provider = error.provider_error().unwrap();
    assert_eq!(provider.message, "overloaded");
    assert_eq!(provider.code.as_deref(), Some("529"));
    let partial = error.partial().expect("the partial result");
    assert!(partial.choices.is_empty());
    assert!(!partial.complete);
}

#[test]
fn an_error_after_the_finish_reason_is_still_reported() {
    let error = failure(&body(&[
        text("Hello"),
        finish(0, "stop"),
        data(PROVIDER_ERROR),
        DONE.into(),
    ]));
    assert!(error.is_provider(), "{error}");
    let message = partial_message(&error);
    assert_eq!(message.text(), "Hello");
    assert_eq!(message.response_metadata.finish_reason, "stop");
}

#[test]
fn a_null_error_field_is_not_an_error() {
    let message = message(&body(&[
        data(
            r#"{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"error":null}"#,
        ),
        DONE.into(),
    ]));
    assert_eq!(message.text(), "a");
}

#[test]
fn a_later_finish_cannot_override_an_error() {
    let stream = body(&[
        text("partial"),
        data(r#"{"error":{"message":"overloaded","type":"server_error"}}"#),
        text(" more"),
        finish(0, "stop"),
        DONE.into(),
    ]);
    let mut assembler = Assembler::new();
    assembler.push(stream.as_bytes());
    let mut events = Vec::new();
    let error =
        replay::drain_into(&mut assembler, &mut events).expect_err("the error stops the stream");
    assert_eq!(error.kind(), ErrorKind::Provider);
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "partial");
    assert!(partial.response_metadata.finish_reason.is_none());
    assert!(assembler.next_event().expect("nothing more").is_none());
    assembler.push(finish(0, "stop").as_bytes());
    assert!(assembler.next_event().expect("nothing more").is_none());
    assert!(
        !matches!(assembler.finish(), Ok(completion) if completion.complete),
        "finish after an error must not report a complete answer"
    );
}

#[test]
fn a_malformed_payload_names_its_event_byte_offset_and_a_snippet() {
    let first = text("fine");
    let broken = data(r#"{"choices":[{"index":0,"delta":{"content":"broken"}}"#);
    let stream = body(&[first.clone(), broken, text(" never read"), DONE.into()]);
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Malformed);
    let location = error.location().expect("a location");
    assert_eq!((location.event, location.offset), (2, first.len() as u64));
    let shown = error.to_string();
    assert!(shown.contains("EOF while parsing"), "{shown}");
    assert!(
        shown.contains(r#"{\"choices\":[{\"index\":0"#),
        "no snippet: {shown}"
    );
    assert!(
        shown.contains(&format!("event 2, byte {}", first.len())),
        "{shown}"
    );
    assert_eq!(partial_message(&error).text(), "fine");
}

#[test]
fn lenient_mode_skips_a_malformed_payload_with_a_warning() {
    let first = text("fine");
    let stream = body(&[
        first.clone(),
        data("{not json at all"),
        text(" and more"),
        finish(0, "stop"),
        DONE.into(),
    ]);
    let completion = run_with(&stream, Options::new().lenient(true))
        .result
        .expect("lenient mode skips the event");
    let message = completion.message().unwrap();
    assert_eq!(message.text(), "fine and more");
    assert_eq!(message.response_metadata.finish_reason, "stop");
    let warnings = &message.response_metadata.warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&format!("event 2 (byte {})", first.len())),
        "{warnings:?}"
    );
}
