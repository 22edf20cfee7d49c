//! The serde types of an Ollama line, borrowed from the payload; fields the dialect does not
//! need read leniently, so that a change of their type never fails the line.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dialect::lenient::{LenientCount, LenientText};

/// One line: `/api/chat` (`message`) or `/api/generate` (`response`), the last with counts.
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(borrow, default)]
    pub(super) model: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) message: Option<Message<'a>>,
    #[serde(borrow, default)]
    pub(super) response: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) thinking: LenientText<'a>,
    #[serde(default)]
    pub(super) done: Option<bool>,
    #[serde(borrow, default)]
    pub(super) done_reason: LenientText<'a>,
    #[serde(default)]
    pub(super) prompt_eval_count: LenientCount,
    #[serde(default)]
    pub(super) eval_count: LenientCount,
    #[serde(borrow, default)]
    pub(super) error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) created_at: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) context: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) total_duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) load_duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) prompt_eval_duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) eval_duration: Option<&'a RawValue>,
}

/// `message`: the new text and thinking, and tool calls, always whole.
#[derive(Deserialize)]
pub(super) struct Message<'a> {
    #[serde(borrow, default)]
    pub(super) content: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) thinking: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) tool_calls: Option<Vec<ToolCall<'a>>>,
}

/// One whole tool call.
#[derive(Deserialize)]
pub(super) struct ToolCall<'a> {
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) function: Option<Function<'a>>,
}

/// A tool call's function: its name, and arguments as an object (or a JSON string).
#[derive(Deserialize)]
pub(super) struct Function<'a> {
    #[serde(borrow, default)]
    pub(super) name: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) arguments: Option<&'a RawValue>,
}
