//! Which dialect reads a stream: detected from the first payload, forced by the options, fixed
//! by a content type; a payload of another dialect mid-stream; the dialect names the CLI parses.

use deltafold::{Assembler, Dialect, ErrorKind, Options};
use serde_json::json;

use crate::{anthropic, assemble, created, ndjson, sse};

#[test]
fn the_dialect_is_detected_from_the_first_payload_or_forced() {
    let chat = sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}),
    ]);
    let gemini = sse(&[
        json!({"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}]}),
    ]);
    let ollama = ndjson(&[
        json!({"model": "m", "message": {"content": "x"}, "done": true, "done_reason": "stop"}),
    ]);
    for (body, dialect) in [
        (chat.as_str(), Dialect::OpenAiChat),
        (gemini.as_str(), Dialect::Gemini),
        (ollama.as_str(), Dialect::Ollama),
    ] {
        let mut assembler = Assembler::new();
        assembler.feed(body.as_bytes()).unwrap();
        assert_eq!(assembler.dialect(), Some(dialect));
        let message = assembler.finish().unwrap().into_message();
        assert_eq!(message.text(), "x");
        assert_eq!(
            message.response_metadata.model_provider.as_deref(),
            Some(dialect.provider_name())
        );
    }
    let forced = deltafold::assemble(
        gemini.as_bytes(),
        Options::new().dialect(Dialect::Anthropic),
    );
    let error = forced.unwrap_err();
    assert!(error.is_malformed());
    assert!(
        error
            .to_string()
            .contains("Gemini dialect in a stream read as Anthropic Messages"),
        "{error}"
    );
}

#[test]
fn a_payload_of_another_dialect_mid_stream_is_a_clear_error() {
    let body = format!(
        "{}{}",
        sse(&[json!({"id": "c", "choices": [{"index": 0, "delta": {"content": "a"}}]})]),
        anthropic(&[(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "b"}})
        )]),
    );
    let error = assemble(&body).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Malformed);
    assert!(
        error
            .to_string()
            .contains("Anthropic Messages dialect in a stream read as OpenAI chat-completion"),
        "{error}"
    );
    assert_eq!(error.location().unwrap().event, 2);
    assert_eq!(error.partial().unwrap().message().unwrap().text(), "a");

    let gemini_in_responses = sse(&[created(), json!({"candidates": [], "usageMetadata": {}})]);
    assert!(assemble(&gemini_in_responses)
        .unwrap_err()
        .to_string()
        .contains("Gemini dialect"));
}

#[test]
fn a_content_type_fixes_the_framing_before_the_first_byte() {
    let line = "{\"model\":\"m\",\"message\":{\"content\":\"x\"},\"done\":true}\n";
    let mut assembler = Assembler::new();
    assembler.set_content_type("text/event-stream; charset=utf-8");
    assembler.push(line.as_bytes());
    let error = assembler.finish().unwrap_err();
    assert!(
        error.to_string().contains("is this an event stream?"),
        "{error}"
    );
    let mut assembler = Assembler::new();
    assembler.set_content_type("application/x-ndjson");
    assembler.push(line.as_bytes());
    assert_eq!(assembler.finish().unwrap().into_message().text(), "x");
}

#[test]
fn dialect_names_parse_for_the_cli() {
    for (name, dialect) in [
        ("openai", Dialect::OpenAiChat),
        ("anthropic", Dialect::Anthropic),
        ("openai-responses", Dialect::OpenAiResponses),
        ("gemini", Dialect::Gemini),
        ("ollama", Dialect::Ollama),
    ] {
        assert_eq!(name.parse::<Dialect>().unwrap(), dialect);
        assert_eq!(dialect.to_string(), name);
    }
    let error = "mistral".parse::<Dialect>().unwrap_err();
    assert!(error
        .to_string()
        .contains("openai, anthropic, openai-responses, gemini, ollama"));
}
