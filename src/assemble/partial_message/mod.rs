//! One choice's message while it streams: its blocks in the order they began, found by kind
//! (the one text, reasoning and refusal block of chat-completion streams), by the provider's
//! block key (Anthropic's content blocks, Responses' output items) or through the tool-call
//! table; and the final message built from them.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::server_tools::PendingServerToolCall;
use super::tool_calls::{PendingToolCall, ToolCallTable};
use crate::delta::{BlockKey, TextKind};
use crate::message::{AiMessage, ContentBlock, FinishReason, Logprobs, ServerToolCall};

mod audio;
mod keyed;
mod provider_items;

/// One choice's message while it streams: the live snapshot an app reads between events.
#[derive(Debug, Clone)]
pub struct PartialMessage {
    pub(super) index: u32,
    blocks: Vec<PartialBlock>,
    pub(super) finish_reason: FinishReason,
    pub(super) logprobs: Option<Logprobs>,
    pub(super) extra: Map<String, Value>,
    /// Chat-completion streams have one text, one reasoning and one refusal per choice: these
    /// point at their blocks once they exist.
    text_block: Option<usize>,
    reasoning_block: Option<usize>,
    refusal_block: Option<usize>,
    /// The spoken answer of a chat completion, once it began.
    audio_block: Option<usize>,
    /// Where the tool calls are among the blocks.
    calls: ToolCallTable,
    /// The latest block of each key and kind of block-structured dialects (Anthropic,
    /// Responses).
    keyed: HashMap<(BlockKey, TextKind), usize>,
    /// The server-side tool calls still streaming, by the provider's block key.
    server_calls: HashMap<BlockKey, usize>,
    /// The provider items kept whole, by the provider's block key.
    provider_items: HashMap<BlockKey, usize>,
    /// The entry of `keyed` used last.
    last_keyed: Option<((BlockKey, TextKind), usize)>,
    /// By text kind: the latest block, and whether a delta went to an earlier one since the
    /// live text was last made whole (see [`take_out_of_order`](Self::take_out_of_order)).
    latest: [Option<usize>; 3],
    out_of_order: [bool; 3],
    /// How many of the blocks the budget has been charged for.
    blocks_charged: usize,
}

/// A block of a [`PartialMessage`]: finished content, or a tool call still streaming.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PartialBlock {
    /// Text, reasoning, refusal or other content, growing in place.
    Content(ContentBlock),
    /// A tool call; it keeps its argument text until the message is built.
    ToolCall(PendingToolCall),
    /// A tool call the provider runs itself, its arguments streaming. Boxed: such calls are few,
    /// and every block of a message is as large as its largest kind.
    ServerToolCall(Box<PendingServerToolCall>),
}

impl PartialMessage {
    pub(super) fn new(index: u32) -> Self {
        PartialMessage {
            index,
            blocks: Vec::new(),
            finish_reason: FinishReason::NONE,
            logprobs: None,
            extra: Map::new(),
            text_block: None,
            reasoning_block: None,
            refusal_block: None,
            audio_block: None,
            calls: ToolCallTable::default(),
            keyed: HashMap::new(),
            server_calls: HashMap::new(),
            provider_items: HashMap::new(),
            last_keyed: None,
            latest: [None; 3],
            out_of_order: [false; 3],
            blocks_charged: 0,
        }
    }

    /// The provider's choice index.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The blocks so far, in the order they began.
    pub fn blocks(&self) -> &[PartialBlock] {
        &self.blocks
    }

