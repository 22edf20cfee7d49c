//! Blocks named by the provider (Anthropic's content blocks, Responses' output items), and the
//! reasoning and text blocks that signatures, opaque data and annotations attach to.

use std::borrow::Cow;

use serde_json::Value;

use super::{PartialBlock, PartialMessage};
use crate::delta::{BlockKey, TextKind};
use crate::message::ContentBlock;

/// How many of a block's latest annotations a new one is compared with.
const ANNOTATION_LOOK_BACK: usize = 64;

impl PartialMessage {
    /// All blocks of a kind joined; borrowed when there is only the slot's block.
    pub(super) fn joined(&self, kind: TextKind, slot: Option<usize>) -> Cow<'_, str> {
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
        self.keyed.insert((key, kind), block);
        self.last_keyed = Some(((key, kind), block));
        block
    }

    /// Appends to the keyed block; returns the block and the byte range of the new text.
    pub(crate) fn append_keyed(
        &mut self,
        kind: TextKind,
        key: BlockKey,
        delta: &str,
    ) -> (usize, usize, usize) {
        let mut block = self.keyed_block(key, kind);
        if block + 1 != self.blocks.len() && !delta.is_empty() {
            // Text for a block that later blocks already follow goes on in a new block under
            // the same key, so the message keeps the order the text streamed in.
            block = self.new_keyed_block(key, kind);
        }
        match &mut self.blocks[block] {
            PartialBlock::Content(
                ContentBlock::Text { text, .. }
                | ContentBlock::Reasoning { text, .. }
                | ContentBlock::Refusal { refusal: text },
            ) => {
                let start = text.len();
                text.push_str(delta);
                (block, start, text.len())
            }
            _ => (block, 0, 0),
        }
    }

    /// The block of a kind a delta addresses: keyed, or the choice's one block of that kind.
    fn block_at(&mut self, key: Option<BlockKey>, kind: TextKind) -> &mut ContentBlock {
        let block = match key {
            Some(key) => self.keyed_block(key, kind),
            None => self.append(kind, "").0,
        };
        match &mut self.blocks[block] {
            PartialBlock::Content(content) => content,
            PartialBlock::ToolCall(_) => unreachable!("text slots and keys point at content"),
        }
    }

    /// Replaces the signature of a reasoning block.
    pub(crate) fn set_signature(&mut self, key: Option<BlockKey>, new: &str) {
        if let ContentBlock::Reasoning { signature, .. } = self.block_at(key, TextKind::Reasoning) {
            *signature = Some(new.to_owned());
        }
    }

    /// Replaces the opaque data of a reasoning block.
    pub(crate) fn set_reasoning_data(&mut self, key: Option<BlockKey>, new: &str) {
        if let ContentBlock::Reasoning { data, .. } = self.block_at(key, TextKind::Reasoning) {
            *data = Some(new.to_owned());
        }
    }

    /// Sets a provider field on a reasoning block (the latest value wins).
    pub(crate) fn set_reasoning_extra(&mut self, key: Option<BlockKey>, name: &str, value: Value) {
        if let ContentBlock::Reasoning { extras, .. } = self.block_at(key, TextKind::Reasoning) {
            extras.insert(name.to_owned(), value);
        }
    }

    /// Appends an annotation to a text block, unless one of its recent annotations is equal
    /// (providers that repeat their citations): the look-back is bounded so that a stream of
    /// many citations stays linear.
    pub(crate) fn annotate(&mut self, key: Option<BlockKey>, value: Value) {
        if let ContentBlock::Text { annotations, .. } = self.block_at(key, TextKind::Text) {
            let repeated = annotations
                .iter()
                .rev()
                .take(ANNOTATION_LOOK_BACK)
                .any(|known| *known == value);
            if !repeated {
                annotations.push(value);
            }
        }
    }
}

fn text_of_kind(block: &PartialBlock, kind: TextKind) -> Option<&str> {
    match (block, kind) {
        (PartialBlock::Content(ContentBlock::Text { text, .. }), TextKind::Text)
        | (PartialBlock::Content(ContentBlock::Reasoning { text, .. }), TextKind::Reasoning)
        | (PartialBlock::Content(ContentBlock::Refusal { refusal: text }), TextKind::Refusal) => {
            Some(text)
        }
        _ => None,
    }
}

fn empty_block(kind: TextKind) -> ContentBlock {
    match kind {
        TextKind::Text => ContentBlock::text(""),
        TextKind::Reasoning => ContentBlock::reasoning(""),
        TextKind::Refusal => ContentBlock::Refusal {
            refusal: String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: BlockKey = BlockKey { item: 0, part: 0 };
    const SECOND: BlockKey = BlockKey { item: 2, part: 0 };

    #[test]
    fn each_key_is_its_own_block_and_text_keeps_stream_order() {
        let mut message = PartialMessage::new(0);
        message.append_keyed(TextKind::Text, FIRST, "Hello ");
        message.append_keyed(TextKind::Text, FIRST, "there, ");
        message.set_signature(Some(BlockKey { item: 1, part: 0 }), "sig");
        message.append_keyed(TextKind::Text, SECOND, "world");
        assert_eq!(message.blocks().len(), 3);
        assert_eq!(message.text(), "Hello there, world");
        // Text for the first key after the second began goes on in a block of its own.
        message.append_keyed(TextKind::Text, FIRST, "!");
        assert_eq!(message.blocks().len(), 4);
        assert_eq!(message.text(), "Hello there, world!");
        assert_eq!(message.reasoning(), "");
    }

    #[test]
    fn a_single_keyed_block_is_borrowed() {
        let mut message = PartialMessage::new(0);
        message.append_keyed(TextKind::Reasoning, FIRST, "hm");
        assert!(matches!(message.reasoning(), Cow::Borrowed("hm")));
    }

    #[test]
    fn signatures_and_data_replace_and_annotations_do_not_repeat() {
        let mut message = PartialMessage::new(0);
        message.set_signature(None, "a");
        message.set_signature(None, "b");
        message.set_reasoning_data(None, "x");
        message.annotate(None, Value::from(1));
        message.annotate(None, Value::from(1));
        message.annotate(None, Value::from(2));
        let blocks: Vec<_> = message.blocks().to_vec();
        assert!(matches!(
            &blocks[0],
            PartialBlock::Content(ContentBlock::Reasoning { signature: Some(s), data: Some(d), .. })
                if s == "b" && d == "x"
        ));
        assert!(matches!(
            &blocks[1],
            PartialBlock::Content(ContentBlock::Text { annotations, .. }) if annotations.len() == 2
        ));
    }
}
