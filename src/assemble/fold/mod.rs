//! The fold: the [`DeltaSink`] the dialects write into. It applies each neutral delta to the
//! response state — per-choice messages, metadata, usage, warnings — within the limits, queues what
//! happened, and at the end builds the [`Completion`](crate::message::Completion). The state
//! itself, and what the assembler asks of it between deltas, is in [`state`].

mod tool_deltas;

use super::budget::value_cost;
use super::event_queue::Queued;
use super::extras;
use super::overhead::{BLOCK_OVERHEAD, CHOICE_OVERHEAD};
use super::partial_message::PartialMessage;
use crate::delta::{BlockKey, Delta, DeltaSink, Held, TextKind};
use crate::error::{Error, ErrorKind};
use crate::message::{Annotation, ContentBlock};

mod choice_index;
mod citations;
mod completion;
mod metadata;
mod provider_items;
mod reconcile;
mod server_tools;
mod state;

pub(crate) use self::state::ResponseState;

impl ResponseState {
    /// The position of the choice with this provider index, opened at first mention.
    #[inline]
    fn choice(&mut self, index: u32) -> Result<usize, Error> {
        if let Some(position) = self.choice_index.find(&self.choices, index) {
            self.touched = Some(position);
            return Ok(position);
        }
        self.new_choice(index)
    }

    #[cold]
    fn new_choice(&mut self, index: u32) -> Result<usize, Error> {
        if self.choices.len() >= self.max_choices {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("more than {} choices (max_choices)", self.max_choices),
            ));
        }
        // A choice after the first carries its own copy of the response's fields.
        let copies = self.choices.first().map_or(0, |_| self.shared_bytes);
        self.budget.charge(CHOICE_OVERHEAD.saturating_add(copies))?;
        self.choice_index.opened(index, self.choices.len());
        self.choices.push(PartialMessage::new(index));
        self.touched = Some(self.choices.len() - 1);
        Ok(self.choices.len() - 1)
    }

    /// Charges the blocks the last delta added to the choice it touched: every block costs its
    /// fixed overhead, however little it holds (a block per content part, per unknown block).
    fn charge_new_blocks(&mut self) -> Result<(), Error> {
        let Some(choice) = self.touched.take() else {
            return Ok(());
        };
        let added = self.choices[choice].take_uncharged_blocks();
        self.budget.charge(added.saturating_mul(BLOCK_OVERHEAD))
    }

    /// The choice's message, once `bytes` more are charged to the budget.
    fn charged(&mut self, index: u32, bytes: usize) -> Result<&mut PartialMessage, Error> {
        let choice = self.choice(index)?;
        self.budget.charge(bytes)?;
        Ok(&mut self.choices[choice])
    }

    /// Text for the choice's one block of its kind (chat-completion streams).
    #[inline]
    fn append_plain(&mut self, kind: TextKind, index: u32, text: &str) -> Result<(), Error> {
        self.append_text(kind, index, text, |message| message.append(kind, text))
    }

    /// Text for the block the provider keyed (block-structured dialects).
    fn append_keyed(
        &mut self,
        index: u32,
        key: BlockKey,
        kind: TextKind,
        text: &str,
    ) -> Result<(), Error> {
        self.append_text(kind, index, text, |message| {
            message.append_keyed(kind, key, text)
        })
    }

    /// Charges, appends (where `append` says) and queues the event of one text delta.
    #[inline]
    fn append_text(
        &mut self,
        kind: TextKind,
        index: u32,
        text: &str,
        append: impl FnOnce(&mut PartialMessage) -> (usize, usize, usize),
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        if text.is_empty() {
            return Ok(());
        }
        self.budget.charge(text.len())?;
        let (block, start, end) = append(&mut self.choices[choice]);
        self.events.push(Queued::Text {
            kind,
            choice,
            block,
            start,
            end,
        });
        Ok(())
    }

    fn finish_choice(&mut self, index: u32, reason: &str) -> Result<(), Error> {
        let choice = self.choice(index)?;
        if reason.is_empty() || self.choices[choice].is_finished() {
            return Ok(());
        }
        self.budget.charge(reason.len())?;
        self.choices[choice].finish_reason = reason.into();
        self.finish_tool_calls(choice);
        self.make_live_text_whole(choice);
        self.events.push(Queued::ChoiceFinished { choice });
        Ok(())
    }

    /// Opaque provider data on a reasoning block (a signature, encrypted reasoning): empty
    /// data only opens the choice.
    fn reasoning_field(
        &mut self,
        index: u32,
        value: &str,
        set: impl FnOnce(&mut PartialMessage),
    ) -> Result<(), Error> {
        if value.is_empty() {
            self.choice(index)?;
        } else {
            set(self.charged(index, value.len())?);
        }
        Ok(())
    }
}

impl DeltaSink for ResponseState {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        let applied = self.apply_delta(delta);
        let charged = self.charge_new_blocks();
        applied.and(charged)
    }
}

