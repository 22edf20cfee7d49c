//! Provider items kept whole while they stream (a shell call whose command streams, an
//! apply_patch call whose diff streams): the item opens a non-standard block, its streamed
//! strings grow inside it with a live event each, and the finished item replaces it.

use serde_json::Value;

use super::{Queued, ResponseState};
use crate::assemble::budget::value_cost;
use crate::delta::{BlockKey, ItemField};
use crate::error::Error;

impl ResponseState {
    /// The item under `key` as it stands now: it opens its block, or replaces what the block
    /// held (the whole new value is charged: the finished item repeats what streamed).
    pub(super) fn provider_item(
        &mut self,
        choice: u32,
        key: BlockKey,
        value: Value,
    ) -> Result<(), Error> {
        let bytes = value_cost(&value);
        self.charged(choice, bytes)?.set_provider_item(key, value);
        Ok(())
    }

    /// More of a string streamed inside the item under `key`.
    pub(super) fn item_input(
        &mut self,
        choice: u32,
        key: BlockKey,
        field: ItemField,
        text: &str,
    ) -> Result<(), Error> {
        let message = self.charged(choice, text.len())?;
        let Some((block, start, end)) = message.append_item_input(key, field, text) else {
            return Ok(());
        };
        let choice = self.touched_choice();
        if start < end {
            self.events.push(Queued::ItemInput {
                choice,
                block,
                field,
                start,
                end,
            });
        }
        Ok(())
    }
}
