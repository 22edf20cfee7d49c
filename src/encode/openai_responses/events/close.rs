//! An item's end: the part being written closed (`output_text.done` or `refusal.done`,
//! `content_part.done`), the item's `.done` events, and its final form kept for
//! `response.completed`. Apart from the opening and streaming of items in `mod.rs`, which call
//! here whenever the next item must begin.

use std::fmt::Write as _;

use serde_json::json;

use super::super::items::{item_json, message_item_head, Item, MESSAGE_ITEM_TAIL};
use super::EventRules;
use crate::assemble::PartialMessage;
use crate::encode::cursor::reasoning_seal;

impl EventRules {
    /// Ends the message part being written.
    pub(super) fn close_part(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.annotate(message, out);
        let at = self.items;
        if let Some(Item::Message {
            id,
            refusal,
            parts,
            text,
            annotations,
            annotated,
            ..
        }) = &mut self.open
        {
            *annotated = 0;
            let annotations = std::mem::take(annotations);
            let text = std::mem::take(text);
            let (done, part) = if *refusal {
                (
                    json!({"item_id": id, "output_index": at, "content_index": parts.len(), "refusal": text}),
                    json!({"type": "refusal", "refusal": text}),
                )
            } else {
                (
                    json!({"item_id": id, "output_index": at, "content_index": parts.len(), "text": text, "logprobs": []}),
                    json!({"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}),
                )
            };
            let kind = if *refusal {
                "response.refusal.done"
            } else {
                "response.output_text.done"
            };
            let part_done = json!({"item_id": id, "output_index": at, "content_index": parts.len(), "part": part});
            parts.push(&part.to_string());
            self.push(out, kind, done);
            self.push(out, "response.content_part.done", part_done);
        }
    }

    /// Ends the open item.
    pub(super) fn close_open_item(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.awaiting = None;
        if matches!(self.open, Some(Item::Message { .. })) {
            self.close_part(message, out);
        }
        self.open_call = None;
        let Some(mut item) = self.open.take() else {
            return;
        };
        if let Item::Reasoning {
            id,
            text,
            mirrors,
            data,
        } = &mut item
        {
            let seal = message
                .zip(*mirrors)
                .map(|(message, at)| reasoning_seal(message, at));
            *data = seal.and_then(|(_, data)| data.map(str::to_owned));
            let at = self.items;
            let part = json!({"type": "summary_text", "text": text});
            self.push(
                out,
                "response.reasoning_summary_text.done",
                json!({"item_id": id, "output_index": at, "summary_index": 0, "text": text}),
            );
            self.push(
                out,
                "response.reasoning_summary_part.done",
                json!({"item_id": id, "output_index": at, "summary_index": 0, "part": part}),
            );
        }
        let at = self.items;
        self.items += 1;
        self.close_item(at, item, out);
    }

    /// Writes an item's `.done` events and keeps its final form at `at`.
    pub(super) fn close_item(&mut self, at: usize, item: Item, out: &mut String) {
        if let Item::Server(server) = &item {
            self.server_done(at, server, out);
        }
        if let Item::Call {
            id,
            arguments,
            name,
            ..
        } = &item
        {
            self.push(
                out,
                "response.function_call_arguments.done",
                json!({"item_id": id, "output_index": at, "name": name, "arguments": arguments}),
            );
        }
        if let Item::Message {
            id, phase, parts, ..
        } = &item
        {
            // A message of many parts is written as text, never as values.
            let head = message_item_head(id, phase.as_deref());
            self.open_raw(out, "response.output_item.done");
            let _ = write!(
                out,
                "{{\"type\":\"response.output_item.done\",\"output_index\":{at},\"item\":{head}"
            );
            parts.write_into(out);
            out.push_str(MESSAGE_ITEM_TAIL);
            self.close_raw(out);
            self.output.push_around(&head, parts, MESSAGE_ITEM_TAIL);
            return;
        }
        let mirrors = match &item {
            Item::Reasoning { mirrors, .. } => *mirrors,
            _ => None,
        };
        let done = item_json(item);
        self.push(
            out,
            "response.output_item.done",
            json!({"output_index": at, "item": done}),
        );
        self.keep(&done, mirrors);
    }
}
