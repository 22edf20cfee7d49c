//! Reasoning no event announces (encrypted content without a summary) as reasoning items, the
//! ids reasoning items carry, and their encrypted content renewed for `response.completed`.

use serde_json::{json, Value};

use super::super::items::{item_id, Item};

use super::EventRules;
use crate::assemble::PartialMessage;
use crate::encode::cursor::{hidden_reasoning, reasoning_seal};
use crate::message::ContentBlock;

impl EventRules {
    /// Reasoning with opaque data and no text: a reasoning item with `encrypted_content` and
    /// no summary (a signature alone has no place here).
    pub(super) fn write_hidden(
        &mut self,
        message: &PartialMessage,
        blocks: std::ops::Range<usize>,
        out: &mut String,
    ) {
        for at in blocks {
            if let Some((_, Some(data))) = hidden_reasoning(&message.blocks()[at]) {
                let id = reasoning_id(Some(message), Some(at), self.items);
                let item = Item::Reasoning {
                    id,
                    text: String::new(),
                    mirrors: Some(at),
                    data: Some(data.to_owned()),
                };
                let index = self.items;
                self.items += 1;
                let added = json!({"id": item_id(&item), "type": "reasoning", "summary": []});
                self.push(
                    out,
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                );
                self.close_item(index, item, out);
            }
        }
    }
    /// Gives each reasoning item in `output` the encrypted content its block holds now: in an
    /// OpenAI Responses source, `response.completed` repeats the reasoning with a new
    /// encryption, which the message keeps (its `output_item.done` already went out with the
    /// earlier one, as in the source). Only items whose content changed are parsed again.
    pub(super) fn reseal(&mut self, message: &PartialMessage) {
        let sealed = std::mem::take(&mut self.sealed);
        self.output.rewrite(sealed, |held, block| {
            let data = reasoning_seal(message, block).1?;
            let mut item = serde_json::from_str::<Value>(held).ok()?;
            if item["encrypted_content"].as_str() == Some(data) {
                return None;
            }
            item["encrypted_content"] = data.into();
            Some(item.to_string())
        });
    }
}

/// The reasoning item's id: the source's (Responses keeps it on the block), or a generated one.
pub(super) fn reasoning_id(
    message: Option<&PartialMessage>,
    block: Option<usize>,
    at: usize,
) -> String {
    let kept = message
        .zip(block)
        .and_then(|(message, block)| match message.blocks().get(block) {
            Some(crate::assemble::PartialBlock::Content(ContentBlock::Reasoning {
                extras,
                ..
            })) => extras.get("id").and_then(Value::as_str).map(str::to_owned),
            _ => None,
        });
    kept.unwrap_or_else(|| format!("rs_df_{at}"))
}
