//! Provider items kept whole while they stream (a shell call whose command streams, an
//! apply_patch call whose diff streams): the item opens a non-standard block, its streamed
//! strings grow inside it with a live event each, and the finished item replaces it. And the
//! provider's item a text block came from (a Responses message's id and phase).

use serde_json::Value;

use super::{Queued, ResponseState};
use crate::assemble::budget::value_cost;
use crate::delta::{BlockKey, Delta, ItemField, TextKind};
use crate::error::Error;

impl ResponseState {
    /// Applies a [`Delta::ProviderItem`], [`Delta::ItemInput`] or [`Delta::TextItem`].
    pub(super) fn provider_item_delta(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        match delta {
            Delta::ProviderItem { choice, key, value } => self.provider_item(choice, key, value),
            Delta::ItemInput {
                choice,
                key,
                field,
                text,
            } => self.item_input(choice, key, field, text),
            Delta::TextItem {
                choice,
                key,
                kind,
                id,
                phase,
            } => self.text_item(choice, key, kind, id, phase),
            _ => Ok(()),
        }
    }

    /// The item under `key` as it stands now: it opens its block, or replaces what the block
    /// held (the whole new value is charged: the finished item repeats what streamed).
    fn provider_item(&mut self, choice: u32, key: BlockKey, value: Value) -> Result<(), Error> {
        let bytes = value_cost(&value);
        self.charged(choice, bytes)?.set_provider_item(key, value);
        Ok(())
    }

    /// The provider's item a keyed text or refusal block came from: its id and phase.
    fn text_item(
        &mut self,
        choice: u32,
        key: BlockKey,
        kind: TextKind,
        id: Option<&str>,
        phase: Option<&str>,
    ) -> Result<(), Error> {
        let bytes = id.map_or(0, str::len) + phase.map_or(0, str::len);
        self.charged(choice, bytes)?
            .set_text_item(key, kind, id, phase);
        Ok(())
    }

    /// More of a string streamed inside the item under `key`.
    fn item_input(
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
