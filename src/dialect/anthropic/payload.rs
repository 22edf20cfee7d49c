//! The serde types of Anthropic's events, borrowed from the payload; fields the dialect does not
//! need read leniently, so that a change of their type never fails the event.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::dialect::lenient::LenientText;
use crate::dialect::text::Text;

/// One event: its `type` and whichever members that type carries.
#[derive(Deserialize)]
pub(super) struct Event<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Text<'a>,
    #[serde(default)]
    pub(super) index: Option<u32>,
    #[serde(borrow, default)]
    pub(super) message: Option<MessageStart<'a>>,
    #[serde(borrow, default)]
    pub(super) content_block: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) delta: Option<EventDelta<'a>>,
    #[serde(borrow, default)]
    pub(super) usage: Option<&'a RawValue>,
    /// `message_delta`'s context editing report (`applied_edits`: the tool uses and thinking
    /// turns cleared).
    #[serde(borrow, default)]
    pub(super) context_management: Option<&'a RawValue>,
}

/// `message_start`'s message: the response's id, model and first usage; or a whole message.
#[derive(Deserialize)]
pub(super) struct MessageStart<'a> {
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) model: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) stop_reason: LenientText<'a>,
    /// A whole (non-streamed) message's stop sequence and content blocks.
    #[serde(borrow, default)]
    pub(super) stop_sequence: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) content: Option<Vec<&'a RawValue>>,
    /// A whole message's code execution container.
    #[serde(borrow, default)]
    pub(super) container: Option<&'a RawValue>,
    /// A whole message's context editing report.
    #[serde(borrow, default)]
    pub(super) context_management: Option<&'a RawValue>,
}

/// The `delta` of `content_block_delta` (by its `type`) or of `message_delta` (the stop).
#[derive(Deserialize, Default)]
pub(super) struct EventDelta<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) thinking: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) signature: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) partial_json: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) citation: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) stop_reason: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) stop_sequence: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) stop_details: Option<&'a RawValue>,
    /// The code execution container the answer ran in, to name in the next request.
    #[serde(borrow, default)]
    pub(super) container: Option<&'a RawValue>,
}

/// The `content_block` of `content_block_start`: which kind of block, and what it starts with.
#[derive(Deserialize)]
pub(super) struct BlockStart<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) name: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) thinking: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) signature: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) data: LenientText<'a>,
    #[serde(default)]
    pub(super) citations: Option<Vec<Value>>,
    /// Who called a client tool (`direct`, or code execution's programmatic call), which goes
    /// back with the call.
    #[serde(borrow, default)]
    pub(super) caller: Option<&'a RawValue>,
    /// The toolset a client tool belongs to, which goes back with the call.
    #[serde(borrow, default)]
    pub(super) toolset_name: Option<&'a RawValue>,
}
