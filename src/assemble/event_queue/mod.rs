//! The event queue: what happened, recorded as positions in the response state and rendered
//! into borrowed [`Event`]s only when read ([`render`]), so queuing costs no allocation per
//! delta.

use std::collections::VecDeque;

use super::Event;
use crate::delta::{ItemField, TextKind};
use crate::message::ServerToolStatus;

mod render;

pub(crate) use self::render::Snapshot;

/// One queued event, by position: `choice` and `block` index the response's messages and
/// their blocks, `start..end` the bytes a delta added.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Queued {
    Started,
    Text {
        kind: TextKind,
        choice: usize,
        block: usize,
        start: usize,
        end: usize,
    },
    /// A block's text was replaced by its final text: the choice's whole text of this kind, up
    /// to `end` (what it held then), is rendered.
    Replaced {
        kind: TextKind,
        choice: usize,
        end: usize,
    },
    /// A text, reasoning or refusal block ended.
    End {
        kind: TextKind,
        choice: usize,
        block: usize,
    },
    ToolStarted {
        choice: usize,
        block: usize,
    },
    ToolArguments {
        choice: usize,
        block: usize,
        start: usize,
        end: usize,
    },
    ToolFinished {
        choice: usize,
        block: usize,
    },
    ServerToolStarted {
        choice: usize,
        block: usize,
    },
    ServerToolArguments {
        choice: usize,
        block: usize,
        start: usize,
        end: usize,
    },
    ServerToolFinished {
        choice: usize,
        block: usize,
    },
    ServerToolProgress {
        choice: usize,
        block: usize,
        status: ServerToolStatus,
    },
    /// A partial image: rendered from the latest the call holds.
    ServerToolPartialImage {
        choice: usize,
        block: usize,
    },
    /// More of a string streamed inside a provider item kept whole.
    ItemInput {
        choice: usize,
        block: usize,
        field: ItemField,
        start: usize,
        end: usize,
    },
    /// A whole block arrived: a server-side tool's result or an approval request.
    WholeBlock {
        choice: usize,
        block: usize,
    },
    Usage,
    ChoiceFinished {
        choice: usize,
    },
    Done,
}

/// The events not read yet.
#[derive(Debug)]
pub(crate) struct EventQueue {
    queued: VecDeque<Queued>,
    /// When false, nothing is queued: the caller only wants the messages.
    recording: bool,
    /// By choice position: the text, reasoning or refusal block whose deltas were queued last
    /// and whose end is not yet, which the next event of another block of the choice ends.
    open_text: Vec<Option<(TextKind, usize)>>,
}

impl EventQueue {
    pub(crate) fn new() -> Self {
        EventQueue {
            queued: VecDeque::new(),
            recording: true,
            open_text: Vec::new(),
        }
    }

    /// Empties the queue for a new stream, keeping its buffer; recording is on again.
    pub(crate) fn reset(&mut self) {
        self.queued.clear();
        self.recording = true;
        self.open_text.clear();
    }

    /// Queues an event, after the end of the text block it closes: the choice's open text block
    /// ends where the events of another block of the choice begin, as the choice finishes, and
    /// at the end of the stream.
    pub(crate) fn push(&mut self, queued: Queued) {
        if !self.recording {
            return;
        }
        match queued {
            Queued::Text {
                kind,
                choice,
                block,
                ..
            } => {
                self.end_text_unless(choice, Some(block));
                self.open_text[choice] = Some((kind, block));
            }
            Queued::ToolStarted { choice, block }
            | Queued::ToolArguments { choice, block, .. }
            | Queued::ToolFinished { choice, block }
            | Queued::ServerToolStarted { choice, block }
            | Queued::ServerToolArguments { choice, block, .. }
            | Queued::ServerToolFinished { choice, block }
            | Queued::ServerToolProgress { choice, block, .. }
            | Queued::ServerToolPartialImage { choice, block }
            | Queued::ItemInput { choice, block, .. }
            | Queued::WholeBlock { choice, block } => self.end_text_unless(choice, Some(block)),
            Queued::ChoiceFinished { choice } => self.end_text_unless(choice, None),
            Queued::Done => {
                for choice in 0..self.open_text.len() {
                    self.end_text_unless(choice, None);
                }
            }
            Queued::Started | Queued::Replaced { .. } | Queued::Usage | Queued::End { .. } => {}
        }
        self.queued.push_back(queued);
    }

    /// Ends the text block `block` of the choice at position `choice` if it is the open one: a
    /// closing event repeated its whole text.
    pub(crate) fn end_text(&mut self, choice: usize, block: usize) {
        if self
            .open_text
            .get(choice)
            .is_some_and(|open| open.is_some_and(|(_, open)| open == block))
        {
            self.end_text_unless(choice, None);
        }
    }

    /// Ends the choice's open text block unless it is `block`.
    fn end_text_unless(&mut self, choice: usize, block: Option<usize>) {
        if self.open_text.len() <= choice {
            self.open_text.resize(choice + 1, None);
        }
        let open = &mut self.open_text[choice];
        if let Some((kind, open_block)) = *open {
            if Some(open_block) != block {
                *open = None;
                self.queued.push_back(Queued::End {
                    kind,
                    choice,
                    block: open_block,
                });
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.queued.is_empty()
    }

    /// The next event, not rendered yet.
    pub(crate) fn front(&self) -> Option<Queued> {
        self.queued.front().copied()
    }

    /// Turns recording on or off; turning it off drops the events not read yet.
    pub(crate) fn set_recording(&mut self, recording: bool) {
        self.recording = recording;
        if !recording {
            self.queued.clear();
            self.open_text.clear();
        }
    }

    /// The next event, rendered from the state it points into.
    pub(crate) fn pop<'a>(&mut self, from: Snapshot<'a>) -> Option<Event<'a>> {
        let queued = self.queued.pop_front()?;
        Some(from.render(queued))
    }
}
