//! Provider items kept whole (Responses' `shell_call`, `apply_patch_call`…) while they stream:
//! the item as it was added, a non-standard block under its key, whose streamed strings (a
//! command, a diff) grow in place, each piece costing its own bytes, until the finished item
//! replaces it. Also the item a keyed text block came from (its id and phase).

use serde_json::{Map, Value};

use super::{PartialBlock, PartialMessage};
use crate::delta::{BlockKey, ItemField, TextKind};
use crate::message::ContentBlock;

impl PartialMessage {
    /// Sets the item under `key`: a new block, or the one the key already has, replaced.
    /// Returns the block.
    pub(in crate::assemble) fn set_provider_item(&mut self, key: BlockKey, value: Value) -> usize {
        let block = ContentBlock::NonStandard { value };
        match self.provider_items.get(&key) {
            Some(&at) => {
                self.blocks[at] = PartialBlock::Content(block);
                at
            }
            None => {
                self.blocks.push(PartialBlock::Content(block));
                let at = self.blocks.len() - 1;
                self.provider_items.insert(key, at);
                at
            }
        }
    }

    /// Appends `text` to the string at `field` of the item under `key` (made, with the objects
    /// and array slots before it, if missing). Returns the block and the byte range of the
    /// new text; `None` when no item has the key or the place holds something else.
    pub(in crate::assemble) fn append_item_input(
        &mut self,
        key: BlockKey,
        field: ItemField,
        text: &str,
    ) -> Option<(usize, usize, usize)> {
        let at = *self.provider_items.get(&key)?;
        let PartialBlock::Content(ContentBlock::NonStandard {
            value: Value::Object(item),
        }) = &mut self.blocks[at]
        else {
            return None;
        };
        let (object, member) = match field {
            ItemField::Member(object, member) | ItemField::Element(object, member, _) => {
                (object, member)
            }
        };
        let holder = item
            .entry(object)
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()?
            .entry(member)
            .or_insert_with(|| match field {
                ItemField::Member(..) => Value::String(String::new()),
                ItemField::Element(..) => Value::Array(Vec::new()),
            });
        let slot = match (field, holder) {
            (ItemField::Member(..), slot) => slot,
            (ItemField::Element(_, _, index), Value::Array(elements)) => {
                let index = usize::try_from(index).ok()?;
                if elements.len() <= index {
                    elements.resize(index + 1, Value::String(String::new()));
                }
                &mut elements[index]
            }
            _ => return None,
        };
        let Value::String(held) = slot else {
            return None;
        };
        let start = held.len();
        held.push_str(text);
        Some((at, start, held.len()))
    }

    /// The streamed string at `field` of the item in `block`.
    pub(in crate::assemble) fn item_input(&self, block: usize, field: ItemField) -> &str {
        let Some(PartialBlock::Content(ContentBlock::NonStandard { value })) =
            self.blocks.get(block)
        else {
            return "";
        };
        let found = match field {
            ItemField::Member(object, member) => value.get(object).and_then(|o| o.get(member)),
            ItemField::Element(object, member, index) => value
                .get(object)
                .and_then(|o| o.get(member))
                .and_then(|elements| elements.get(usize::try_from(index).ok()?)),
        };
        found.and_then(Value::as_str).unwrap_or_default()
    }

    /// Sets the provider's item id and phase of a keyed text or refusal block (the latest
    /// value wins).
    pub(in crate::assemble) fn set_text_item(
        &mut self,
        key: BlockKey,
        kind: TextKind,
        id: Option<&str>,
        phase: Option<&str>,
    ) {
        if let ContentBlock::Text {
            id: held_id,
            phase: held_phase,
            ..
        }
        | ContentBlock::Refusal {
            id: held_id,
            phase: held_phase,
            ..
        } = self.block_at(Some(key), kind)
        {
            if let Some(id) = id {
                *held_id = Some(id.to_owned());
            }
            if let Some(phase) = phase {
                *held_phase = Some(phase.to_owned());
            }
        }
    }
}