impl ResponseState {
    fn apply_delta(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        if !self.started && !matches!(delta, Delta::Done | Delta::Error(_)) {
            self.started = true;
            self.events.push(Queued::Started);
        }
        match delta {
            Delta::Metadata(metadata) => self.apply_metadata(metadata)?,
            Delta::Extra { choice, key, value } => self.keep_extra(choice, key, value.get())?,
            // The response began: choice 0's message carries its fields (see the variant).
            Delta::Recognized if self.choices.is_empty() => self.choice(0).map(|_| ())?,
            Delta::Recognized => {}
            Delta::Choice { choice } => {
                self.choice(choice)?;
            }
            Delta::Text { choice, text } => self.append_plain(TextKind::Text, choice, text)?,
            Delta::Reasoning { choice, text } => {
                self.append_plain(TextKind::Reasoning, choice, text)?
            }
            Delta::ReasoningDetails { choice, details } => {
                let bytes = details.iter().map(value_cost).sum();
                let reasoning = self.charged(choice, bytes)?.block_mut(TextKind::Reasoning);
                extras::merge_reasoning_details(reasoning, details);
            }
            Delta::Refusal { choice, text } => {
                self.append_plain(TextKind::Refusal, choice, text)?
            }
            Delta::NonStandard { choice, value } if is_nothing(&value) => {
                self.choice(choice)?;
            }
            Delta::NonStandard { choice, value } => {
                let bytes = value_cost(&value);
                self.charged(choice, bytes)?
                    .push_content(ContentBlock::NonStandard { value });
            }
            Delta::ToolCall(tool_call) => self.tool_call_fragment(tool_call)?,
            Delta::Logprobs { choice, logprobs } => {
                let raw = logprobs.get();
                let logprobs = &mut self.charged(choice, raw.len())?.logprobs;
                let entries = extras::append_logprobs(logprobs, raw);
                self.budget.charge_held(Held { entries, bytes: 0 })?;
            }
            Delta::Usage(report) => {
                if !report.is_empty() || report.raw.as_ref().is_some_and(|raw| !raw.is_empty()) {
                    let grown = report.fold_into(self.usage.get_or_insert_with(Default::default));
                    self.budget.charge_held(grown)?;
                    self.events.push(Queued::Usage);
                }
            }
            Delta::Finish { choice, reason } => self.finish_choice(choice, reason)?,
            Delta::Held(held) => self.budget.charge_held(held)?,
            Delta::Final(value) => self.reconcile(value)?,
            Delta::Error(error) => return Err(Error::provider(*error)),
            Delta::Done => self.mark_done(),
            Delta::BlockText {
                choice,
                key,
                kind,
                text,
            } => self.append_keyed(choice, key, kind, text)?,
            Delta::ReasoningSignature {
                choice,
                key,
                signature,
            } => self.reasoning_field(choice, signature, |message| {
                message.set_signature(key, signature)
            })?,
            Delta::ReasoningData { choice, key, data } => {
                self.reasoning_field(choice, data, |message| {
                    message.set_reasoning_data(key, data)
                })?
            }
            Delta::ReasoningExtra {
                choice,
                key,
                name,
                value,
            } => {
                let bytes = name.len() + value_cost(&value);
                self.charged(choice, bytes)?
                    .set_reasoning_extra(key, name, value);
            }
            delta @ (Delta::ProviderItem { .. }
            | Delta::ItemInput { .. }
            | Delta::TextItem { .. }) => self.provider_item_delta(delta)?,
            Delta::Annotation { choice, key, value } => {
                // The typed annotation holds the value's strings and map entries, in a slot of
                // its own.
                let bytes = value_cost(&value) + std::mem::size_of::<Annotation>();
                self.charged(choice, bytes)?
                    .annotate(key, Annotation::from_provider(value));
            }
            Delta::WholeToolCall {
                choice,
                id,
                name,
                arguments,
            } => self.whole_tool_call(choice, id, name, arguments)?,
            Delta::ToolCallEnd {
                choice,
                index,
                arguments,
            } => self.end_tool_call(choice, index, arguments)?,
            Delta::ServerToolStart { choice, key, call } => {
                self.server_tool_start(choice, key, call)?
            }
            Delta::ServerToolArguments {
                choice,
                key,
                fragment,
            } => self.server_tool_arguments(choice, key, fragment)?,
            Delta::ServerToolEnd {
                choice,
                key,
                args,
                extras,
            } => self.server_tool_end(choice, key, args, extras)?,
            Delta::ServerToolProgress {
                choice,
                key,
                status,
            } => self.server_tool_progress(choice, key, status)?,
            Delta::ServerToolPartialImage {
                choice,
                key,
                index,
                format,
                data,
            } => self.server_tool_partial_image(choice, key, index, format, data)?,
            Delta::Block { choice, block } => self.whole_block(choice, block)?,
            Delta::SpanCitations { choice, spans } => self.span_citations(choice, spans)?,
            Delta::Audio {
                choice,
                id,
                data,
                transcript,
                expires_at,
            } => {
                let bytes = id.map_or(0, str::len) + data.len() + transcript.len();
                self.charged(choice, bytes)?
                    .append_audio(id, data, transcript, expires_at);
            }
            Delta::ToolCallExtra {
                choice,
                index,
                name,
                value,
            } => self.tool_call_extra(choice, index, name, value)?,
        }
        Ok(())
    }
}

/// A content part that holds nothing (`{}`, `null`): no block is made for it, as none is for
/// an empty text part.
fn is_nothing(value: &serde_json::Value) -> bool {
    value.is_null() || value.as_object().is_some_and(serde_json::Map::is_empty)
}