    /// The text so far: all text blocks joined (borrowed when there is at most one, as in
    /// chat-completion streams).
    pub fn text(&self) -> Cow<'_, str> {
        self.joined(TextKind::Text, self.text_block)
    }

    /// The text so far read as JSON and completed into a valid value — the live view of a
    /// structured-output answer (a Markdown code fence around it is ignored); `None` until a
    /// value has begun. Scans the whole text on each call, so it costs nothing while nobody asks;
    /// a UI that redraws on every delta can instead push each `TextDelta` into its own
    /// [`PartialJson`](super::PartialJson), which costs only the delta.
    ///
    /// ```
    /// use deltafold::Assembler;
    ///
    /// let mut assembler = Assembler::new();
    /// assembler.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{\\\"title\\\": \\\"Du\"}}]}\n\n")?;
    /// let partial = assembler.message(0).unwrap().text_partial_json().unwrap();
    /// assert_eq!(partial, serde_json::json!({"title": "Du"}));
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn text_partial_json(&self) -> Option<Value> {
        let mut scanner = super::PartialJson::new();
        scanner.push_str(crate::message::without_code_fence(&self.text()));
        scanner.value()
    }

    /// The reasoning so far, all reasoning blocks joined.
    pub fn reasoning(&self) -> Cow<'_, str> {
        self.joined(TextKind::Reasoning, self.reasoning_block)
    }

    /// The refusal so far, all refusal blocks joined.
    pub fn refusal(&self) -> Cow<'_, str> {
        self.joined(TextKind::Refusal, self.refusal_block)
    }

    /// The tool calls so far, in order of first appearance.
    pub fn tool_calls(&self) -> impl Iterator<Item = &PendingToolCall> {
        self.calls
            .blocks()
            .iter()
            .filter_map(|&block| self.tool_call(block))
    }

    /// The tool call at `position` among them (an event's `index`), found in constant time.
    pub fn tool_call_at(&self, position: u32) -> Option<&PendingToolCall> {
        let block = *self.calls.blocks().get(position as usize)?;
        self.tool_call(block)
    }

    /// Why the choice finished; empty while it streams.
    pub fn finish_reason(&self) -> &FinishReason {
        &self.finish_reason
    }

    /// True once the provider sent a finish reason for this choice.
    pub fn is_finished(&self) -> bool {
        !self.finish_reason.is_none()
    }

    /// How many blocks were added since the last call: the fold charges each one.
    pub(super) fn take_uncharged_blocks(&mut self) -> usize {
        let added = self.blocks.len() - self.blocks_charged;
        self.blocks_charged = self.blocks.len();
        added
    }

    /// The text of a text, reasoning or refusal block; empty for any other block or none.
    pub(super) fn text_of(&self, block: Option<usize>) -> &str {
        match block.and_then(|block| self.blocks.get(block)) {
            Some(PartialBlock::Content(ContentBlock::Text { text, .. }))
            | Some(PartialBlock::Content(ContentBlock::Reasoning { text, .. }))
            | Some(PartialBlock::Content(ContentBlock::Refusal { refusal: text, .. })) => text,
            _ => "",
        }
    }

    /// The message's whole text of `kind`: its blocks of that kind joined, as the message's
    /// `text()`, `reasoning()` and `refusal()` join them.
    pub(super) fn joined_text(&self, kind: TextKind) -> String {
        self.blocks
            .iter()
            .filter_map(|block| text_of_kind(block, kind))
            .collect()
    }

    /// The tool call in `block`, if that block is one.
    pub(super) fn tool_call(&self, block: usize) -> Option<&PendingToolCall> {
        match self.blocks.get(block) {
            Some(PartialBlock::ToolCall(call)) => Some(call),
            _ => None,
        }
    }

    /// Scans the argument text of the tool call in `block` pushed since it was last read.
    pub(super) fn catch_up_arguments(&mut self, block: usize) {
        if let Some(PartialBlock::ToolCall(call)) = self.blocks.get_mut(block) {
            call.catch_up_scan();
        }
    }

    /// The call table and the blocks the calls live among, for [`ToolCallsMut::of`] alone:
    /// every change to a call goes through it.
    ///
    /// [`ToolCallsMut::of`]: super::tool_calls::ToolCallsMut::of
    pub(super) fn tool_parts(&mut self) -> (&mut ToolCallTable, &mut Vec<PartialBlock>) {
        (&mut self.calls, &mut self.blocks)
    }

    /// Appends to the choice's block of that kind, creating it at first use; returns the block
    /// and the byte range the new text occupies in it.
    #[inline]
    pub(super) fn append(&mut self, kind: TextKind, delta: &str) -> (usize, usize, usize) {
        let slot = match kind {
            TextKind::Text => &mut self.text_block,
            TextKind::Reasoning => &mut self.reasoning_block,
            TextKind::Refusal => &mut self.refusal_block,
        };
        let block = *slot.get_or_insert_with(|| {
            self.blocks.push(PartialBlock::Content(empty_block(kind)));
            self.latest[kind as usize] = Some(self.blocks.len() - 1);
            self.blocks.len() - 1
        });
        let text = match &mut self.blocks[block] {
            PartialBlock::Content(ContentBlock::Text { text, .. })
            | PartialBlock::Content(ContentBlock::Reasoning { text, .. })
            | PartialBlock::Content(ContentBlock::Refusal { refusal: text, .. }) => text,
            _ => unreachable!("text slots point at text blocks"),
        };
        let start = text.len();
        if text.capacity() == 0 && !delta.is_empty() {
            // Growing from 8 bytes would reallocate thrice before the first sentence ends.
            text.reserve(delta.len().max(64));
        }
        text.push_str(delta);
        (block, start, text.len())
    }

    /// The choice's block of that kind, created empty if it has none yet.
    pub(super) fn block_mut(&mut self, kind: TextKind) -> &mut ContentBlock {
        let (block, _, _) = self.append(kind, "");
        match &mut self.blocks[block] {
            PartialBlock::Content(content) => content,
            _ => unreachable!("text slots point at text blocks"),
        }
    }

    /// Appends a block; returns its position.
    pub(super) fn push_content(&mut self, block: ContentBlock) -> usize {
        let kind = text_kind(&block);
        self.blocks.push(PartialBlock::Content(block));
        if let Some(kind) = kind {
            self.latest[kind as usize] = Some(self.blocks.len() - 1);
        }
        self.blocks.len() - 1
    }

    /// The text kinds whose live text a delta to an earlier block made differ from the
    /// message's since the last call: a provider interleaving its blocks (an Anthropic delta
    /// for an `index` that later blocks follow). The `TextDelta` events showed that delta at
    /// the end; the fold says what the whole text is once the choice finishes.
    pub(super) fn take_out_of_order(&mut self) -> Vec<TextKind> {
        [TextKind::Text, TextKind::Reasoning, TextKind::Refusal]
            .into_iter()
            .filter(|kind| std::mem::take(&mut self.out_of_order[*kind as usize]))
            .collect()
    }

    /// The length of the message's whole text of `kind`.
    pub(super) fn joined_len(&self, kind: TextKind) -> usize {
        self.blocks
            .iter()
            .filter_map(|block| text_of_kind(block, kind))
            .map(str::len)
            .sum()
    }

    /// The content block at `block`, if it is finished content.
    pub(super) fn content_at(&self, block: usize) -> Option<&ContentBlock> {
        match self.blocks.get(block) {
            Some(PartialBlock::Content(content)) => Some(content),
            _ => None,
        }
    }

    /// Opens a server-side tool call under `key` (a key used again opens a new call); returns
    /// its block.
    pub(super) fn start_server_call(&mut self, key: BlockKey, call: ServerToolCall) -> usize {
        let block = self.blocks.len();
        self.blocks.push(PartialBlock::ServerToolCall(Box::new(
            PendingServerToolCall::new(call),
        )));
        self.server_calls.insert(key, block);
        block
    }

    /// The server-side tool call still open under `key`, and its block.
    pub(super) fn open_server_call(
        &mut self,
        key: BlockKey,
    ) -> Option<(usize, &mut PendingServerToolCall)> {
        let block = *self.server_calls.get(&key)?;
        match &mut self.blocks[block] {
            PartialBlock::ServerToolCall(call) => Some((block, call)),
            _ => None,
        }
    }

    /// Closes the server-side tool call under `key`: later deltas for the key open no call.
    pub(super) fn close_server_call(&mut self, key: BlockKey) {
        self.server_calls.remove(&key);
    }

    /// The server-side tool call in `block`, if that block is one.
    pub(super) fn server_call(&self, block: usize) -> Option<&PendingServerToolCall> {
        match self.blocks.get(block) {
            Some(PartialBlock::ServerToolCall(call)) => Some(call),
            _ => None,
        }
    }

    /// Builds the final message; tool calls not finished by then are finished here.
    pub(super) fn into_message(self, mut message: AiMessage) -> AiMessage {
        message.content = self
            .blocks
            .into_iter()
            .map(|block| match block {
                PartialBlock::Content(content) => content,
                PartialBlock::ToolCall(call) => call.into_content(),
                PartialBlock::ServerToolCall(call) => call.into_content(),
            })
            .collect();
        let metadata = &mut message.response_metadata;
        metadata.finish_reason = self.finish_reason;
        metadata.logprobs = self.logprobs.map(|mut logprobs| {
            logprobs.shrink();
            logprobs
        });
        // The response's fields win over the choice's own; with none, the choice's map is
        // moved whole rather than copied key by key.
        if metadata.extra.is_empty() {
            metadata.extra = self.extra;
        } else {
            for (key, value) in self.extra {
                metadata.extra.entry(key).or_insert(value);
            }
        }
        message
    }
}

