//! `<think>` extraction (`Options::think_tags`): tags stay text unless asked for, and then
//! stream as reasoning, in a built stream and in a real recording.

use std::path::Path;

use deltafold::{Event, Options};
use serde_json::{json, Value};

use crate::sse;

fn chat_text(pieces: &[&str]) -> String {
    let mut payloads: Vec<Value> = pieces
        .iter()
        .map(|text| json!({"choices": [{"index": 0, "delta": {"content": text}}]}))
        .collect();
    payloads.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    let mut body = sse(&payloads);
    body.push_str("data: [DONE]\n\n");
    body
}

#[test]
fn stay_text_unless_asked_and_then_stream_as_reasoning() {
    let body = chat_text(&[
        "<thi",
        "nk>\nStep 1",
        ". Step 2.</th",
        "ink>\n\nThe answer.",
    ]);
    let plain = deltafold::assemble(body.as_bytes(), Options::new())
        .unwrap()
        .into_message();
    assert_eq!(
        plain.text(),
        "<think>\nStep 1. Step 2.</think>\n\nThe answer."
    );
    assert_eq!(plain.reasoning(), "");

    let replay = crate::replay::run([body.as_bytes()], Options::new().think_tags(true));
    let message = replay.result.unwrap().into_message();
    assert_eq!(message.reasoning(), "Step 1. Step 2.");
    assert_eq!(message.text(), "The answer.");
    let order: Vec<String> = replay
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ReasoningDelta { text, .. } => Some(format!("r:{text}")),
            Event::TextDelta { text, .. } => Some(format!("t:{text}")),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["r:Step 1", "r:. Step 2.", "t:The answer."]);
}

#[test]
fn apply_to_the_real_together_stream() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-sse/together__think_tags__1.sse");
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("../shared/real-sse not found; skipping");
        return;
    };
    let message = deltafold::assemble(&bytes, Options::new().think_tags(true))
        .unwrap()
        .into_message();
    assert!(message
        .reasoning()
        .starts_with("Okay, the user asked \"How do I cross the street?\""));
    assert!(!message.reasoning().contains("think>"));
    assert!(message.text().starts_with("Crossing the street safely"));
    assert!(!message.text().contains("<think>"));
}
