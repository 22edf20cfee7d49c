//! The serde types of Bedrock's `ConverseStream` events, borrowed from the payload; fields the
//! dialect does not need are read leniently, so that a change of their type never fails the
//! event.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dialect::lenient::LenientText;

/// `contentBlockStart`, `contentBlockDelta` and `contentBlockStop`: the block's index and, by
/// event, what it starts with or what it adds.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BlockEvent<'a> {
    #[serde(default)]
    pub(super) content_block_index: Option<u32>,
    #[serde(borrow, default)]
    pub(super) start: Option<BlockStart<'a>>,
    #[serde(borrow, default)]
    pub(super) delta: Option<BlockDelta<'a>>,
}

/// What a block starts with: a tool use names its call; a server tool's result its call, type
/// and status; an image its format.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BlockStart<'a> {
    #[serde(borrow, default)]
    pub(super) tool_use: Option<ToolUseStart<'a>>,
    #[serde(borrow, default)]
    pub(super) tool_result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) image: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolUseStart<'a> {
    #[serde(borrow, default)]
    pub(super) tool_use_id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) name: LenientText<'a>,
    /// `server_tool_use` for a tool Bedrock runs itself (Nova's `nova_grounding`,
    /// `nova_code_interpreter`).
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: LenientText<'a>,
}

/// One delta of a block: text, a fragment of a tool's input, reasoning, a citation, a piece of a
/// server tool's result, or an image.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BlockDelta<'a> {
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) tool_use: Option<ToolUseDelta<'a>>,
    #[serde(borrow, default)]
    pub(super) reasoning_content: Option<ReasoningDelta<'a>>,
    #[serde(borrow, default)]
    pub(super) citation: Option<&'a RawValue>,
    /// A piece of a server tool's result: a list of `{text}` / `{json}` items.
    #[serde(borrow, default)]
    pub(super) tool_result: Option<&'a RawValue>,
    /// An image the model made: `{source: {bytes | s3Location}, error}`.
    #[serde(borrow, default)]
    pub(super) image: Option<&'a RawValue>,
}

#[derive(Deserialize)]
pub(super) struct ToolUseDelta<'a> {
    #[serde(borrow, default)]
    pub(super) input: LenientText<'a>,
}

/// Reasoning text, the signature over it, or redacted reasoning (base64, kept as sent).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ReasoningDelta<'a> {
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) signature: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) redacted_content: LenientText<'a>,
}

/// `messageStop`: why the model stopped, and the model's own extra fields.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MessageStop<'a> {
    #[serde(borrow, default)]
    pub(super) stop_reason: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) additional_model_response_fields: Option<&'a RawValue>,
}

/// `metadata`: the usage and the latency, last in the stream.
#[derive(Deserialize)]
pub(super) struct Metadata<'a> {
    #[serde(borrow, default)]
    pub(super) usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) metrics: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) trace: Option<&'a RawValue>,
    #[serde(rename = "performanceConfig", borrow, default)]
    pub(super) performance_config: Option<&'a RawValue>,
    #[serde(rename = "serviceTier", borrow, default)]
    pub(super) service_tier: Option<&'a RawValue>,
}

/// `InvokeModelWithResponseStream`'s `chunk`: the model's own event, base64-encoded.
#[derive(Deserialize)]
pub(super) struct Chunk<'a> {
    #[serde(borrow, default)]
    pub(super) bytes: LenientText<'a>,
}
