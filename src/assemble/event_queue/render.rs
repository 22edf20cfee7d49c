//! Rendering: a queued event turned into the borrowed [`Event`] it stands for, read from the
//! [`Snapshot`] of the response state its positions point into. Apart from the queue in
//! `mod.rs`, which records positions and knows nothing of what they render to.

use std::borrow::Cow;

use super::Queued;
use crate::assemble::finished_call::FinishedToolCall;
use crate::assemble::partial_json::PartialArguments;
use crate::assemble::partial_message::PartialMessage;
use crate::assemble::server_tools::{PartialImage, PendingServerToolCall};
use crate::assemble::tool_calls::PendingToolCall;
use crate::assemble::Event;
use crate::delta::TextKind;
use crate::message::{ContentBlock, InvalidToolCall, ResponseMetadata, UsageMetadata};

/// The response state as it stands, which queued events point into and are rendered from.
pub(crate) struct Snapshot<'a> {
    pub(crate) choices: &'a [PartialMessage],
    pub(crate) metadata: &'a ResponseMetadata,
    pub(crate) usage: Option<&'a UsageMetadata>,
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
    pub(super) fn render(&self, queued: Queued) -> Event<'a> {
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
