//! The event queue: what happened, recorded as positions in the response state and rendered
//! into borrowed [`Event`]s only when read, so queuing costs no allocation per delta.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::finished_call::FinishedToolCall;
use super::partial_json::PartialArguments;
use super::partial_message::PartialMessage;
use super::server_tools::{PartialImage, PendingServerToolCall};
use super::tool_calls::PendingToolCall;
use super::Event;
use crate::delta::{ItemField, TextKind};
use crate::message::{
    ContentBlock, InvalidToolCall, ResponseMetadata, ServerToolStatus, UsageMetadata,
};

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

/// The response state as it stands, which queued events point into and are rendered from.
pub(crate) struct Snapshot<'a> {
    pub(crate) choices: &'a [PartialMessage],
    pub(crate) metadata: &'a ResponseMetadata,
    pub(crate) usage: Option<&'a UsageMetadata>,
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

/// A finished call whose event is read after more argument text reopened it (its parse is
/// gone until it finishes again): the text so far, as an invalid call that says why.
#[cold]
fn reopened(call: Option<&PendingToolCall>) -> FinishedToolCall<'static> {
    FinishedToolCall::InvalidToolCall(Cow::Owned(InvalidToolCall {
        id: call.map_or_else(String::new, |call| call.id().to_owned()),
        name: call.map_or_else(String::new, |call| call.name().to_owned()),
        args: call.map_or_else(String::new, |call| call.arguments().to_owned()),
        error: "more argument text reopened the call before this event was read".to_owned(),
        extras: call
            .and_then(PendingToolCall::extras)
            .cloned()
            .unwrap_or_default(),
    }))
}

/// A block's position as events number it (saturating: no message holds 2^32 blocks).
fn block_index(block: usize) -> u32 {
    u32::try_from(block).unwrap_or(u32::MAX)
}

/// The token counts of the usage so far, without the provider's raw map: fixed size, so an event
/// costs the same to render and to detach however many keys the provider sent.
fn counts_of(usage: &UsageMetadata) -> UsageMetadata {
    UsageMetadata {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        total_tokens: usage.total_tokens,
        input_token_details: usage.input_token_details,
        output_token_details: usage.output_token_details,
        raw: None,
    }
}

