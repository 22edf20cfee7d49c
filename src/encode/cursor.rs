//! A cursor over the snapshot's blocks, moved forward as the encoder opens blocks: it finds the
//! snapshot block an event's block mirrors (to read its signature when it closes) and the
//! reasoning blocks no event announces (Anthropic's `redacted_thinking`, Responses' reasoning
//! with encrypted content only). Each block is passed once, so the walk is linear.

use std::ops::Range;

use crate::assemble::{PartialBlock, PartialMessage};
use crate::message::ContentBlock;

/// Which kind of block an event opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    Text,
    Reasoning,
    Refusal,
    /// The tool call at this position.
    ToolCall(u32),
    /// The block at this position (server-side tool calls and results, which events name by
    /// their block).
    Block(usize),
}

/// How far the encoder has mirrored the snapshot's blocks.
#[derive(Debug, Default)]
pub(super) struct BlockCursor {
    next: usize,
}

impl BlockCursor {
    /// The first block from the cursor on that `want` names, and the blocks passed on the way;
    /// the cursor moves past it. `None` (and no move) when there is none, as when text goes on
    /// in a block that began before the tool calls.
    pub(super) fn advance_to(
        &mut self,
        message: &PartialMessage,
        want: Want,
    ) -> Option<(Range<usize>, usize)> {
        let blocks = message.blocks();
        let found = match want {
            Want::Block(at) => (self.next <= at && at < blocks.len()).then_some(at)?,
            _ => (self.next..blocks.len()).find(|&at| matches(&blocks[at], want))?,
        };
        let passed = self.next..found;
        self.next = found + 1;
        Some((passed, found))
    }

    /// True when the snapshot's last block is a block of `want` past both `mirrors` and the
    /// cursor: the delta just read began a new block there (a source that keys its blocks
    /// sent a second text block), so the target opens one too. Looks at one block.
    pub(super) fn moved_on(
        &self,
        message: Option<&PartialMessage>,
        mirrors: Option<usize>,
        want: Want,
    ) -> bool {
        let (Some(message), Some(mirrors)) = (message, mirrors) else {
            return false;
        };
        let blocks = message.blocks();
        let Some(last) = blocks.len().checked_sub(1) else {
            return false;
        };
        last > mirrors && last >= self.next && matches(&blocks[last], want)
    }

    /// The blocks not passed yet; the cursor moves to the end.
    pub(super) fn rest(&mut self, message: &PartialMessage) -> Range<usize> {
        let end = message.blocks().len().max(self.next);
        let rest = self.next..end;
        self.next = end;
        rest
    }
}

fn matches(block: &PartialBlock, want: Want) -> bool {
    match (block, want) {
        (PartialBlock::Content(ContentBlock::Text { .. }), Want::Text)
        | (PartialBlock::Content(ContentBlock::Refusal { .. }), Want::Refusal) => true,
        // A reasoning delta went into a block with text; one without is hidden reasoning.
        (PartialBlock::Content(ContentBlock::Reasoning { text, .. }), Want::Reasoning) => {
            !text.is_empty()
        }
        (PartialBlock::ToolCall(call), Want::ToolCall(position)) => call.position() == position,
        _ => false,
    }
}

/// A reasoning block without text: what no reasoning delta announced. Returns its signature
/// and opaque data.
pub(super) fn hidden_reasoning(block: &PartialBlock) -> Option<(Option<&str>, Option<&str>)> {
    match block {
        PartialBlock::Content(ContentBlock::Reasoning {
            text,
            signature,
            data,
            ..
        }) if text.is_empty() && (signature.is_some() || data.is_some()) => {
            Some((signature.as_deref(), data.as_deref()))
        }
        _ => None,
    }
}

/// The signature and opaque data of the reasoning block at `at`.
pub(super) fn reasoning_seal(message: &PartialMessage, at: usize) -> (Option<&str>, Option<&str>) {
    match message.blocks().get(at) {
        Some(PartialBlock::Content(ContentBlock::Reasoning {
            signature, data, ..
        })) => (signature.as_deref(), data.as_deref()),
        _ => (None, None),
    }
}
