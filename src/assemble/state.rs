//! The state machine: folds neutral deltas into per-choice messages, and queues what happened
//! as small descriptors that are turned into borrowed [`Event`]s on demand.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde_json::Value;

use super::choice::{PartialBlock, PartialMessage};
use super::{Event, Limits};
use crate::delta::{Delta, DeltaSink, MetadataDelta, TextKind, ToolCallDelta};
use crate::error::{Error, ErrorKind};
use crate::message::{
    AiMessage, Choice, Completion, ContentBlock, ResponseMetadata, UsageMetadata,
};
use blocks::json_size;

mod blocks;
mod provider_fields;

/// Warnings kept on a message; later ones are only counted.
const MAX_WARNINGS: usize = 64;

/// What happened, by position in the state; rendered into an [`Event`] when read, so queuing
/// costs no allocation per delta.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Started,
    Text {
        kind: TextKind,
        choice: usize,
        block: usize,
        start: usize,
        end: usize,
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
    Usage,
    ChoiceFinished {
        choice: usize,
    },
    Done,
}

/// Everything assembled so far for one response.
#[derive(Debug)]
pub(crate) struct ResponseState {
    limits: Limits,
    provider: &'static str,
    metadata: ResponseMetadata,
    usage: Option<UsageMetadata>,
    choices: Vec<PartialMessage>,
    /// Bytes of text, reasoning, refusal and arguments held, checked against the limit.
    content_bytes: usize,
    started: bool,
    /// Warnings past [`MAX_WARNINGS`], counted instead of kept.
    warnings_dropped: usize,
    done: bool,
    pending: VecDeque<Pending>,
    /// When false, nothing is queued: the caller only wants the final message.
    record_events: bool,
}

impl ResponseState {
    pub(crate) fn new(limits: Limits, provider: &'static str) -> Self {
        ResponseState {
            limits,
            provider,
            metadata: ResponseMetadata::default(),
            usage: None,
            choices: Vec::new(),
            content_bytes: 0,
            started: false,
            warnings_dropped: 0,
            done: false,
            pending: VecDeque::new(),
            record_events: true,
        }
    }

    /// Names the dialect once it is known (detected from the first payload).
    pub(crate) fn set_provider(&mut self, provider: &'static str) {
        self.provider = provider;
    }

    pub(crate) fn set_record_events(&mut self, record: bool) {
        self.record_events = record;
        if !record {
            self.pending.clear();
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    pub(crate) fn has_pending_events(&self) -> bool {
        !self.pending.is_empty()
    }

    pub(crate) fn metadata(&self) -> &ResponseMetadata {
        &self.metadata
    }

    pub(crate) fn choices(&self) -> &[PartialMessage] {
        &self.choices
    }

    /// True when at least one choice exists and every one has finished.
    pub(crate) fn all_choices_finished(&self) -> bool {
        !self.choices.is_empty() && self.choices.iter().all(PartialMessage::is_finished)
    }

    /// Records a tolerated problem; past [`MAX_WARNINGS`] only the count grows, so a stream of
    /// bad events cannot grow memory without bound.
    pub(crate) fn warn(&mut self, warning: String) {
        if self.metadata.warnings.len() < MAX_WARNINGS {
            self.metadata.warnings.push(warning);
        } else {
            self.warnings_dropped += 1;
        }
    }

    fn queue(&mut self, pending: Pending) {
        if self.record_events {
            self.pending.push_back(pending);
        }
    }

    /// The next event, borrowed from the state.
    pub(crate) fn next_event(&mut self) -> Option<Event<'_>> {
        let pending = self.pending.pop_front()?;
        Some(self.render(pending))
    }

    fn render(&self, pending: Pending) -> Event<'_> {
        let choice_index = |choice: usize| self.choices[choice].index;
        match pending {
            Pending::Started => Event::Started {
                id: self.metadata.id.as_deref().map(Cow::Borrowed),
                model: self.metadata.model_name.as_deref().map(Cow::Borrowed),
            },
            Pending::Text {
                kind,
                choice,
                block,
                start,
                end,
            } => {
                let text = match &self.choices[choice].blocks[block] {
                    PartialBlock::Content(
                        ContentBlock::Text { text, .. }
                        | ContentBlock::Reasoning { text, .. }
                        | ContentBlock::Refusal { refusal: text },
                    ) => Cow::Borrowed(&text[start..end]),
                    _ => Cow::Borrowed(""),
                };
                let choice = choice_index(choice);
                match kind {
                    TextKind::Text => Event::TextDelta { choice, text },
                    TextKind::Reasoning => Event::ReasoningDelta { choice, text },
                    TextKind::Refusal => Event::RefusalDelta { choice, text },
                }
            }
            Pending::ToolStarted { choice, block } => {
                let call = self.tool_call(choice, block);
                Event::ToolCallStarted {
                    choice: choice_index(choice),
                    index: call.map_or(0, |call| call.position),
                    id: Cow::Borrowed(call.map_or("", |call| call.id())),
                    name: Cow::Borrowed(call.map_or("", |call| call.name())),
                }
            }
            Pending::ToolArguments {
                choice,
                block,
                start,
                end,
            } => {
                let call = self.tool_call(choice, block);
                Event::ToolCallArgumentsDelta {
                    choice: choice_index(choice),
                    index: call.map_or(0, |call| call.position),
                    delta: Cow::Borrowed(call.map_or("", |call| &call.arguments()[start..end])),
                }
            }
            Pending::ToolFinished { choice, block } => {
                let call = self.tool_call(choice, block);
                Event::ToolCallFinished {
                    choice: choice_index(choice),
                    index: call.map_or(0, |call| call.position),
                    call: match call.and_then(|call| call.finished.as_ref()) {
                        Some(finished) => Cow::Borrowed(finished),
                        None => Cow::Owned(ContentBlock::NonStandard { value: Value::Null }),
                    },
                }
            }
            Pending::Usage => Event::Usage {
                usage: self
                    .usage
                    .as_ref()
                    .map_or_else(|| Cow::Owned(UsageMetadata::default()), Cow::Borrowed),
            },
            Pending::ChoiceFinished { choice } => Event::ChoiceFinished {
                choice: choice_index(choice),
                reason: Cow::Borrowed(self.choices[choice].finish_reason.as_str()),
            },
            Pending::Done => Event::Done,
        }
    }

