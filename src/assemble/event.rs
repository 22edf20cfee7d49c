//! The [`Event`] type: what happened in the stream, in order, as an app shows it live.

use std::borrow::Cow;

use serde::Serialize;

use crate::message::{ContentBlock, UsageMetadata};

/// What happened in the stream, in order, for live display. An event carries only its own
/// delta — borrowed from the assembler — never a copy of the message so far; read the message so
/// far from the assembler's snapshot instead. [`into_owned`](Self::into_owned) detaches it.
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
    /// More argument text for a tool call. The arguments as they stand, as valid JSON, are on
    /// the snapshot: [`PendingToolCall::partial`](crate::assemble::PendingToolCall::partial).
    ToolCallArgumentsDelta {
        /// The choice index.
        choice: u32,
        /// The call's position among this choice's tool calls.
        index: u32,
        /// The new argument text.
        delta: Cow<'a, str>,
    },
    /// A tool call is complete: its arguments were parsed, into a
    /// [`ContentBlock::ToolCall`] or, if they are not a JSON object, a
    /// [`ContentBlock::InvalidToolCall`].
    ToolCallFinished {
        /// The choice index.
        choice: u32,
        /// The call's position among this choice's tool calls.
        index: u32,
        /// The finished call.
        call: Cow<'a, ContentBlock>,
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
            } => Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta: own(delta),
            },
            Event::ToolCallFinished {
                choice,
                index,
                call,
            } => Event::ToolCallFinished {
                choice,
                index,
                call: Cow::Owned(call.into_owned()),
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
