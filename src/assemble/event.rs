//! The [`Event`] type: what happened in the stream, in order, as an app shows it live.

use std::borrow::Cow;

use serde::Serialize;

use super::finished_call::FinishedToolCall;
use super::partial_json::PartialArguments;
use crate::message::{
    ServerToolCall, ServerToolResult, ServerToolStatus, ToolApprovalRequest, UsageMetadata,
};

/// What happened in the stream, in order, for live display. An event carries only its own
/// delta — borrowed from the assembler — never a copy of the message so far; read the message so
/// far from the assembler's snapshot instead. [`into_owned`](Self::into_owned) detaches it.
///
/// Its serde form is one object, `type` (the variant in snake_case) first and then the fields:
/// the line the CLI's `--events` writes (which adds the arguments so far as `partial` on
/// argument deltas when due) and the dict the Python package's `Assembler.push` returns.
///
/// A text, reasoning or refusal block is started by its first delta and ended by one
/// [`TextEnd`](Self::TextEnd) (or `ReasoningEnd`, `RefusalEnd`) where the events of another
/// block of its choice begin, where a closing event repeats its whole text, or as its choice or
/// the stream finishes — what the UI protocols' `text-end` / `reasoning-end` say. A block that
/// gets text again after its end (a provider interleaving its blocks, or text after a tool call
/// in a chat-completion stream, which goes on in the choice's one text block) starts again and
/// ends again. Like [`ToolCallFinished`](Self::ToolCallFinished) for an open call, no end event
/// follows when the stream fails, is cut short or aborted: the partial message says where it
/// stopped.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event<'a> {
    /// The first payload arrived.
    Started {
        /// The provider's response id, if the first payload had one.
        id: Option<Cow<'a, str>>,
        /// The model, if the first payload named it.
        model: Option<Cow<'a, str>>,
    },
    /// Answer text.
    TextDelta {
        /// The choice index.
        choice: u32,
        /// The new text.
        text: Cow<'a, str>,
    },
    /// Reasoning text.
    ReasoningDelta {
        /// The choice index.
        choice: u32,
        /// The new reasoning text.
        text: Cow<'a, str>,
    },
    /// Refusal text.
    RefusalDelta {
        /// The choice index.
        choice: u32,
        /// The new refusal text.
        text: Cow<'a, str>,
    },
    /// A block's final text, which a closing event repeats (Responses' `output_text.done`),
    /// differed from what its deltas added up to — a delta lost or sent twice on the way — and
    /// replaced it: `text` is the choice's whole answer text now, to show instead of what the
    /// deltas so far built; the deltas after this event add to it.
    TextReplaced {
        /// The choice index.
        choice: u32,
        /// The choice's whole answer text.
        text: Cow<'a, str>,
    },
    /// As [`TextReplaced`](Self::TextReplaced), for reasoning text.
    ReasoningReplaced {
        /// The choice index.
        choice: u32,
        /// The choice's whole reasoning text.
        text: Cow<'a, str>,
    },
    /// As [`TextReplaced`](Self::TextReplaced), for refusal text.
    RefusalReplaced {
        /// The choice index.
        choice: u32,
        /// The choice's whole refusal text.
        text: Cow<'a, str>,
    },
    /// An answer-text block ended: no more text goes to it.
    TextEnd {
        /// The choice index.
        choice: u32,
        /// The block's position in the message's blocks
        /// ([`PartialMessage::blocks`](crate::assemble::PartialMessage::blocks)).
        block: u32,
    },
    /// A reasoning block ended (see [`TextEnd`](Self::TextEnd)).
    ReasoningEnd {
        /// The choice index.
        choice: u32,
        /// The block's position in the message's blocks.
        block: u32,
    },
    /// A refusal block ended (see [`TextEnd`](Self::TextEnd)).
    RefusalEnd {
        /// The choice index.
        choice: u32,
        /// The block's position in the message's blocks.
        block: u32,
    },
    /// A new tool call began.
    ToolCallStarted {
        /// The choice index.
        choice: u32,
        /// The call's position among this choice's tool calls.
        index: u32,
        /// The call id (empty if the provider has not sent it yet).
        id: Cow<'a, str>,
        /// The tool name (empty if the provider has not sent it yet).
        name: Cow<'a, str>,
    },
    /// More argument text for a tool call, with the arguments so far completed into valid JSON.
    ToolCallArgumentsDelta {
        /// The choice index.
        choice: u32,
        /// The call's position among this choice's tool calls.
        index: u32,
        /// The new argument text.
        delta: Cow<'a, str>,
        /// The call's arguments so far, as valid JSON, borrowed (O(1) to take, O(nesting depth)
        /// to write beyond the text). Not in the serde form, which would repeat the arguments
        /// on every delta: the CLI's `--events` writes it when due.
        #[serde(skip)]
        partial: PartialArguments<'a>,
    },
    /// A tool call is complete: its arguments were parsed, into a [`ToolCall`] or, if they are
    /// not a JSON object, an [`InvalidToolCall`].
    ///
    /// [`ToolCall`]: crate::message::ToolCall
    /// [`InvalidToolCall`]: crate::message::InvalidToolCall
    ToolCallFinished {
        /// The choice index.
        choice: u32,
        /// The call's position among this choice's tool calls.
        index: u32,
        /// The finished call.
        call: FinishedToolCall<'a>,
    },
    /// The provider began a tool call it runs itself (a web search, code execution, a remote
    /// MCP tool).
    ServerToolCallStarted {
        /// The choice index.
        choice: u32,
        /// The call's block: its position in the message's blocks
        /// ([`PartialMessage::blocks`](crate::assemble::PartialMessage::blocks)).
        block: u32,
        /// The provider's call id.
        id: Cow<'a, str>,
        /// The tool, as [`ServerToolCall::name`] names it.
        name: Cow<'a, str>,
    },
    /// More argument text for a server-side tool call (a search query, code being written). The
    /// arguments as they stand, as valid JSON, are on the snapshot:
    /// [`PendingServerToolCall::partial_value`](crate::assemble::PendingServerToolCall::partial_value).
    ServerToolCallArgumentsDelta {
        /// The choice index.
        choice: u32,
        /// The call's block.
        block: u32,
        /// The new argument text.
        delta: Cow<'a, str>,
    },
    /// A server-side tool call is complete, its arguments parsed.
    ServerToolCallFinished {
        /// The choice index.
        choice: u32,
        /// The call's block.
        block: u32,
        /// The finished call.
        call: Cow<'a, ServerToolCall>,
    },
    /// How far a server-side tool call has got (searching the web, running code, generating an
    /// image), for a live "searching…" line; the call's result comes as its own event.
    #[non_exhaustive]
    ServerToolCallProgress {
        /// The choice index.
        choice: u32,
        /// The call's block.
        block: u32,
        /// The provider's call id.
        id: Cow<'a, str>,
        /// Where the call is.
        status: ServerToolStatus,
    },
    /// A partial image of an image generation, for a UI to show it growing. Only the latest
    /// partial is held: an event read after a newer partial arrived shows the newer one. The
    /// final image is the call's result block.
    #[non_exhaustive]
    ServerToolPartialImage {
        /// The choice index.
        choice: u32,
        /// The call's block.
        block: u32,
        /// The provider's call id.
        id: Cow<'a, str>,
        /// The provider's number for this partial (0, 1, 2…).
        index: u32,
        /// The image's media type (`image/png`…).
        mime_type: Cow<'a, str>,
        /// The image, base64.
        data: Cow<'a, str>,
    },
    /// A server-side tool returned (search results, code output), or failed.
    ServerToolResult {
        /// The choice index.
        choice: u32,
        /// The result's block.
        block: u32,
        /// The result; its `tool_call_id` names the call.
        result: Cow<'a, ServerToolResult>,
    },
    /// The provider asks the app to approve a remote MCP tool call.
    ToolApprovalRequested {
        /// The choice index.
        choice: u32,
        /// The request's block.
        block: u32,
        /// The request, which the app answers in its next request.
        request: Cow<'a, ToolApprovalRequest>,
    },
    /// More of a string the provider streams inside an item it sends whole at its end, which
    /// the app carries out (a Responses `shell_call`'s command, an `apply_patch_call`'s diff),
    /// for a live view. The block is a
    /// [`ContentBlock::NonStandard`](crate::message::ContentBlock::NonStandard) holding the
    /// item as it stands; the finished item replaces it.
    ProviderItemDelta {
        /// The choice index.
        choice: u32,
        /// The item's block.
        block: u32,
        /// The new text.
        delta: Cow<'a, str>,
    },
    /// A usage report arrived; this is the running total so far: the token counts and their
    /// details, without the provider's raw usage object (`raw` is always `None` here). The
    /// event is fixed-size, so detaching it costs O(1) however many keys the provider sent;
    /// the raw object, merged across reports, is on the snapshot
    /// ([`Assembler::usage`](crate::Assembler::usage)) and the final message.
    Usage {
        /// Token counts (`raw` is `None`: it stays on the snapshot and the final message).
        usage: Cow<'a, UsageMetadata>,
    },
    /// A choice finished.
    ChoiceFinished {
        /// The choice index.
        choice: u32,
        /// The provider's finish reason.
        reason: Cow<'a, str>,
    },
    /// The stream ended cleanly.
    Done,
}

