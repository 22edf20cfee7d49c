//! The serde types of OpenAI Responses events, borrowed from the payload; fields the dialect
//! does not need read leniently, so that a change of their type never fails the event.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::dialect::lenient::{LenientCount, LenientText};
use crate::dialect::text::Text;

/// One event: its `type` and whichever members that type carries.
#[derive(Deserialize)]
pub(super) struct Event<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Text<'a>,
    #[serde(borrow, default)]
    pub(super) response: Option<ResponseObject<'a>>,
    #[serde(borrow, default)]
    pub(super) item: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) output_index: LenientCount,
    #[serde(default)]
    pub(super) content_index: LenientCount,
    #[serde(default)]
    pub(super) summary_index: LenientCount,
    #[serde(borrow, default)]
    pub(super) item_id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) delta: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) arguments: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) annotation: Option<&'a RawValue>,
    /// The whole text of `output_text.done` and `reasoning_summary_text.done`.
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    /// The whole refusal of `refusal.done`.
    #[serde(borrow, default)]
    pub(super) refusal: LenientText<'a>,
    /// The whole input of `custom_tool_call_input.done`.
    #[serde(borrow, default)]
    pub(super) input: LenientText<'a>,
    /// The base64 image of `image_generation_call.partial_image`, its number and format.
    #[serde(borrow, default)]
    pub(super) partial_image_b64: LenientText<'a>,
    #[serde(default)]
    pub(super) partial_image_index: LenientCount,
    #[serde(borrow, default)]
    pub(super) output_format: LenientText<'a>,
    /// The command of a `shell_call_command` event and its place among the call's commands.
    #[serde(default)]
    pub(super) command_index: LenientCount,
    #[serde(borrow, default)]
    pub(super) command: LenientText<'a>,
    /// The log probabilities of an `output_text.delta`'s tokens (`token`, `logprob`, `bytes`,
    /// `top_logprobs`), when the request asked for them.
    #[serde(borrow, default)]
    pub(super) logprobs: Option<&'a RawValue>,
    /// The part of `content_part.done`.
    #[serde(borrow, default)]
    pub(super) part: Option<ContentPart<'a>>,
}

/// The `response` of `response.created`, `.completed`, `.incomplete` and `.failed`, or a whole
/// (non-streamed) response body.
#[derive(Deserialize)]
pub(super) struct ResponseObject<'a> {
    /// `response` in a whole (non-streamed) body.
    #[serde(borrow, default)]
    pub(super) object: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) model: LenientText<'a>,
    #[serde(default)]
    pub(super) created_at: LenientCount,
    #[serde(borrow, default)]
    pub(super) status: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) service_tier: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) incomplete_details: Option<IncompleteDetails<'a>>,
    /// The output items, in `output_index` order.
    #[serde(borrow, default)]
    pub(super) output: Option<Vec<&'a RawValue>>,
}

/// Why a response is incomplete.
#[derive(Deserialize)]
pub(super) struct IncompleteDetails<'a> {
    #[serde(borrow, default)]
    pub(super) reason: LenientText<'a>,
}

/// An output item, as `response.output_item.added` and `.done` carry it.
#[derive(Deserialize)]
pub(super) struct Item<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) call_id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) name: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) arguments: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) encrypted_content: LenientText<'a>,
    /// A custom tool call's input (free text, not JSON).
    #[serde(borrow, default)]
    pub(super) input: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) content: Option<Vec<ContentPart<'a>>>,
    /// Who runs a tool search (`server`, `client`).
    #[serde(borrow, default)]
    pub(super) execution: LenientText<'a>,
    /// A message's `phase` (`commentary`, `final_answer`).
    #[serde(borrow, default)]
    pub(super) phase: LenientText<'a>,
    /// A reasoning item's summary parts.
    #[serde(borrow, default)]
    pub(super) summary: Option<Vec<ContentPart<'a>>>,
}

/// A part of a message item (its text or refusal, and its citations) or of a reasoning summary.
#[derive(Deserialize)]
pub(super) struct ContentPart<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) refusal: LenientText<'a>,
    #[serde(default)]
    pub(super) annotations: Option<Vec<Value>>,
}