/// The text of a block of `kind`; `None` for a block of another kind.
fn text_of_kind(block: &PartialBlock, kind: TextKind) -> Option<&str> {
    match (block, kind) {
        (PartialBlock::Content(ContentBlock::Text { text, .. }), TextKind::Text)
        | (PartialBlock::Content(ContentBlock::Reasoning { text, .. }), TextKind::Reasoning)
        | (PartialBlock::Content(ContentBlock::Refusal { refusal: text, .. }), TextKind::Refusal) => {
            Some(text)
        }
        _ => None,
    }
}

/// The kind of a text, reasoning or refusal block.
fn text_kind(block: &ContentBlock) -> Option<TextKind> {
    match block {
        ContentBlock::Text { .. } => Some(TextKind::Text),
        ContentBlock::Reasoning { .. } => Some(TextKind::Reasoning),
        ContentBlock::Refusal { .. } => Some(TextKind::Refusal),
        _ => None,
    }
}

fn empty_block(kind: TextKind) -> ContentBlock {
    match kind {
        TextKind::Text => ContentBlock::text(""),
        TextKind::Reasoning => ContentBlock::reasoning(""),
        TextKind::Refusal => ContentBlock::refusal(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Annotation;

    const FIRST: BlockKey = BlockKey { item: 0, part: 0 };
    const SECOND: BlockKey = BlockKey { item: 2, part: 0 };

    #[test]
    fn each_key_is_its_own_block_whatever_the_order_of_its_deltas() {
        let mut message = PartialMessage::new(0);
        message.append_keyed(TextKind::Text, FIRST, "Hello ");
        message.append_keyed(TextKind::Text, FIRST, "there, ");
        message.set_signature(Some(BlockKey { item: 1, part: 0 }), "sig");
        message.append_keyed(TextKind::Text, SECOND, "world");
        assert_eq!(message.blocks().len(), 3);
        assert_eq!(message.text(), "Hello there, world");
        // Text for the first key after the second began goes on in the first key's block.
        message.append_keyed(TextKind::Text, FIRST, "you!");
        assert_eq!(message.blocks().len(), 3);
        assert_eq!(message.text(), "Hello there, you!world");
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
        let note = |n: u32| Annotation::NonStandard {
            value: Value::from(n),
        };
        message.annotate(None, note(1));
        message.annotate(None, note(1));
        message.annotate(None, note(2));
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