impl Event<'_> {
    /// Detaches the event from the assembler, copying its delta.
    pub fn into_owned(self) -> Event<'static> {
        fn own(text: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(text.into_owned())
        }
        match self {
            Event::Started { id, model } => Event::Started {
                id: id.map(own),
                model: model.map(own),
            },
            Event::TextDelta { choice, text } => Event::TextDelta {
                choice,
                text: own(text),
            },
            Event::ReasoningDelta { choice, text } => Event::ReasoningDelta {
                choice,
                text: own(text),
            },
            Event::RefusalDelta { choice, text } => Event::RefusalDelta {
                choice,
                text: own(text),
            },
            Event::TextReplaced { choice, text } => Event::TextReplaced {
                choice,
                text: own(text),
            },
            Event::ReasoningReplaced { choice, text } => Event::ReasoningReplaced {
                choice,
                text: own(text),
            },
            Event::RefusalReplaced { choice, text } => Event::RefusalReplaced {
                choice,
                text: own(text),
            },
            Event::TextEnd { choice, block } => Event::TextEnd { choice, block },
            Event::ReasoningEnd { choice, block } => Event::ReasoningEnd { choice, block },
            Event::RefusalEnd { choice, block } => Event::RefusalEnd { choice, block },
            Event::ToolCallStarted {
                choice,
                index,
                id,
                name,
            } => Event::ToolCallStarted {
                choice,
                index,
                id: own(id),
                name: own(name),
            },
            Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta,
                partial,
            } => Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta: own(delta),
                partial: partial.into_owned(),
            },
            Event::ProviderItemDelta {
                choice,
                block,
                delta,
            } => Event::ProviderItemDelta {
                choice,
                block,
                delta: own(delta),
            },
            Event::ToolCallFinished {
                choice,
                index,
                call,
            } => Event::ToolCallFinished {
                choice,
                index,
                call: call.into_owned(),
            },
            Event::ServerToolCallStarted {
                choice,
                block,
                id,
                name,
            } => Event::ServerToolCallStarted {
                choice,
                block,
                id: own(id),
                name: own(name),
            },
            Event::ServerToolCallArgumentsDelta {
                choice,
                block,
                delta,
            } => Event::ServerToolCallArgumentsDelta {
                choice,
                block,
                delta: own(delta),
            },
            Event::ServerToolCallFinished {
                choice,
                block,
                call,
            } => Event::ServerToolCallFinished {
                choice,
                block,
                call: Cow::Owned(call.into_owned()),
            },
            Event::ServerToolCallProgress {
                choice,
                block,
                id,
                status,
            } => Event::ServerToolCallProgress {
                choice,
                block,
                id: own(id),
                status,
            },
            Event::ServerToolPartialImage {
                choice,
                block,
                id,
                index,
                mime_type,
                data,
            } => Event::ServerToolPartialImage {
                choice,
                block,
                id: own(id),
                index,
                mime_type: own(mime_type),
                data: own(data),
            },
            Event::ServerToolResult {
                choice,
                block,
                result,
            } => Event::ServerToolResult {
                choice,
                block,
                result: Cow::Owned(result.into_owned()),
            },
            Event::ToolApprovalRequested {
                choice,
                block,
                request,
            } => Event::ToolApprovalRequested {
                choice,
                block,
                request: Cow::Owned(request.into_owned()),
            },
            Event::Usage { usage } => Event::Usage {
                usage: Cow::Owned(usage.into_owned()),
            },
            Event::ChoiceFinished { choice, reason } => Event::ChoiceFinished {
                choice,
                reason: own(reason),
            },
            Event::Done => Event::Done,
        }
    }
}
