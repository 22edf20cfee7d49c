//! Content of a message: text as a string or as parts, reasoning under every name providers
//! use (counted once when mirrored), reasoning details with signatures and encrypted data,
//! refusals, and URL citations as annotations on the text.

use deltafold::ContentBlock;
use serde_json::json;

use crate::{body, delta, finish, message, text, DONE};

#[test]
fn content_comes_as_a_string_or_as_parts_with_mistral_thinking_going_to_reasoning() {
    let message = message(&body(&[
        delta(
            0,
            r#"{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me"},{"type":"text","text":" think."}]}]}"#,
        ),
        delta(
            0,
            r#"{"content":[{"type":"thinking","thinking":[{"type":"text","text":" Done."}],"closed":true}]}"#,
        ),
        delta(0, r#"{"content":[{"type":"text","text":"Answer"}]}"#),
        text(": 42"),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "Let me think. Done.");
    assert_eq!(message.text(), "Answer: 42");
    assert_eq!(
        message.content,
        vec![
            ContentBlock::reasoning("Let me think. Done."),
            ContentBlock::text("Answer: 42"),
        ]
    );
}

#[test]
fn reasoning_content_and_reasoning_both_append_to_the_reasoning() {
    let message = message(&body(&[
        delta(0, r#"{"reasoning_content":"DeepSeek style,"}"#),
        delta(0, r#"{"reasoning":" OpenRouter style."}"#),
        text("Answer."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "DeepSeek style, OpenRouter style.");
    assert_eq!(message.text(), "Answer.");
}

#[test]
fn reasoning_mirrored_into_both_fields_counts_once() {
    // StepFun (and vLLM builds with its compatibility shim) send the same text under both
    // names in every delta; the reasoning is that text once, not twice.
    let message = message(&body(&[
        delta(0, r#"{"reasoning":"The","reasoning_content":"The"}"#),
        delta(0, r#"{"reasoning":" user","reasoning_content":" user"}"#),
        text("Hi."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "The user");
}

#[test]
fn reasoning_and_text_in_the_same_delta_are_both_kept() {
    let message = message(&body(&[
        delta(0, r#"{"reasoning_content":"thinking"}"#),
        delta(0, r#"{"reasoning_content":" done","content":"Hello"}"#),
        text(" world"),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(
        message.content,
        vec![
            ContentBlock::reasoning("thinking done"),
            ContentBlock::text("Hello world"),
        ]
    );
}

#[test]
fn reasoning_details_are_kept_with_their_signature_without_counting_text_twice() {
    let message = message(&body(&[
        delta(
            0,
            r#"{"reasoning":"Two","reasoning_details":[{"type":"reasoning.text","text":"Two","format":"anthropic-claude-v1","index":0}]}"#,
        ),
        // Some hosts send the detail alone: its text is the reasoning.
        delta(
            0,
            r#"{"reasoning":null,"reasoning_details":[{"type":"reasoning.text","text":" steps.","format":"anthropic-claude-v1","index":0}]}"#,
        ),
        delta(
            0,
            r#"{"reasoning":null,"reasoning_details":[{"type":"reasoning.text","signature":"c2lnbmF0dXJl","format":"anthropic-claude-v1","index":0}]}"#,
        ),
        text("Done."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "Two steps.");
    let ContentBlock::Reasoning {
        text,
        signature,
        extras,
        ..
    } = &message.content[0]
    else {
        panic!("reasoning first: {:?}", message.content)
    };
    assert_eq!(text, "Two steps.");
    assert_eq!(signature.as_deref(), Some("c2lnbmF0dXJl"));
    assert_eq!(
        extras["reasoning_details"],
        json!([{"type": "reasoning.text", "text": "Two steps.", "signature": "c2lnbmF0dXJl", "format": "anthropic-claude-v1", "index": 0}])
    );
}

#[test]
fn encrypted_reasoning_details_are_kept_as_the_blocks_opaque_data() {
    let message = message(&body(&[
        delta(
            0,
            r#"{"reasoning":null,"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAB-opaque","id":"rs_1","format":"openai-responses-v1","index":0}]}"#,
        ),
        text("Answer."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    let ContentBlock::Reasoning {
        text, data, extras, ..
    } = &message.content[0]
    else {
        panic!("reasoning first: {:?}", message.content)
    };
    assert_eq!(text, "", "encrypted reasoning has no readable text");
    assert_eq!(
        extras["reasoning_details"],
        json!([{"type": "reasoning.encrypted", "data": "gAAAAB-opaque", "id": "rs_1", "format": "openai-responses-v1", "index": 0}])
    );
    assert_eq!(data.as_deref(), Some("gAAAAB-opaque"));
}

#[test]
fn refusal_appends_to_a_refusal_block() {
    let message = message(&body(&[
        delta(0, r#"{"role":"assistant","refusal":""}"#),
        delta(0, r#"{"refusal":"I can't"}"#),
        delta(0, r#"{"refusal":" do that."}"#),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.refusal().as_deref(), Some("I can't do that."));
    assert_eq!(
        message.content,
        vec![ContentBlock::refusal("I can't do that.")]
    );
    assert_eq!(message.text(), "");
}

#[test]
fn url_citations_in_the_delta_become_typed_citations_on_the_text() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"See the docs.\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"annotations\":[{\"type\":\"url_citation\",\"url_citation\":{\"start_index\":4,\"end_index\":12,\"url\":\"https://example.com\",\"title\":\"Docs\"}}]},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let message = deltafold::assemble(body.as_bytes(), deltafold::Options::new())
        .unwrap()
        .into_message();
    let deltafold::ContentBlock::Text {
        text, annotations, ..
    } = &message.content[0]
    else {
        panic!("expected a text block, got {:?}", message.content);
    };
    assert_eq!(text, "See the docs.");
    assert_eq!(annotations.len(), 1);
    let citation = annotations[0]
        .as_citation()
        .expect("a url_citation is a citation");
    assert_eq!(citation.url.as_deref(), Some("https://example.com"));
    assert_eq!(citation.title.as_deref(), Some("Docs"));
    assert_eq!(
        (citation.start_index, citation.end_index),
        (Some(4), Some(12))
    );
}