    fn tool_call(&self, choice: usize, block: usize) -> Option<&super::PendingToolCall> {
        self.choices[choice].tool_call(block)
    }

    fn choice(&mut self, index: u32) -> Result<usize, Error> {
        if let Some(position) = self.choices.iter().position(|c| c.index == index) {
            return Ok(position);
        }
        if self.choices.len() >= self.limits.max_choices {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "more than {} choices (max_choices)",
                    self.limits.max_choices
                ),
            ));
        }
        self.choices.push(PartialMessage::new(index));
        Ok(self.choices.len() - 1)
    }

    fn count_bytes(&mut self, bytes: usize) -> Result<(), Error> {
        self.content_bytes = self.content_bytes.saturating_add(bytes);
        if self.content_bytes > self.limits.max_message_bytes {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "text, reasoning and tool arguments exceed {} bytes (max_message_bytes)",
                    self.limits.max_message_bytes
                ),
            ));
        }
        Ok(())
    }

    fn append_text(&mut self, kind: TextKind, index: u32, text: &str) -> Result<(), Error> {
        self.append_with(kind, index, text, |message| message.append(kind, text))
    }

    /// Counts, appends (where `append` says) and queues the event of one text delta.
    fn append_with(
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
        self.count_bytes(text.len())?;
        let (block, start, end) = append(&mut self.choices[choice]);
        self.queue(Pending::Text {
            kind,
            choice,
            block,
            start,
            end,
        });
        Ok(())
    }

    fn apply_metadata(&mut self, delta: MetadataDelta<'_>) {
        let metadata = &mut self.metadata;
        set_once(&mut metadata.id, delta.id);
        set_once(&mut metadata.model_name, delta.model);
        set_once(&mut metadata.system_fingerprint, delta.system_fingerprint);
        set_once(&mut metadata.service_tier, delta.service_tier);
        // Azure's placeholder first chunk says `created: 0`.
        if metadata.created.is_none_or(|created| created == 0) {
            if let Some(created) = delta.created.filter(|&created| created != 0) {
                metadata.created = Some(created);
            }
        }
    }

    fn apply_tool_call(&mut self, delta: ToolCallDelta<'_>) -> Result<(), Error> {
        let choice = self.choice(delta.choice)?;
        let message = &mut self.choices[choice];
        let (block, created) = match message.find_tool_call(delta.index, delta.id) {
            Some(position) => (message.touch_tool_call(position), false),
            None => {
                if message.tool_call_count() >= self.limits.max_tool_calls {
                    return Err(Error::new(
                        ErrorKind::LimitExceeded,
                        format!(
                            "more than {} tool calls in one message (max_tool_calls)",
                            self.limits.max_tool_calls
                        ),
                    ));
                }
                let block = message.start_tool_call(delta.index);
                message.touch_tool_call(message.tool_call_count() - 1);
                (block, true)
            }
        };
        if let Some(call) = message.tool_call_mut(block) {
            call.absorb_identity(delta.id, delta.name);
        }
        if created {
            self.queue(Pending::ToolStarted { choice, block });
        }
        if delta.arguments.is_empty() {
            return Ok(());
        }
        self.count_bytes(delta.arguments.len())?;
        if let Some(call) = self.choices[choice].tool_call_mut(block) {
            // A fragment after the call was finished reopens it: it is parsed again at the end.
            call.finished = None;
            let start = call.arguments.len();
            call.arguments.push_str(delta.arguments);
            let end = call.arguments.len();
            self.queue(Pending::ToolArguments {
                choice,
                block,
                start,
                end,
            });
        }
        Ok(())
    }

    /// Parses the arguments of every unfinished tool call of a choice, once.
    fn finish_tool_calls(&mut self, choice: usize) {
        let unfinished: Vec<usize> = self.choices[choice].unfinished_tool_calls().collect();
        if unfinished.is_empty() {
            return;
        }
        self.choices[choice].assign_missing_ids();
        for block in unfinished {
            if let Some(call) = self.choices[choice].tool_call_mut(block) {
                call.finish();
                self.queue(Pending::ToolFinished { choice, block });
            }
        }
    }

    fn finish_choice(&mut self, index: u32, reason: &str) -> Result<(), Error> {
        let choice = self.choice(index)?;
        if reason.is_empty() || self.choices[choice].is_finished() {
            return Ok(());
        }
        self.choices[choice].finish_reason = reason.into();
        self.finish_tool_calls(choice);
        self.queue(Pending::ChoiceFinished { choice });
        Ok(())
    }

    /// The stream ended cleanly: every tool call still open is final now.
    pub(crate) fn mark_done(&mut self) {
        if self.done {
            return;
        }
        for choice in 0..self.choices.len() {
            self.finish_tool_calls(choice);
        }
        self.done = true;
        self.queue(Pending::Done);
    }

    /// Builds the messages; `incomplete` marks each one with why it is not the whole answer.
    pub(crate) fn into_completion(mut self, incomplete: Option<String>) -> Completion {
        for choice in 0..self.choices.len() {
            self.finish_tool_calls(choice);
        }
        let mut metadata = self.metadata;
        metadata.model_provider = (!self.provider.is_empty()).then(|| self.provider.to_owned());
        metadata.incomplete.clone_from(&incomplete);
        if self.warnings_dropped > 0 {
            metadata
                .warnings
                .push(format!("… and {} more warnings", self.warnings_dropped));
        }
        let mut choices = Vec::with_capacity(self.choices.len());
        let mut partials = self.choices.into_iter().peekable();
        while let Some(partial) = partials.next() {
            // Every message carries the response's metadata and usage; the last one takes them.
            let (response_metadata, usage) = if partials.peek().is_some() {
                (metadata.clone(), self.usage.clone())
            } else {
                (std::mem::take(&mut metadata), self.usage.take())
            };
            choices.push(Choice {
                index: partial.index,
                message: partial.into_message(AiMessage {
                    id: response_metadata.id.clone(),
                    usage,
                    response_metadata,
                    ..AiMessage::default()
                }),
            });
        }
        choices.sort_by_key(|choice| choice.index);
        Completion {
            choices,
            complete: incomplete.is_none(),
        }
    }
}

