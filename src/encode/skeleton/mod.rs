//! The one encoder skeleton: the dispatch over [`Event`]s written once, each target only its
//! rules.
//!
//! Every target needs the same frame around its own output: nothing after the end, the
//! response's identity frozen at the first event that may write, the source's provider read
//! once, the events of other choices skipped by the targets that carry one answer, and the
//! stream closed once — by [`Event::Done`] or by the caller's `finish`, whichever comes first.
//! [`Skeleton`] holds that frame and the [`Scope`] its callbacks read; a target implements
//! [`Rules`] (in [`rules`]), one callback per kind of event. A callback a target leaves at its default writes nothing: that content has no place
//! in the target (each target's module doc says which).

use crate::assemble::{Assembler, Event, PartialBlock, PartialMessage};

use super::server_tools::streams_raw_code;
use super::{choice_of, Identity};

mod rules;

pub(super) use self::rules::{Channel, Choices, ImagePart, Rules};

/// What a callback may read besides its event.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scope<'s> {
    /// The assembler the event came from; `None` in a `finish` the caller asked for.
    snapshot: Option<&'s Assembler>,
    /// The response's id, model and creation time, as read at the first event that writes
    /// (empty before).
    pub(super) identity: &'s Identity,
    /// The provider of the source (`anthropic`, `openai`, `google_genai`…), once known.
    pub(super) source: Option<&'static str>,
    /// For [`Choices::First`] targets: whether an event of choice 0 came yet.
    first_seen: bool,
    choices: Choices,
}

impl<'s> Scope<'s> {
    /// The scope of the caller's last word, with no assembler at hand.
    fn closing(
        identity: &'s Identity,
        source: Option<&'static str>,
        first_seen: bool,
        choices: Choices,
    ) -> Self {
        Scope {
            snapshot: None,
            identity,
            source,
            first_seen,
            choices,
        }
    }

    /// The assembler, where the event came from one.
    pub(super) fn snapshot(&self) -> Option<&'s Assembler> {
        self.snapshot
    }

    /// The message of `choice` so far; for a [`Choices::First`] target, choice 0 once one of
    /// its events came, and no other.
    pub(super) fn message(&self, choice: u32) -> Option<&'s PartialMessage> {
        if self.choices == Choices::First && (choice != 0 || !self.first_seen) {
            return None;
        }
        self.snapshot?.message(choice)
    }

    /// The message of the one choice a [`Choices::First`] target encodes.
    pub(super) fn first(&self) -> Option<&'s PartialMessage> {
        self.message(0)
    }

    /// True when the server-side call at `block` of the first choice streams its code as raw
    /// text rather than JSON (see `server_tools::streams_raw_code`).
    pub(super) fn streams_raw_code(&self, block: u32) -> bool {
        self.first()
            .and_then(|message| message.blocks().get(block as usize))
            .is_some_and(|block| match block {
                PartialBlock::ServerToolCall(pending) => {
                    streams_raw_code(self.source, &pending.call().name)
                }
                _ => false,
            })
    }

    /// True when the choice's message so far asks for a tool call.
    pub(super) fn has_tool_calls(&self, choice: u32) -> bool {
        self.snapshot
            .and_then(|snapshot| snapshot.message(choice))
            .is_some_and(|message| message.tool_calls().next().is_some())
    }
}

/// What a target holds between events ([`Rules::held_bytes`]), and the part of it written at
/// once when the open call ends ([`Rules::held_behind_call`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Holdings {
    pub(super) total: usize,
    pub(super) behind_call: usize,
}

/// The frame every target shares around its [`Rules`].
#[derive(Debug, Default)]
pub(super) struct Skeleton<R> {
    rules: R,
    identity: Identity,
    identified: bool,
    source: Option<&'static str>,
    first_seen: bool,
    ended: bool,
}

impl<R: Rules> Skeleton<R> {
    /// A skeleton around `rules` set up by their target.
    pub(super) fn new(rules: R) -> Self {
        Skeleton {
            rules,
            identity: Identity::default(),
            identified: false,
            source: None,
            first_seen: false,
            ended: false,
        }
    }

