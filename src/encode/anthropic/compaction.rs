//! Compaction blocks (context management's summary of the conversation so far), which the
//! message keeps as `non_standard` blocks as Anthropic sent them: written back in the shape the
//! Anthropic stream has them — a `content_block_start` whose block is `{"type": "compaction",
//! "content": null}`, then one `compaction_delta` carrying the summary (`content`), its
//! `encrypted_content` and any other member — and whole in a non-streamed message, so a client
//! can round-trip them as the docs ask.

use serde_json::{Map, Value};

use super::{block_start, stop, EventRules};
use crate::encode::sse::push_value;
use crate::message::ContentBlock;

/// The compaction block a `non_standard` block holds, in Anthropic's shape (a `content` member,
/// the summary or `null`); an OpenAI Responses `compaction` item has none and is no such block.
pub(super) fn compaction(block: &ContentBlock) -> Option<&Map<String, Value>> {
    let ContentBlock::NonStandard {
        value: Value::Object(value),
    } = block
    else {
        return None;
    };
    let anthropic = value.get("type").and_then(Value::as_str) == Some("compaction")
        && value
            .get("content")
            .is_some_and(|content| content.is_string() || content.is_null());
    anthropic.then_some(value)
}

impl EventRules {
    /// Writes a compaction block: its start, one delta with what it holds, its stop.
    pub(super) fn write_compaction(&mut self, value: &Map<String, Value>, out: &mut String) {
        self.start(out);
        let index = self.take_index();
        block_start(
            out,
            index,
            &serde_json::json!({"type": "compaction", "content": null}),
        );
        let mut delta = Map::new();
        delta.insert("type".into(), "compaction_delta".into());
        for (key, member) in value {
            if key != "type" && !member.is_null() {
                delta.insert(key.clone(), member.clone());
            }
        }
        if delta.len() > 1 {
            let event =
                serde_json::json!({"type": "content_block_delta", "index": index, "delta": delta});
            push_value(out, Some("content_block_delta"), &event);
        }
        stop(out, index);
    }
}
