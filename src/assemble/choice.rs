use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::tool_call::PendingToolCall;
use crate::delta::{BlockKey, TextKind};
use crate::message::{AiMessage, ContentBlock, FinishReason};

/// One choice's message while it streams: the live snapshot an app reads between events.
#[derive(Debug, Clone)]
pub struct PartialMessage {
    pub(crate) index: u32,
    pub(crate) blocks: Vec<PartialBlock>,
    pub(crate) finish_reason: FinishReason,
    pub(crate) logprobs: Option<Map<String, Value>>,
    pub(crate) extra: Map<String, Value>,
    /// Chat-completion streams have one text, one reasoning and one refusal per choice: these
    /// point at their blocks once they exist.
    text_block: Option<usize>,
    reasoning_block: Option<usize>,
    refusal_block: Option<usize>,
    /// Block index of each tool call, by position.
    tool_blocks: Vec<usize>,
    /// Position of the tool call the last fragment went to.
    last_tool: Option<usize>,
    /// The latest block of each key and kind of block-structured dialects (Anthropic,
    /// Responses).
    keyed: HashMap<(BlockKey, TextKind), usize>,
    /// The entry of `keyed` used last.
    last_keyed: Option<((BlockKey, TextKind), usize)>,
}

mod keyed;

/// A block of a [`PartialMessage`]: finished content, or a tool call still streaming.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PartialBlock {
    /// Text, reasoning, refusal or other content, growing in place.
    Content(ContentBlock),
    /// A tool call; it keeps its argument text until the message is built.
    ToolCall(PendingToolCall),
}

impl PartialMessage {
    pub(crate) fn new(index: u32) -> Self {
        PartialMessage {
            index,
            blocks: Vec::new(),
            finish_reason: FinishReason::NONE,
            logprobs: None,
            extra: Map::new(),
            text_block: None,
            reasoning_block: None,
            refusal_block: None,
            tool_blocks: Vec::new(),
            last_tool: None,
            keyed: HashMap::new(),
            last_keyed: None,
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
        self.tool_blocks
            .iter()
            .filter_map(|&block| self.tool_call(block))
    }

    /// Why the choice finished; empty while it streams.
    pub fn finish_reason(&self) -> &FinishReason {
        &self.finish_reason
    }

    /// True once the provider sent a finish reason for this choice.
    pub fn is_finished(&self) -> bool {
        !self.finish_reason.is_none()
    }

    fn text_of(&self, block: Option<usize>) -> &str {
        match block.and_then(|block| self.blocks.get(block)) {
            Some(PartialBlock::Content(ContentBlock::Text { text, .. }))
            | Some(PartialBlock::Content(ContentBlock::Reasoning { text, .. }))
            | Some(PartialBlock::Content(ContentBlock::Refusal { refusal: text })) => text,
            _ => "",
        }
    }

    pub(crate) fn tool_call(&self, block: usize) -> Option<&PendingToolCall> {
        match self.blocks.get(block) {
            Some(PartialBlock::ToolCall(call)) => Some(call),
            _ => None,
        }
    }

    pub(crate) fn tool_call_mut(&mut self, block: usize) -> Option<&mut PendingToolCall> {
        match self.blocks.get_mut(block) {
            Some(PartialBlock::ToolCall(call)) => Some(call),
            _ => None,
        }
    }

    pub(crate) fn tool_call_count(&self) -> usize {
        self.tool_blocks.len()
    }

    /// Appends to the choice's block of that kind, creating it at first use; returns the block
    /// and the byte range the new text occupies in it.
    pub(crate) fn append(&mut self, kind: TextKind, delta: &str) -> (usize, usize, usize) {
        let slot = match kind {
            TextKind::Text => &mut self.text_block,
            TextKind::Reasoning => &mut self.reasoning_block,
            TextKind::Refusal => &mut self.refusal_block,
        };
        let block = *slot.get_or_insert_with(|| {
            self.blocks.push(PartialBlock::Content(match kind {
                TextKind::Text => ContentBlock::text(""),
                TextKind::Reasoning => ContentBlock::reasoning(""),
                TextKind::Refusal => ContentBlock::Refusal {
                    refusal: String::new(),
                },
            }));
            self.blocks.len() - 1
        });
        let text = match &mut self.blocks[block] {
            PartialBlock::Content(ContentBlock::Text { text, .. })
            | PartialBlock::Content(ContentBlock::Reasoning { text, .. })
            | PartialBlock::Content(ContentBlock::Refusal { refusal: text }) => text,
            _ => unreachable!("text slots point at text blocks"),
        };
        let start = text.len();
        text.push_str(delta);
        (block, start, text.len())
    }

    /// The choice's block of that kind, created empty if it has none yet.
    pub(crate) fn block_mut(&mut self, kind: TextKind) -> &mut ContentBlock {
        let (block, _, _) = self.append(kind, "");
        match &mut self.blocks[block] {
            PartialBlock::Content(content) => content,
            PartialBlock::ToolCall(_) => unreachable!("text slots point at text blocks"),
        }
    }

    pub(crate) fn push_content(&mut self, block: ContentBlock) {
        self.blocks.push(PartialBlock::Content(block));
    }

    /// Finds the tool call a fragment continues, or `None` when it starts a new one.
    ///
    /// Keyed by the provider's index; the same index with a different id is a new call (some
    /// providers put every parallel call on index 0). Without an index, a known id continues its
    /// call, a new id starts one, and no id continues the most recent call.
    pub(crate) fn find_tool_call(&self, index: Option<u32>, id: Option<&str>) -> Option<usize> {
        let id = id.filter(|id| !id.is_empty());
        let call_at = |position: usize| self.tool_call(self.tool_blocks[position]);
        let found = match index {
            Some(index) => {
                let matches = |position: &usize| {
                    call_at(*position).is_some_and(|call| call.provider_index == Some(index))
                };
                self.last_tool
                    .filter(matches)
                    .or_else(|| (0..self.tool_blocks.len()).rev().find(matches))
            }
            None => match id {
                Some(id) => (0..self.tool_blocks.len())
                    .rev()
                    .find(|&position| call_at(position).is_some_and(|call| call.id == id)),
                None => self.last_tool,
            },
        };
        found.filter(|&position| match (id, call_at(position)) {
            (Some(id), Some(call)) => call.id.is_empty() || call.id == id,
            _ => true,
        })
    }

    /// Starts a new tool call; returns its block.
    pub(crate) fn start_tool_call(&mut self, provider_index: Option<u32>) -> usize {
        let position = self.tool_blocks.len();
        self.blocks
            .push(PartialBlock::ToolCall(PendingToolCall::new(
                position as u32,
                provider_index,
            )));
        self.tool_blocks.push(self.blocks.len() - 1);
        self.blocks.len() - 1
    }

    pub(crate) fn touch_tool_call(&mut self, position: usize) -> usize {
        self.last_tool = Some(position);
        self.tool_blocks[position]
    }

    /// Blocks of the tool calls not yet finished.
    pub(crate) fn unfinished_tool_calls(&self) -> impl Iterator<Item = usize> + '_ {
        self.tool_blocks.iter().copied().filter(|&block| {
            self.tool_call(block)
                .is_some_and(|call| call.finished.is_none())
        })
    }

