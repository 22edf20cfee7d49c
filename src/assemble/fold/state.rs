//! The response state and what its owner asks of it between deltas: made and reset, the
//! events read out, the snapshot read (metadata, usage, choices), warnings kept, the end
//! marked. Apart from the fold in `mod.rs`, which is only the sink the deltas go into.

use super::choice_index::ChoiceIndex;
use crate::assemble::budget::{ContentBudget, ENTRY_OVERHEAD};
use crate::assemble::event_queue::{EventQueue, Queued, Snapshot};
use crate::assemble::partial_message::PartialMessage;
use crate::assemble::{Event, Limits};
use crate::error::Error;
use crate::message::{ResponseMetadata, UsageMetadata};

/// Warnings kept on a message; later ones are only counted.
const MAX_WARNINGS: usize = 64;

/// Everything assembled so far for one response.
#[derive(Debug)]
pub(crate) struct ResponseState {
    pub(super) max_choices: usize,
    pub(super) max_tool_calls: usize,
    pub(super) budget: ContentBudget,
    pub(super) provider: &'static str,
    pub(super) metadata: ResponseMetadata,
    /// Bytes of the response's fields that every choice's message carries a copy of (its id,
    /// model, fingerprint, tier and warnings): charged once for each choice.
    pub(super) shared_bytes: usize,
    pub(super) usage: Option<UsageMetadata>,
    pub(super) choices: Vec<PartialMessage>,
    pub(super) choice_index: ChoiceIndex,
    pub(super) started: bool,
    /// Warnings past [`MAX_WARNINGS`], counted instead of kept.
    pub(super) warnings_dropped: usize,
    /// The choice the delta being applied touched, whose new blocks are charged after it.
    pub(super) touched: Option<usize>,
    /// The end marker came (or the stream ended with every choice finished): every tool call
    /// is final and `Done` is queued.
    pub(super) done: bool,
    pub(super) events: EventQueue,
}

impl ResponseState {
    pub(crate) fn new(limits: &Limits, provider: &'static str) -> Self {
        ResponseState {
            max_choices: limits.max_choices,
            max_tool_calls: limits.max_tool_calls,
            budget: ContentBudget::new(limits.max_message_bytes),
            provider,
            metadata: ResponseMetadata::default(),
            shared_bytes: 0,
            usage: None,
            choices: Vec::new(),
            choice_index: ChoiceIndex::default(),
            started: false,
            warnings_dropped: 0,
            touched: None,
            done: false,
            events: EventQueue::new(),
        }
    }

    /// Takes the state out (to build its completion), leaving a new one for the next stream
    /// that keeps this one's event buffer.
    pub(crate) fn take(&mut self, limits: &Limits, provider: &'static str) -> ResponseState {
        let mut events = std::mem::replace(&mut self.events, EventQueue::new());
        events.reset();
        std::mem::replace(
            self,
            ResponseState {
                events,
                ..ResponseState::new(limits, provider)
            },
        )
    }

    /// Names the dialect once it is known (detected from the first payload).
    pub(crate) fn set_provider(&mut self, provider: &'static str) {
        self.provider = provider;
    }

    /// Whether events are queued; turning it off drops the ones not read yet.
    pub(crate) fn record_events(&mut self, record: bool) {
        self.events.set_recording(record);
    }

    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// The bytes the message budget counts so far.
    pub(crate) fn held_bytes(&self) -> usize {
        self.budget.used()
    }

    pub(crate) fn has_pending_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// The next event, borrowed from the state.
    pub(crate) fn next_event(&mut self) -> Option<Event<'_>> {
        self.catch_up_next_arguments();
        self.events.pop(Snapshot {
            choices: &self.choices,
            metadata: &self.metadata,
            usage: self.usage.as_ref(),
        })
    }

    pub(crate) fn metadata(&self) -> &ResponseMetadata {
        &self.metadata
    }

    pub(crate) fn usage(&self) -> Option<&UsageMetadata> {
        self.usage.as_ref()
    }

    pub(crate) fn choices(&self) -> &[PartialMessage] {
        &self.choices
    }

    /// True when at least one choice exists and every one has finished.
    pub(crate) fn all_choices_finished(&self) -> bool {
        !self.choices.is_empty() && self.choices.iter().all(PartialMessage::is_finished)
    }

    /// Records a tolerated problem, charged to the budget; past [`MAX_WARNINGS`] only the count
    /// grows, so a stream of bad events cannot grow memory without bound.
    pub(crate) fn warn(&mut self, warning: String) -> Result<(), Error> {
        if self.metadata.warnings.len() < MAX_WARNINGS {
            self.charge_shared(ENTRY_OVERHEAD + warning.len())?;
            self.metadata.warnings.push(warning);
        } else {
            self.warnings_dropped += 1;
        }
        Ok(())
    }

    /// The stream ended cleanly: every tool call still open is final now.
    pub(crate) fn mark_done(&mut self) {
        if self.done {
            return;
        }
        for choice in 0..self.choices.len() {
            self.finish_tool_calls(choice);
            self.make_live_text_whole(choice);
        }
        self.done = true;
        self.events.push(Queued::Done);
    }
}
