//! The neutral contract between the dialects and the assembler: the deltas every dialect decodes
//! its payloads into, the one vocabulary the assembler understands, so that adding a provider
//! never touches the state machine. Beside them: the usage reports they carry ([`usage`]), and
//! filters that rewrite deltas on their way ([`think`]).

use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::ProviderError;
use crate::message::{Citation, ContentBlock, ServerToolCall, ServerToolStatus};

mod held;
mod think;
mod understanding;
mod usage;

pub(crate) use held::Held;
pub(crate) use think::{ThinkSink, ThinkTags};
pub(crate) use understanding::Understanding;
pub(crate) use usage::{RawUsage, Scalar, UsageMembers, UsageReport};

/// One piece of a streamed answer, borrowed from the payload it came from. The two large
/// payloads, a usage report and a provider error, come once a stream and are boxed: every delta
/// is moved by value, and text deltas are nearly all of them.
#[derive(Debug)]
pub(crate) enum Delta<'a> {
    /// Response-level fields; the first non-empty value of each wins.
    Metadata(MetadataDelta<'a>),
    /// A provider field with no place in the model, kept in `extra` (first non-null wins), for a
    /// choice or (when `choice` is `None`) for the whole response.
    Extra {
        choice: Option<u32>,
        key: &'a str,
        value: &'a RawValue,
    },
    /// The payload is the dialect's own by its shape and brings response-level fields, but
    /// nothing for any choice (a chat chunk whose `choices` array is empty: Azure's first chunk,
    /// with only the prompt filter results). It is understood, and opens choice 0 when no choice
    /// is open yet: the response has begun, and its fields need a message to stay on if the
    /// stream is cut here.
    Recognized,
    /// A choice exists, even if this payload brings nothing else for it.
    Choice {
        choice: u32,
    },
    Text {
        choice: u32,
        text: &'a str,
    },
    Reasoning {
        choice: u32,
        text: &'a str,
    },
    /// OpenRouter's structured reasoning entries (signatures, encrypted parts), merged by index.
    ReasoningDetails {
        choice: u32,
        details: Vec<Value>,
    },
    Refusal {
        choice: u32,
        text: &'a str,
    },
    /// Content the model produced that has no standard block.
    NonStandard {
        choice: u32,
        value: Value,
    },
    ToolCall(ToolCallDelta<'a>),
    Logprobs {
        choice: u32,
        logprobs: &'a RawValue,
    },
    Usage(Box<UsageReport<'a>>),
    Finish {
        choice: u32,
        reason: &'a str,
    },
    Error(Box<ProviderError>),
    Done,
    /// Text, reasoning or refusal of a keyed block (see [`BlockKey`]): each key is a content
    /// block of its own, in the order the keys first appear.
    BlockText {
        choice: u32,
        key: BlockKey,
        kind: TextKind,
        text: &'a str,
    },
    /// The signature over a reasoning block (`key: None`: the choice's one reasoning block). It
    /// replaces an earlier one: providers send it whole.
    ReasoningSignature {
        choice: u32,
        key: Option<BlockKey>,
        signature: &'a str,
    },
    /// Redacted or encrypted reasoning, sent whole; replaces an earlier value.
    ReasoningData {
        choice: u32,
        key: Option<BlockKey>,
        data: &'a str,
    },
    /// A provider field that must travel with a reasoning block (the Responses item id, …).
    ReasoningExtra {
        choice: u32,
        key: Option<BlockKey>,
        name: &'a str,
        value: Value,
    },
    /// The provider's output item a keyed text or refusal block belongs to (a Responses
    /// message's `msg_…` id) and the item's `phase`: set on the block (created empty if it has
    /// no text yet).
    TextItem {
        choice: u32,
        key: BlockKey,
        kind: TextKind,
        id: Option<&'a str>,
        phase: Option<&'a str>,
    },
    /// A provider item kept whole (one with no standard block) began, under `key`: a block of
    /// its own, which [`ItemInput`](Self::ItemInput) grows and a later `ProviderItem` of the
    /// same key replaces (the finished item).
    ProviderItem {
        choice: u32,
        key: BlockKey,
        value: Value,
    },
    /// More of a string the provider streams inside the item under `key` (a shell call's
    /// command, an apply_patch call's diff), appended where `field` says.
    ItemInput {
        choice: u32,
        key: BlockKey,
        field: ItemField,
        text: &'a str,
    },
    /// A citation or other annotation on a text block, appended in order.
    Annotation {
        choice: u32,
        key: Option<BlockKey>,
        value: Value,
    },
    /// A tool call sent in one piece (Gemini, Ollama): always a new call, final at once, with an
    /// id generated when the provider sent none.
    WholeToolCall {
        choice: u32,
        id: Option<&'a str>,
        name: &'a str,
        arguments: &'a str,
    },
    /// What a dialect keeps between events (a block kept whole until its stop, a tool input
    /// waiting for its block's end, an item id): its bytes and its entries (each map slot and
    /// JSON value, charged a fixed overhead), charged to the message budget, so what a dialect
    /// holds is bounded by `max_message_bytes` too. What it becomes later is charged again as
    /// content, so the count errs on the safe side.
    Held(Held),
    /// What a provider's closing event says the answer was, which wins over what the deltas
    /// added up to.
    Final(Final<'a>),
    /// A provider field that must travel with a tool call (Gemini's `thoughtSignature`), set on
    /// the call keyed `index`, or with `None` on the call the last tool-call delta went to.
    ToolCallExtra {
        choice: u32,
        index: Option<u32>,
        name: &'a str,
        value: Value,
    },
    /// A tool call the provider runs itself began (Anthropic's `server_tool_use`, a Responses
    /// built-in tool item): a block of its own under `key`, whose arguments may stream as
    /// [`ServerToolArguments`](Self::ServerToolArguments).
    ServerToolStart {
        choice: u32,
        key: BlockKey,
        call: ServerToolCall,
    },
    /// More argument text (partial JSON) of the server-side tool call under `key`.
    ServerToolArguments {
        choice: u32,
        key: BlockKey,
        fragment: &'a str,
    },
    /// The server-side tool call under `key` is complete: the streamed arguments are parsed,
    /// unless `args` (what a closing item says) replaces them; `extras` are added to the call's.
    ServerToolEnd {
        choice: u32,
        key: BlockKey,
        args: Option<serde_json::Map<String, Value>>,
        extras: serde_json::Map<String, Value>,
    },
    /// How far the server-side tool call under `key` has got (searching, interpreting…): a live
    /// event only, nothing is kept.
    ServerToolProgress {
        choice: u32,
        key: BlockKey,
        status: ServerToolStatus,
    },
    /// A partial image of the image generation under `key`; it replaces the one before (only
    /// the latest is held, so a stream of many partials holds one).
    ServerToolPartialImage {
        choice: u32,
        key: BlockKey,
        index: u32,
        /// The image format (`png`, `webp`…), when the event names it.
        format: Option<&'a str>,
        /// The base64 image.
        data: &'a str,
    },
    /// A block the provider sends whole: a server-side tool's result, an approval request, a
    /// file a tool made.
    Block {
        choice: u32,
        block: ContentBlock,
    },
    /// The block of the tool call keyed `index` ended: the call is final now. `arguments` is
    /// the whole argument text when the provider repeats it there (it wins over the fragments).
    ToolCallEnd {
        choice: u32,
        index: u32,
        arguments: Option<&'a str>,
    },
    /// A piece of a chat completion's spoken answer (`delta.audio`): base64 data and transcript
    /// appended to the choice's one audio block, its id and expiry set by the first that has
    /// them.
    Audio {
        choice: u32,
        id: Option<&'a str>,
        data: &'a str,
        transcript: &'a str,
        expires_at: Option<i64>,
    },
    /// Citations of spans of the choice's answer text, given in UTF-8 bytes of all its text
    /// blocks joined (Gemini's grounding supports). Only the assembler holds the text, so it
    /// finds each span's block and turns the span into characters of that block, all spans in
    /// one pass over the text.
    SpanCitations {
        choice: u32,
        spans: Vec<SpanCitation>,
    },
}

/// One cited span of a [`Delta::SpanCitations`]: byte offsets into the joined answer text,
/// and the citations of that span (one per source), which get its character offsets.
#[derive(Debug)]
pub(crate) struct SpanCitation {
    pub start: usize,
    pub end: usize,
    /// The text the provider says the span holds: a span a few bytes off is moved onto it.
    pub text: Option<String>,
    pub citations: Vec<Citation>,
}

/// Where in a provider item a streamed string grows: `object.member`, or element `index` of
/// the array `object.member`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemField {
    Member(&'static str, &'static str),
    Element(&'static str, &'static str, u32),
}

/// An authoritative value a closing event repeats (Responses' `output_text.done`,
/// `output_item.done`, `response.completed`…): the message takes it, so a proxy that drops or
/// samples deltas still yields the right answer, and a difference is recorded as a warning.
#[derive(Debug)]
pub(crate) enum Final<'a> {
    /// The whole text of a keyed block.
    Text {
        choice: u32,
        key: BlockKey,
        kind: TextKind,
        text: &'a str,
    },
    /// The response's id as the terminal event names it (some hosts rotate ids per event).
    ResponseId(&'a str),
    /// A reasoning block's encrypted content as the terminal event repeats it (Responses'
    /// `response.completed`, whose every event carries a new encryption of the same
    /// reasoning): it becomes the block's `data`, as in the OpenAI SDK's final response; a
    /// different value the block held is kept in its extras.
    ReasoningData {
        choice: u32,
        key: BlockKey,
        data: &'a str,
    },
}

/// The kinds of text a choice appends to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TextKind {
    Text,
    Reasoning,
    Refusal,
}

/// Names a content block of a block-structured dialect: the provider's block or output item
/// (Anthropic's `index`, Responses' `output_index`) and the part inside it (Responses'
/// `content_index` or summary index; 0 for Anthropic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct BlockKey {
    pub item: u32,
    pub part: u32,
}

#[derive(Debug, Default)]
pub(crate) struct MetadataDelta<'a> {
    pub id: Option<&'a str>,
    pub model: Option<&'a str>,
    pub created: Option<i64>,
    pub system_fingerprint: Option<&'a str>,
    pub service_tier: Option<&'a str>,
}

/// A fragment of a tool call: any of its fields may be missing.
#[derive(Debug)]
pub(crate) struct ToolCallDelta<'a> {
    pub choice: u32,
    pub index: Option<u32>,
    pub id: Option<&'a str>,
    pub name: Option<&'a str>,
    pub arguments: &'a str,
}

/// Where a dialect sends the deltas it decodes.
pub(crate) trait DeltaSink {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), crate::error::Error>;
}
