//! The blocks a provider names (Anthropic's content block `index`, Responses' output item and
//! part): each key is one block, which its deltas go on in however they interleave; and the
//! reasoning and text blocks that signatures, opaque data and annotations attach to.

use std::borrow::Cow;

use serde_json::Value;

use super::{empty_block, text_of_kind, PartialBlock, PartialMessage};
use crate::delta::{BlockKey, TextKind};
use crate::message::{Annotation, ContentBlock};

/// How many of a block's latest annotations a new one is compared with.
const ANNOTATION_LOOK_BACK: usize = 64;

/// Blocks named by the provider, and the reasoning and text blocks that signatures, opaque data
/// and annotations attach to.
impl PartialMessage {
    /// All blocks of a kind joined; borrowed when there is only the slot's block.
    pub(in crate::assemble) fn joined(&self, kind: TextKind, slot: Option<usize>) -> Cow<'_, str> {
        if self.keyed.is_empty() {
            return Cow::Borrowed(self.text_of(slot));
        }
        let mut texts = self
            .blocks
            .iter()
            .filter_map(|block| text_of_kind(block, kind));
        let Some(first) = texts.next() else {
            return Cow::Borrowed("");
        };
        match texts.next() {
            None => Cow::Borrowed(first),
            Some(second) => {
                let mut joined = format!("{first}{second}");
                texts.for_each(|text| joined.push_str(text));
                Cow::Owned(joined)
            }
        }
    }

    /// The latest block of this kind under this key, created empty at first use.
    fn keyed_block(&mut self, key: BlockKey, kind: TextKind) -> usize {
        // Deltas come in runs for one block: the last lookup answers most without hashing.
        if let Some((last, block)) = self.last_keyed {
            if last == (key, kind) {
                return block;
            }
        }
        let block = match self.keyed.get(&(key, kind)) {
            Some(&block) => block,
            None => return self.new_keyed_block(key, kind),
        };
        self.last_keyed = Some(((key, kind), block));
        block
    }

    fn new_keyed_block(&mut self, key: BlockKey, kind: TextKind) -> usize {
        self.blocks.push(PartialBlock::Content(empty_block(kind)));
        let block = self.blocks.len() - 1;
        self.latest[kind as usize] = Some(block);
        self.keyed.insert((key, kind), block);
        self.last_keyed = Some(((key, kind), block));
        block
    }

    /// Appends to the keyed block; returns the block and the byte range of the new text.
    pub(in crate::assemble) fn append_keyed(
        &mut self,
        kind: TextKind,
        key: BlockKey,
        delta: &str,
    ) -> (usize, usize, usize) {
        // The key names the block: text for a block that later blocks already follow goes on
        // in that block (as the providers' SDKs accumulate it), however the deltas interleave.
        let block = self.keyed_block(key, kind);
        if !delta.is_empty() && self.latest[kind as usize].is_some_and(|latest| block < latest) {
            self.out_of_order[kind as usize] = true;
        }
        match &mut self.blocks[block] {
            PartialBlock::Content(
                ContentBlock::Text { text, .. }
                | ContentBlock::Reasoning { text, .. }
                | ContentBlock::Refusal { refusal: text, .. },
            ) => {
                let start = text.len();
                text.push_str(delta);
                (block, start, text.len())
            }
            _ => (block, 0, 0),
        }
    }

    /// The block of a kind a delta addresses: keyed, or the choice's one block of that kind.
    pub(in crate::assemble) fn block_at(
        &mut self,
        key: Option<BlockKey>,
        kind: TextKind,
    ) -> &mut ContentBlock {
        let block = match key {
            Some(key) => self.keyed_block(key, kind),
            None => self.append(kind, "").0,
        };
        match &mut self.blocks[block] {
            PartialBlock::Content(content) => content,
            _ => unreachable!("text slots and keys point at content"),
        }
    }

    /// Replaces the signature of a reasoning block.
    pub(in crate::assemble) fn set_signature(&mut self, key: Option<BlockKey>, new: &str) {
        if let ContentBlock::Reasoning { signature, .. } = self.block_at(key, TextKind::Reasoning) {
            *signature = Some(new.to_owned());
        }
    }

    /// Replaces the opaque data of a reasoning block.
    pub(in crate::assemble) fn set_reasoning_data(&mut self, key: Option<BlockKey>, new: &str) {
        if let ContentBlock::Reasoning { data, .. } = self.block_at(key, TextKind::Reasoning) {
            *data = Some(new.to_owned());
        }
    }

    /// Replaces the opaque data of a reasoning block with the value a closing event repeats,
    /// keeping a different earlier value in its extras (under
    /// [`EARLIER_DATA`](crate::message::ContentBlock::EARLIER_DATA)).
    pub(in crate::assemble) fn replace_reasoning_data(&mut self, key: BlockKey, new: &str) {
        if let ContentBlock::Reasoning { data, extras, .. } =
            self.block_at(Some(key), TextKind::Reasoning)
        {
            match data.replace(new.to_owned()) {
                Some(earlier) if earlier != new => {
                    extras.insert(ContentBlock::EARLIER_DATA.to_owned(), earlier.into());
                }
                _ => {}
            }
        }
    }

    /// Sets a provider field on a reasoning block (the latest value wins).
    pub(in crate::assemble) fn set_reasoning_extra(
        &mut self,
        key: Option<BlockKey>,
        name: &str,
        value: Value,
    ) {
        if let ContentBlock::Reasoning { extras, .. } = self.block_at(key, TextKind::Reasoning) {
            extras.insert(name.to_owned(), value);
        }
    }

    /// Appends an annotation to a text block, unless one of its recent annotations is equal
    /// (providers that repeat their citations): the look-back is bounded so that a stream of
    /// many citations stays linear.
    pub(in crate::assemble) fn annotate(&mut self, key: Option<BlockKey>, value: Annotation) {
        if let ContentBlock::Text { annotations, .. } = self.block_at(key, TextKind::Text) {
            push_new(annotations, value);
        }
    }

    /// The text blocks, in order: their positions among the blocks and their text.
    pub(in crate::assemble) fn text_blocks(&self) -> (Vec<usize>, Vec<&str>) {
        self.blocks
            .iter()
            .enumerate()
            .filter_map(|(position, block)| match block {
                PartialBlock::Content(ContentBlock::Text { text, .. }) => {
                    Some((position, text.as_str()))
                }
                _ => None,
            })
            .unzip()
    }

    /// Appends an annotation to the text block at `block` (found by [`text_blocks`]), unless a
    /// recent one is equal.
    ///
    /// [`text_blocks`]: Self::text_blocks
    pub(in crate::assemble) fn annotate_block(&mut self, block: usize, value: Annotation) {
        if let Some(PartialBlock::Content(ContentBlock::Text { annotations, .. })) =
            self.blocks.get_mut(block)
        {
            push_new(annotations, value);
        }
    }
}

/// Appends `value` unless one of the latest annotations is equal (providers that repeat their
/// citations); the look-back is bounded so that a stream of many citations stays linear.
fn push_new(annotations: &mut Vec<Annotation>, value: Annotation) {
    let repeated = annotations
        .iter()
        .rev()
        .take(ANNOTATION_LOOK_BACK)
        .any(|known| *known == value);
    if !repeated {
        annotations.push(value);
    }
}
