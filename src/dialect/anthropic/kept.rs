//! Blocks kept whole until their stop: a `compaction` block (the summary of the conversation
//! so far that context management wrote, which Anthropic's docs say to send back as it came)
//! and any block of a kind newer than this decoder. Each ends as a `non_standard` block holding
//! the block as sent, which `to_anthropic()` sends back unchanged.
//!
//! A delta for such a block changes it as the Anthropic SDK's accumulator does: a
//! `compaction_delta` sets the block's `content` and `encrypted_content` (it carries them whole,
//! so it replaces, never appends) — and so does any member of any other delta but its `type`,
//! so that a field the next version adds is kept too; an `input_json_delta` is appended to the
//! block's `input`.

use serde_json::{Map, Value};

use super::{AnthropicDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, Held};
use crate::error::Error;

/// A block kept whole: the block as its start sent it, changed by its deltas.
#[derive(Debug)]
pub(super) struct KeptBlock {
    pub(super) block: Map<String, Value>,
    pub(super) input_json: String,
}

impl AnthropicDecoder {
    /// Applies a delta that is not an `input_json_delta` to the block kept whole at `index`:
    /// every member of the event's `delta` but `type` replaces the block's member of that name.
    /// `data` is the whole `content_block_delta` event.
    pub(super) fn change_kept(
        &mut self,
        index: u32,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Some(kept) = self.kept.get_mut(&index) else {
            return Ok(());
        };
        let Ok(Value::Object(mut event)) = serde_json::from_str::<Value>(data) else {
            return Ok(());
        };
        let Some(Value::Object(delta)) = event.remove("delta") else {
            return Ok(());
        };
        let values = delta
            .values()
            .map(|value| Held::of(value).entries)
            .sum::<usize>();
        sink.apply(Delta::Held(Held {
            entries: values,
            bytes: data.len(),
        }))?;
        for (key, value) in delta {
            if key != "type" {
                kept.block.insert(key, value);
            }
        }
        Ok(())
    }

    /// Ends the block kept whole at `index`, if there is one: it becomes a `non_standard` block,
    /// with the streamed input (parsed when it is JSON) as its `input`.
    pub(super) fn end_kept(
        &mut self,
        index: u32,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        let KeptBlock {
            mut block,
            input_json,
        } = self.kept.remove(&index)?;
        if !input_json.trim().is_empty() {
            let input = serde_json::from_str(&input_json).unwrap_or(Value::String(input_json));
            block.insert("input".to_owned(), input);
        }
        Some(sink.apply(Delta::NonStandard {
            choice: CHOICE,
            value: Value::Object(block),
        }))
    }
}