impl<'a> Snapshot<'a> {
    fn render(&self, queued: Queued) -> Event<'a> {
        let choices = self.choices;
        let choice_index = |choice: usize| choices[choice].index();
        match queued {
            Queued::Started => Event::Started {
                id: self.metadata.id.as_deref().map(Cow::Borrowed),
                model: self.metadata.model_name.as_deref().map(Cow::Borrowed),
            },
            Queued::Text {
                kind,
                choice,
                block,
                start,
                end,
            } => {
                let text = choices[choice].text_of(Some(block));
                let text = Cow::Borrowed(text.get(start..end).unwrap_or(""));
                let choice = choice_index(choice);
                match kind {
                    TextKind::Text => Event::TextDelta { choice, text },
                    TextKind::Reasoning => Event::ReasoningDelta { choice, text },
                    TextKind::Refusal => Event::RefusalDelta { choice, text },
                }
            }
            Queued::Replaced { kind, choice, end } => {
                let mut whole = choices[choice].joined_text(kind);
                whole.truncate(end);
                let text = Cow::Owned(whole);
                let choice = choice_index(choice);
                match kind {
                    TextKind::Text => Event::TextReplaced { choice, text },
                    TextKind::Reasoning => Event::ReasoningReplaced { choice, text },
                    TextKind::Refusal => Event::RefusalReplaced { choice, text },
                }
            }
            Queued::End {
                kind,
                choice,
                block,
            } => {
                let (choice, block) = (choice_index(choice), block_index(block));
                match kind {
                    TextKind::Text => Event::TextEnd { choice, block },
                    TextKind::Reasoning => Event::ReasoningEnd { choice, block },
                    TextKind::Refusal => Event::RefusalEnd { choice, block },
                }
            }
            Queued::ToolStarted { choice, block } => {
                let call = self.tool_call(choice, block);
                Event::ToolCallStarted {
                    choice: choice_index(choice),
                    index: call.map_or(0, PendingToolCall::position),
                    id: Cow::Borrowed(call.map_or("", PendingToolCall::id)),
                    name: Cow::Borrowed(call.map_or("", PendingToolCall::name)),
                }
            }
            Queued::ToolArguments {
                choice,
                block,
                start,
                end,
            } => {
                let call = self.tool_call(choice, block);
                Event::ToolCallArgumentsDelta {
                    choice: choice_index(choice),
                    index: call.map_or(0, PendingToolCall::position),
                    delta: Cow::Borrowed(call.map_or("", |call| &call.arguments()[start..end])),
                    partial: call.map_or_else(PartialArguments::default, |call| {
                        PartialArguments::of(call.argument_text())
                    }),
                }
            }
            Queued::ToolFinished { choice, block } => {
                let call = self.tool_call(choice, block);
                Event::ToolCallFinished {
                    choice: choice_index(choice),
                    index: call.map_or(0, PendingToolCall::position),
                    call: call
                        .and_then(PendingToolCall::finished)
                        .and_then(FinishedToolCall::of)
                        .unwrap_or_else(|| reopened(call)),
                }
            }
            Queued::ServerToolStarted { choice, block } => {
                let call = choices[choice].server_call(block).map(|call| call.call());
                Event::ServerToolCallStarted {
                    choice: choice_index(choice),
                    block: block_index(block),
                    id: Cow::Borrowed(call.map_or("", |call| call.id.as_str())),
                    name: Cow::Borrowed(call.map_or("", |call| call.name.as_str())),
                }
            }
            Queued::ServerToolArguments {
                choice,
                block,
                start,
                end,
            } => {
                let text = choices[choice]
                    .server_call(block)
                    .map_or("", |call| call.arguments());
                Event::ServerToolCallArgumentsDelta {
                    choice: choice_index(choice),
                    block: block_index(block),
                    delta: Cow::Borrowed(text.get(start..end).unwrap_or("")),
                }
            }
            Queued::ServerToolFinished { choice, block } => Event::ServerToolCallFinished {
                choice: choice_index(choice),
                block: block_index(block),
                call: match choices[choice].server_call(block) {
                    Some(call) => Cow::Borrowed(call.call()),
                    None => Cow::Owned(Default::default()),
                },
            },
            Queued::ServerToolProgress {
                choice,
                block,
                status,
            } => Event::ServerToolCallProgress {
                choice: choice_index(choice),
                block: block_index(block),
                id: Cow::Borrowed(
                    choices[choice]
                        .server_call(block)
                        .map_or("", |call| call.call().id.as_str()),
                ),
                status,
            },
            Queued::ServerToolPartialImage { choice, block } => {
                let call = choices[choice].server_call(block);
                let image = call.and_then(PendingServerToolCall::partial_image);
                Event::ServerToolPartialImage {
                    choice: choice_index(choice),
                    block: block_index(block),
                    id: Cow::Borrowed(call.map_or("", |call| call.call().id.as_str())),
                    index: image.map_or(0, PartialImage::index),
                    mime_type: Cow::Borrowed(image.map_or("", PartialImage::mime_type)),
                    data: Cow::Borrowed(image.map_or("", PartialImage::data)),
                }
            }
            Queued::ItemInput {
                choice,
                block,
                field,
                start,
                end,
            } => {
                let text = choices[choice].item_input(block, field);
                Event::ProviderItemDelta {
                    choice: choice_index(choice),
                    block: block_index(block),
                    delta: Cow::Borrowed(text.get(start..end).unwrap_or("")),
                }
            }
            Queued::WholeBlock { choice, block } => {
                let (choice_number, block_number) = (choice_index(choice), block_index(block));
                match choices[choice].content_at(block) {
                    Some(ContentBlock::ToolApprovalRequest(request)) => {
                        Event::ToolApprovalRequested {
                            choice: choice_number,
                            block: block_number,
                            request: Cow::Borrowed(request),
                        }
                    }
                    Some(ContentBlock::ServerToolResult(result)) => Event::ServerToolResult {
                        choice: choice_number,
                        block: block_number,
                        result: Cow::Borrowed(result),
                    },
                    _ => Event::ServerToolResult {
                        choice: choice_number,
                        block: block_number,
                        result: Cow::Owned(Default::default()),
                    },
                }
            }
            Queued::Usage => Event::Usage {
                usage: Cow::Owned(self.usage.map_or_else(UsageMetadata::default, counts_of)),
            },
            Queued::ChoiceFinished { choice } => Event::ChoiceFinished {
                choice: choice_index(choice),
                reason: Cow::Borrowed(choices[choice].finish_reason().as_str()),
            },
            Queued::Done => Event::Done,
        }
    }

    fn tool_call(&self, choice: usize, block: usize) -> Option<&'a PendingToolCall> {
        self.choices[choice].tool_call(block)
    }
}