    /// Gives every tool call an id, generating `call_df_<n>` ones unique within the message.
    pub(crate) fn assign_missing_ids(&mut self) {
        for position in 0..self.tool_blocks.len() {
            self.assign_missing_id(self.tool_blocks[position]);
        }
    }

    /// Gives the tool call of `block` an id if it has none: the first `call_df_<n>` not used
    /// in the message.
    pub(crate) fn assign_missing_id(&mut self, block: usize) {
        if self.tool_call(block).is_none_or(|call| !call.id.is_empty()) {
            return;
        }
        let mut next = 0usize;
        let id = loop {
            let candidate = format!("call_df_{next}");
            next += 1;
            if !self.tool_calls().any(|call| call.id == candidate) {
                break candidate;
            }
        };
        if let Some(call) = self.tool_call_mut(block) {
            call.id = id;
            if let Some(
                ContentBlock::ToolCall(crate::message::ToolCall { id: done, .. })
                | ContentBlock::InvalidToolCall(crate::message::InvalidToolCall { id: done, .. }),
            ) = call.finished.as_mut()
            {
                done.clone_from(&call.id);
            }
        }
    }

    /// Builds the final message; tool calls not finished by then are finished here.
    pub(crate) fn into_message(self, mut message: AiMessage) -> AiMessage {
        message.content = self
            .blocks
            .into_iter()
            .map(|block| match block {
                PartialBlock::Content(content) => content,
                PartialBlock::ToolCall(mut call) => match call.finished.take() {
                    Some(finished) => finished,
                    None => call.finish().clone(),
                },
            })
            .collect();
        let metadata = &mut message.response_metadata;
        metadata.finish_reason = self.finish_reason;
        metadata.logprobs = self.logprobs;
        for (key, value) in self.extra {
            metadata.extra.entry(key).or_insert(value);
        }
        message
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(message: &mut PartialMessage, index: Option<u32>, id: &str) -> usize {
        let block = message.start_tool_call(index);
        let position = message.tool_call_count() - 1;
        message.touch_tool_call(position);
        message
            .tool_call_mut(block)
            .unwrap()
            .absorb_identity(Some(id), None);
        position
    }

    #[test]
    fn same_index_with_a_new_id_is_a_new_call() {
        let mut message = PartialMessage::new(0);
        let first = started(&mut message, Some(0), "a");
        assert_eq!(message.find_tool_call(Some(0), None), Some(first));
        assert_eq!(message.find_tool_call(Some(0), Some("a")), Some(first));
        assert_eq!(message.find_tool_call(Some(0), Some("b")), None);
        assert_eq!(message.find_tool_call(Some(1), None), None);
    }

    #[test]
    fn without_index_ids_decide_and_no_id_continues_the_latest() {
        let mut message = PartialMessage::new(0);
        let first = started(&mut message, None, "a");
        let second = started(&mut message, None, "b");
        assert_eq!(message.find_tool_call(None, None), Some(second));
        assert_eq!(message.find_tool_call(None, Some("a")), Some(first));
        assert_eq!(message.find_tool_call(None, Some("c")), None);
    }

    #[test]
    fn generated_ids_are_unique_within_the_message() {
        let mut message = PartialMessage::new(0);
        started(&mut message, Some(0), "call_df_0");
        let block = message.start_tool_call(Some(1));
        message.assign_missing_ids();
        assert_eq!(message.tool_call(block).unwrap().id(), "call_df_1");
    }
}