impl DeltaSink for ResponseState {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        if !self.started && !matches!(delta, Delta::Done | Delta::Error(_)) {
            self.started = true;
            self.queue(Pending::Started);
        }
        match delta {
            Delta::Metadata(metadata) => self.apply_metadata(metadata),
            Delta::Extra { choice, key, value } => self.keep_extra(choice, key, value.get())?,
            Delta::Choice { choice } => {
                self.choice(choice)?;
            }
            Delta::Text { choice, text } => self.append_text(TextKind::Text, choice, text)?,
            Delta::Reasoning { choice, text } => {
                self.append_text(TextKind::Reasoning, choice, text)?
            }
            Delta::ReasoningDetails { choice, details } => {
                self.merge_reasoning_details(choice, details)?
            }
            Delta::Refusal { choice, text } => self.append_text(TextKind::Refusal, choice, text)?,
            Delta::NonStandard { choice, value } => {
                let choice = self.choice(choice)?;
                self.count_bytes(json_size(&value))?;
                self.choices[choice].push_content(ContentBlock::NonStandard { value });
            }
            Delta::ToolCall(tool_call) => self.apply_tool_call(tool_call)?,
            Delta::Logprobs { choice, logprobs } => self.append_logprobs(choice, logprobs.get())?,
            Delta::Usage(report) => {
                if !report.is_empty() || report.raw.as_ref().is_some_and(|raw| !raw.is_empty()) {
                    report.fold_into(self.usage.get_or_insert_with(Default::default));
                    self.queue(Pending::Usage);
                }
            }
            Delta::Finish { choice, reason } => self.finish_choice(choice, reason)?,
            Delta::Error(error) => return Err(Error::provider(error)),
            Delta::Done => self.mark_done(),
            Delta::BlockText {
                choice,
                key,
                kind,
                text,
            } => self.append_keyed_text(choice, key, kind, text)?,
            Delta::ReasoningSignature {
                choice,
                key,
                signature,
            } => self.set_signature(choice, key, signature)?,
            Delta::ReasoningData { choice, key, data } => {
                self.set_reasoning_data(choice, key, data)?
            }
            Delta::ReasoningExtra {
                choice,
                key,
                name,
                value,
            } => self.set_reasoning_extra(choice, key, name, value)?,
            Delta::Annotation { choice, key, value } => self.annotate(choice, key, value)?,
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
        }
        Ok(())
    }
}

fn set_once(field: &mut Option<String>, value: Option<&str>) {
    if field.as_deref().is_none_or(str::is_empty) {
        if let Some(value) = value.filter(|value| !value.is_empty()) {
            *field = Some(value.to_owned());
        }
    }
}
