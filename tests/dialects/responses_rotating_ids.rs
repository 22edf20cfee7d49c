//! Responses ids that change from event to event (GitHub Copilot gives every event, every item
//! and the items of `response.completed` a new id; shape seen in vercel/ai's
//! `github-copilot-id-rotation` recording): the closing event's items cannot be matched by id, so
//! they are matched by position — the text and the reasoning come out once, not twice.

use deltafold::message::ContentBlock;
use serde_json::json;

use crate::{assemble, sse};

#[test]
fn items_whose_ids_rotate_are_matched_by_position() {
    let body = sse(&[
        json!({"type": "response.created", "response": {"id": "rot-1", "status": "in_progress", "model": "gpt-5-mini", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "rot-2", "type": "reasoning", "summary": []}}),
        json!({"type": "response.reasoning_summary_text.delta", "item_id": "rot-3", "output_index": 0, "summary_index": 0, "delta": "**Counting**"}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "rot-4", "type": "reasoning", "summary": [{"type": "summary_text", "text": "**Counting**"}]}}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"id": "rot-5", "type": "message", "role": "assistant", "content": []}}),
        json!({"type": "response.output_text.delta", "item_id": "rot-6", "output_index": 1, "content_index": 0, "delta": "Three "}),
        json!({"type": "response.output_text.delta", "item_id": "rot-7", "output_index": 1, "content_index": 0, "delta": "r's."}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": {"id": "rot-8", "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Three r's.", "annotations": []}]}}),
        json!({"type": "response.completed", "response": {"id": "rot-9", "status": "completed", "model": "gpt-5-mini", "output": [
            {"id": "rot-10", "type": "reasoning", "summary": [{"type": "summary_text", "text": "**Counting**"}]},
            {"id": "rot-11", "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Three r's.", "annotations": []}]}
        ], "usage": {"input_tokens": 12, "output_tokens": 9, "total_tokens": 21}}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    assert_eq!(message.text(), "Three r's.");
    assert_eq!(message.reasoning(), "**Counting**");
    assert_eq!(message.id.as_deref(), Some("rot-9"));
    let kinds: Vec<&str> = message
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Reasoning { .. } => "reasoning",
            ContentBlock::Text { .. } => "text",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["reasoning", "text"]);
}

#[test]
fn an_item_left_out_of_the_stream_is_still_matched_by_id() {
    // One listed id streamed: the ids do not rotate, and the unseen search is read once, after.
    let body = sse(&[
        json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "model": "gpt-5", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}}),
        json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Done."}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "model": "gpt-5", "output": [
            {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "rust"}},
            {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
        ]}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    assert_eq!(message.text(), "Done.");
    let texts = message
        .content
        .iter()
        .filter(|block| matches!(block, ContentBlock::Text { .. }))
        .count();
    assert_eq!(texts, 1);
}
