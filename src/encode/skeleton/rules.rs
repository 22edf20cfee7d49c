//! The contract a target implements: [`Rules`], one callback per kind of event, and what the
//! callbacks are handed — the kind of text ([`Channel`]), a partial image ([`ImagePart`]), the
//! choices the target carries ([`Choices`]). Apart from the [`Skeleton`](super::Skeleton) that
//! calls them, so that a new target reads only what it must write.

use crate::assemble::FinishedToolCall;
use crate::message::{
    ServerToolCall, ServerToolResult, ServerToolStatus, ToolApprovalRequest, UsageMetadata,
};

use super::Scope;
use crate::encode::Identity;

/// Which choices a target carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::encode) enum Choices {
    /// Every choice, each by its index.
    All,
    /// Choice 0 only, as the target's non-streamed response takes it: a source that sends
    /// another choice first (n > 1) must not change which one is encoded.
    First,
}

/// The three kinds of streamed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::encode) enum Channel {
    Text,
    Reasoning,
    Refusal,
}

/// A partial image of an image generation (see
/// [`Event::ServerToolPartialImage`](crate::assemble::Event::ServerToolPartialImage)).
#[derive(Debug, Clone, Copy)]
pub(in crate::encode) struct ImagePart<'e> {
    pub(in crate::encode) id: &'e str,
    pub(in crate::encode) index: u32,
    pub(in crate::encode) mime_type: &'e str,
    pub(in crate::encode) data: &'e str,
}
/// One target's rules: a callback per kind of event, each appending to `out`. The skeleton
/// calls them in event order, never after the stream closed.
pub(in crate::encode) trait Rules {
    /// Which choices the target carries.
    const CHOICES: Choices;

    /// Once, at the first event that may write: the identity is frozen from here on.
    fn identified(&mut self, _identity: &Identity) {}

    /// Before every event that may write (all but
    /// [`Event::Started`](crate::assemble::Event::Started) and
    /// [`Event::Usage`](crate::assemble::Event::Usage)).
    fn writing(&mut self, _scope: &Scope<'_>, _out: &mut String) {}

    /// The first payload arrived.
    fn started(&mut self, _scope: &Scope<'_>, _out: &mut String) {}

    /// Streamed text of one kind.
    fn delta(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        channel: Channel,
        text: &str,
        out: &mut String,
    );

    /// A block's text replaced (see [`Event::TextReplaced`](crate::assemble::Event::TextReplaced)).
    /// Text already written cannot be taken back; the targets whose closing events are written from
    /// the message carry the final text there.
    fn replaced(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _channel: Channel,
        _text: &str,
        _out: &mut String,
    ) {
    }

    /// A text, reasoning or refusal block ended (see
    /// [`Event::TextEnd`](crate::assemble::Event::TextEnd)).
    fn block_ended(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _channel: Channel,
        _block: u32,
        _out: &mut String,
    ) {
    }

    /// A client tool call began; `id` and `name` may be empty.
    fn call_started(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        index: u32,
        id: &str,
        name: &str,
        out: &mut String,
    );

    /// More argument text for a client tool call.
    fn call_arguments(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        index: u32,
        delta: &str,
        out: &mut String,
    );

    /// A client tool call is complete.
    fn call_finished(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        index: u32,
        call: &FinishedToolCall<'_>,
        out: &mut String,
    );

    /// A server-side tool call began.
    fn server_call_started(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _block: u32,
        _id: &str,
        _name: &str,
        _out: &mut String,
    ) {
    }

    /// More argument text for a server-side call.
    fn server_call_arguments(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _block: u32,
        _delta: &str,
        _out: &mut String,
    ) {
    }

    /// A server-side call is complete.
    fn server_call_finished(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _block: u32,
        _call: &ServerToolCall,
        _out: &mut String,
    ) {
    }

    /// How far a server-side call has got.
    fn server_progress(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _block: u32,
        _id: &str,
        _status: ServerToolStatus,
        _out: &mut String,
    ) {
    }

    /// A partial image of an image generation.
    fn server_partial_image(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _block: u32,
        _image: ImagePart<'_>,
        _out: &mut String,
    ) {
    }

    /// A server-side call's result.
    fn server_result(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _block: u32,
        _result: &ServerToolResult,
        _out: &mut String,
    ) {
    }

    /// An approval request for a remote MCP call.
    fn approval_requested(
        &mut self,
        _scope: &Scope<'_>,
        _choice: u32,
        _block: u32,
        _request: &ToolApprovalRequest,
        _out: &mut String,
    ) {
    }

    /// The usage so far (a running total).
    fn usage(&mut self, usage: &UsageMetadata);

    /// A choice finished with the provider's `reason`.
    fn choice_finished(&mut self, scope: &Scope<'_>, choice: u32, reason: &str, out: &mut String);

    /// Closes the stream: called once, at [`Event::Done`](crate::assemble::Event::Done) or the
    /// caller's `finish`.
    fn finish(&mut self, scope: &Scope<'_>, out: &mut String);

    /// Ends a stream whose source failed with `error`, instead of `finish`. A target with no
    /// error event writes nothing: its client sees the cut.
    fn fail(&mut self, _scope: &Scope<'_>, _error: &str, _out: &mut String) {}

    /// The bytes the target holds between events for what it still has to write, beyond the
    /// snapshot (text behind an open call, closed items the last event repeats).
    fn held_bytes(&self) -> usize {
        0
    }

    /// The part of [`held_bytes`](Self::held_bytes) written at once when the open call ends:
    /// the events of the text held behind it.
    fn held_behind_call(&self) -> usize {
        0
    }
}