    /// Appends what `event` becomes.
    pub(super) fn encode(&mut self, event: &Event<'_>, snapshot: &Assembler, out: &mut String) {
        if self.ended {
            return;
        }
        let writes = Identity::needed_for(event);
        if !self.identified && writes {
            self.identity = Identity::read(snapshot);
            self.identified = true;
            self.rules.identified(&self.identity);
        }
        if self.source.is_none() {
            self.source = snapshot
                .dialect()
                .map(crate::dialect::Dialect::provider_name);
        }
        if let (Some(choice), Choices::First) = (choice_of(event), R::CHOICES) {
            if choice != 0 {
                return;
            }
            self.first_seen = true;
        }
        let scope = Scope {
            snapshot: Some(snapshot),
            identity: &self.identity,
            source: self.source,
            first_seen: self.first_seen,
            choices: R::CHOICES,
        };
        let rules = &mut self.rules;
        if writes {
            rules.writing(&scope, out);
        }
        match event {
            Event::Started { .. } => rules.started(&scope, out),
            Event::TextDelta { choice, text } => {
                rules.delta(&scope, *choice, Channel::Text, text, out)
            }
            Event::ReasoningDelta { choice, text } => {
                rules.delta(&scope, *choice, Channel::Reasoning, text, out)
            }
            Event::RefusalDelta { choice, text } => {
                rules.delta(&scope, *choice, Channel::Refusal, text, out)
            }
            Event::TextReplaced { choice, text } => {
                rules.replaced(&scope, *choice, Channel::Text, text, out)
            }
            Event::ReasoningReplaced { choice, text } => {
                rules.replaced(&scope, *choice, Channel::Reasoning, text, out)
            }
            Event::RefusalReplaced { choice, text } => {
                rules.replaced(&scope, *choice, Channel::Refusal, text, out)
            }
            Event::TextEnd { choice, block } => {
                rules.block_ended(&scope, *choice, Channel::Text, *block, out)
            }
            Event::ReasoningEnd { choice, block } => {
                rules.block_ended(&scope, *choice, Channel::Reasoning, *block, out)
            }
            Event::RefusalEnd { choice, block } => {
                rules.block_ended(&scope, *choice, Channel::Refusal, *block, out)
            }
            Event::ToolCallStarted {
                choice,
                index,
                id,
                name,
            } => rules.call_started(&scope, *choice, *index, id, name, out),
            Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta,
                ..
            } => rules.call_arguments(&scope, *choice, *index, delta, out),
            Event::ToolCallFinished {
                choice,
                index,
                call,
            } => rules.call_finished(&scope, *choice, *index, call, out),
            Event::ServerToolCallStarted {
                choice,
                block,
                id,
                name,
            } => rules.server_call_started(&scope, *choice, *block, id, name, out),
            Event::ServerToolCallArgumentsDelta {
                choice,
                block,
                delta,
            } => rules.server_call_arguments(&scope, *choice, *block, delta, out),
            Event::ServerToolCallFinished {
                choice,
                block,
                call,
            } => rules.server_call_finished(&scope, *choice, *block, call, out),
            Event::ServerToolCallProgress {
                choice,
                block,
                id,
                status,
            } => rules.server_progress(&scope, *choice, *block, id, *status, out),
            Event::ServerToolPartialImage {
                choice,
                block,
                id,
                index,
                mime_type,
                data,
            } => {
                let image = ImagePart {
                    id,
                    index: *index,
                    mime_type,
                    data,
                };
                rules.server_partial_image(&scope, *choice, *block, image, out)
            }
            Event::ServerToolResult {
                choice,
                block,
                result,
            } => rules.server_result(&scope, *choice, *block, result, out),
            Event::ToolApprovalRequested {
                choice,
                block,
                request,
            } => rules.approval_requested(&scope, *choice, *block, request, out),
            // A provider item's live pieces (a shell command, a patch) have no place in any
            // target's stream: a target that carries the item writes it whole from the message.
            Event::ProviderItemDelta { .. } => {}
            Event::Usage { usage } => rules.usage(usage),
            Event::ChoiceFinished { choice, reason } => {
                rules.choice_finished(&scope, *choice, reason, out)
            }
            Event::Done => {
                self.ended = true;
                rules.finish(&scope, out);
            }
        }
    }

    /// Closes the stream unless it is closed: the caller's end, with no assembler at hand.
    pub(super) fn finish(&mut self, out: &mut String) {
        if self.end() {
            let scope = Scope::closing(&self.identity, self.source, self.first_seen, R::CHOICES);
            self.rules.finish(&scope, out);
        }
    }

    /// Ends the stream with the source's `error`, unless it is closed.
    pub(super) fn fail(&mut self, error: &str, out: &mut String) {
        if self.end() {
            let scope = Scope::closing(&self.identity, self.source, self.first_seen, R::CHOICES);
            self.rules.fail(&scope, error, out);
        }
    }

    /// See [`Rules::held_bytes`] and [`Rules::held_behind_call`].
    pub(super) fn holdings(&self) -> Holdings {
        Holdings {
            total: self.rules.held_bytes(),
            behind_call: self.rules.held_behind_call(),
        }
    }

    /// Marks the stream ended by the caller: false if it had ended.
    fn end(&mut self) -> bool {
        !std::mem::replace(&mut self.ended, true)
    }
}
