//! A body that is not an event stream at all: an HTML page, a bare JSON error, nothing.

use crate::{assemble, expect_error, lenient, partial};

/// A provider's error object, as some servers send it without SSE framing.
const PROVIDER_ERROR: &str =
    r#"{"error":{"message":"overloaded","type":"server_error","code":"529"}}"#;

#[test]
fn an_html_page_instead_of_an_event_stream_is_a_truncated_error() {
    let page = b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1></body></html>\n";
    let error = expect_error(assemble(page));
    assert!(error.is_truncated(), "{error}");
    assert!(error.to_string().contains("event stream"), "{error}");
    assert!(partial(&error).choices.is_empty());
    let completion = lenient(page).unwrap();
    assert!(!completion.complete && completion.choices.is_empty());
}

/// A JSON error object sent without SSE framing reads as one newline-delimited payload: the
/// provider's error, not a truncated stream.
#[test]
fn a_json_error_body_without_framing_is_a_provider_error() {
    let error = expect_error(assemble(PROVIDER_ERROR.as_bytes()));
    assert!(error.is_provider(), "{error}");
    assert_eq!(error.provider_error().unwrap().message, "overloaded");
    assert!(partial(&error).choices.is_empty());
}

#[test]
fn an_empty_or_blank_body_is_a_truncated_error() {
    for body in [&b""[..], b"\n\n\n", b"   ", b": just a comment\n\n"] {
        let error = expect_error(assemble(body));
        assert!(error.is_truncated(), "{error}");
        assert_eq!(error.location().map(|location| location.event), Some(0));
        let completion = lenient(body).unwrap();
        assert!(!completion.complete && completion.choices.is_empty());
    }
}

/// A Cohere-style stream (named events, `{"type":"message-start",…}` payloads) ends with
/// `data: [DONE]`: no payload is understood as the dialect detected by default, so it is an
/// error naming the first payload — in lenient mode too — never an empty success.
#[test]
fn a_stream_in_which_no_payload_is_understood_is_an_error_even_in_lenient_mode() {
    // A format no dialect knows, ending in `[DONE]` like the OpenAI chat streams it falls back to.
    let body = concat!(
        "event: begin\ndata: {\"stream_id\":\"s1\",\"kind\":\"begin\"}\n\n",
        "event: token\ndata: {\"kind\":\"token\",\"token\":{\"text\":\"Hi\"}}\n\n",
        "event: end\ndata: {\"kind\":\"end\",\"reason\":\"COMPLETE\"}\n\n",
        "data: [DONE]\n\n",
    );
    for result in [assemble(body.as_bytes()), lenient(body.as_bytes())] {
        let error = expect_error(result);
        assert!(error.is_malformed(), "{error}");
        let text = error.to_string();
        assert!(
            text.contains("no payload of the stream was understood"),
            "{text}"
        );
        assert!(text.contains("begin"), "names what was seen: {text}");
        assert!(partial(&error).choices.is_empty());
    }
    // Without the end marker it is cut short, and still an error in lenient mode.
    let cut = &body[..body.find("data: [DONE]").unwrap()];
    let error = expect_error(lenient(cut.as_bytes()));
    assert!(error.is_truncated(), "{error}");
    assert!(error.to_string().contains("begin"), "{error}");
}
