//! OpenAI Responses: `response.*` events. Output items are keyed by `output_index` (and the part
//! inside them): message text and refusals, function calls (final at
//! `response.function_call_arguments.done` or `response.output_item.done`), reasoning summaries
//! and reasoning text (each summary part its own reasoning block, carrying the item id and its
//! encrypted content). Built-in tool items (web search, file search, code interpreter, image
//! generation, remote MCP) are server tool calls and their results, an MCP approval request an
//! approval request block ([`server_tools`]); other new item types are kept whole as
//! non-standard blocks.
//!
//! The stream is complete at `response.completed`, or at `response.incomplete` (the finish
//! reason then says why: `max_output_tokens`, `content_filter`). `response.failed` and `error`
//! end it with a provider error; an `error` event waits for the `response.failed` that follows
//! it, so the partial message carries the final status.
//!
//! Output items open and finish by their own events ([`items`]). The closing events repeat what
//! the deltas streamed; they win ([`closing`]), and the terminal
//! event's id is the message's. Custom tool calls are tool calls ([`custom_tool`]); a whole
//! non-streamed body (`{"object":"response"}`) reads as its stream would ([`body`]). Item ids
//! kept for `item_id` lookups are hashed and charged to the message budget; an `output_index`
//! past `u32` is malformed.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::decoder::DialectDecoder;
use super::payload::{keep_unknown, parse_payload};
use super::Dialect;
use crate::delta::{BlockKey, Delta, DeltaSink, Held, MetadataDelta, TextKind, ToolCallDelta};
use crate::error::Error;
use crate::error::{snippet, ErrorKind, ProviderError};
use crate::framing::Frame;

use closing::{final_part, final_text};
use logprobs::token_logprobs;
use payload::Event;
use reasoning::Part;

mod body;
mod closing;
mod custom_tool;
mod fast;
mod items;
mod logprobs;
mod payload;
mod provider_items;
mod reasoning;
mod server_tools;
mod unknown;

/// A response is one message.
const CHOICE: u32 = 0;

/// The items whose content also streams as deltas (text, reasoning, arguments, input), which
/// [`item_final`](OpenAiResponsesDecoder::item_final) reconciles, even without an
/// `output_item` event; any other item is whole only in its `.done` or in `response.completed`.
const TEXT_ITEMS: [&str; 4] = ["message", "reasoning", "function_call", "custom_tool_call"];

/// What the dialect remembers between events.
#[derive(Debug, Default)]
pub(crate) struct OpenAiResponsesDecoder {
    /// An `error` event, reported at `response.failed` or at the end of the input.
    error: Option<ProviderError>,
    /// Output index of each item, for events that name only the item.
    items: HashMap<String, u32>,
    /// The output indexes `output_item.added` or `.done` streamed an item at, for the items
    /// `response.completed` lists without an id to match them by.
    streamed: HashSet<u32>,
    /// Items other than text and calls that `output_item.added` opened and no `.done` ended
    /// yet, by output index: `response.completed` ends them ([`closing`]).
    open_items: HashSet<u32>,
    /// Server-tool items opened by `output_item.added` and not done yet, by output index.
    server_items: HashSet<u32>,
    /// The input of each custom tool call so far, by output index, until its `.done`.
    custom_inputs: HashMap<u32, String>,
    /// The id of the server-run tool search whose `tool_search_output` comes next.
    tool_search: Option<String>,
    /// The `phase` of each message item `output_item.added` opened, by output index, for its
    /// text blocks ([`items`]).
    phases: HashMap<u32, String>,
    /// The text or refusal block the last delta went to, and the blocks a delta has named
    /// their item: a block's item id is set at its first delta (a failed or cut stream never
    /// sends the item's `.done`), one check per switch of block, not per delta.
    text_block: Option<BlockKey>,
    named_blocks: HashSet<BlockKey>,
    /// Per reasoning item (output index), whether its reasoning text came before any summary:
    /// then its text parts take the even blocks ([`reasoning`]).
    text_first: HashMap<u32, bool>,
    /// Reused by the [`fast`] path for a `delta` whose string has escapes.
    scratch: String,
}

/// Where an item's events land: the item, or the part inside it. Summary parts and reasoning
/// text parts of one reasoning item are told apart by parity.
fn key(output_index: u32, part: u32) -> BlockKey {
    BlockKey {
        item: output_index,
        part,
    }
}

impl DialectDecoder for OpenAiResponsesDecoder {
    const DIALECT: Dialect = Dialect::OpenAiResponses;

    /// A chat-style `[DONE]` carries nothing for this dialect: skipped.
    fn decode_control(
        &mut self,
        _frame: &Frame<'_>,
        data: &str,
        _sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        (data == "[DONE]").then_some(Ok(()))
    }

    fn decode_fast(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        fast::decode(self, frame, data, sink)
    }

    fn decode_general(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let event: Event<'_> = match parse_payload::<Self, _>(frame, data) {
            Ok(event) => event,
            // Only a payload that is no event pays for the second look.
            Err(error) => return self.whole_response(data, sink).unwrap_or(Err(error)),
        };
        self.apply(&event, frame, sink)
    }

    /// An `error` event not yet followed by `response.failed` is reported now.
    fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        match self.error.take() {
            Some(error) => sink.apply(Delta::Error(Box::new(error))),
            None => Ok(()),
        }
    }
}

impl OpenAiResponsesDecoder {
    /// Applies one parsed event.
    fn apply(
        &mut self,
        event: &Event<'_>,
        frame: &Frame<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let output_index = self.output_index(event)?;
        let choice = CHOICE;
        if names_its_item(event.kind.as_str()) && event.output_index.0.is_some() {
            if let Some(id) = event.item_id.as_str() {
                self.remember_item(id, output_index, sink)?;
            }
        }
        match event.kind.as_str() {
            "response.created" | "response.in_progress" | "response.queued" => {
                unknown::keep_response_fields(frame.data, sink)?;
                if let Some(response) = &event.response {
                    sink.apply(Delta::Metadata(MetadataDelta {
                        id: response.id.as_str(),
                        model: response.model.as_str(),
                        created: response.created_at.0.and_then(|at| i64::try_from(at).ok()),
                        ..MetadataDelta::default()
                    }))?;
                }
                sink.apply(Delta::Choice { choice })
            }
            "response.output_item.added" => match event.item {
                Some(item) => self.item_added(output_index, item, sink),
                None => Ok(()),
            },
            "response.output_item.done" => match event.item {
                Some(item) => self.item_done(output_index, item, sink),
                None => Ok(()),
            },
            "response.output_text.delta" => {
                self.message_text(sink, output_index, event, TextKind::Text)
            }
            "response.refusal.delta" => {
                self.message_text(sink, output_index, event, TextKind::Refusal)
            }
            "response.reasoning_summary_text.delta" => match event.delta.as_str() {
                Some(text) => {
                    let index = event.summary_index.0;
                    self.reasoning_text(output_index, Part::Summary, index, text, sink)
                }
                None => Ok(()),
            },
            "response.reasoning_text.delta" => match event.delta.as_str() {
                Some(text) => {
                    let index = event.content_index.0;
                    self.reasoning_text(output_index, Part::Text, index, text, sink)
                }
                None => Ok(()),
            },
            "response.output_text.annotation.added" => match event.annotation {
                Some(annotation) => match serde_json::from_str(annotation.get()) {
                    Ok(value) => sink.apply(Delta::Annotation {
                        choice,
                        key: Some(key(output_index, content_index(event))),
                        value,
                    }),
                    Err(_) => Ok(()),
                },
                None => Ok(()),
            },
            "response.function_call_arguments.delta" => match event.delta.as_str() {
                Some(arguments) => sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice,
                    index: Some(output_index),
                    id: None,
                    name: None,
                    arguments,
                })),
                None => Ok(()),
            },
            "response.function_call_arguments.done" => sink.apply(Delta::ToolCallEnd {
                choice,
                index: output_index,
                arguments: event.arguments.as_str(),
            }),
            "response.code_interpreter_call_code.delta" | "response.mcp_call_arguments.delta" => {
                match event.delta.as_str() {
                    Some(fragment) => sink.apply(Delta::ServerToolArguments {
                        choice,
                        key: key(output_index, 0),
                        fragment,
                    }),
                    None => Ok(()),
                }
            }
            "response.custom_tool_call_input.delta" => match event.delta.as_str() {
                Some(input) => self.custom_input(output_index, input, sink),
                None => Ok(()),
            },
            "response.custom_tool_call_input.done" => {
                self.end_custom_call(output_index, event.input.as_str(), sink)
            }
            "response.output_text.done" => final_text(
                sink,
                key(output_index, content_index(event)),
                TextKind::Text,
                event.text.as_str(),
            ),
            "response.refusal.done" => final_text(
                sink,
                key(output_index, content_index(event)),
                TextKind::Refusal,
                event.refusal.as_str(),
            ),
            "response.reasoning_summary_text.done" => {
                let index = event.summary_index.0;
                let key = self.reasoning_key(output_index, Part::Summary, index, sink)?;
                final_text(sink, key, TextKind::Reasoning, event.text.as_str())
            }
            "response.content_part.done" => match &event.part {
                Some(part) => final_part(sink, key(output_index, content_index(event)), part),
                None => Ok(()),
            },
            "response.completed" | "response.incomplete" => {
                unknown::keep_response_fields(frame.data, sink)?;
                match &event.response {
                    Some(response) => self.complete(response, sink),
                    None => sink.apply(Delta::Done),
                }
            }
            "response.failed" => {
                unknown::keep_response_fields(frame.data, sink)?;
                let status = event
                    .response
                    .as_ref()
                    .and_then(|response| response.status.as_str())
                    .unwrap_or("failed");
                if let Some(response) = &event.response {
                    self.terminal(response, sink)?;
                }
                sink.apply(Delta::Finish {
                    choice,
                    reason: status,
                })?;
                let error = self.error.take().unwrap_or_else(|| {
                    let value = event
                        .response
                        .as_ref()
                        .and_then(|response| response.error)
                        .and_then(|raw| serde_json::from_str(raw.get()).ok())
                        .unwrap_or_else(|| Value::String("the response failed".to_owned()));
                    ProviderError::from_value(value)
                });
                sink.apply(Delta::Error(Box::new(error)))
            }
            "error" => {
                let value = serde_json::from_str(frame.data.trim_ascii()).unwrap_or(Value::Null);
                let mut error = ProviderError::from_value(value);
                // In the flat shape, `type` names the event, not the kind of error.
                if error.kind.as_deref() == Some("error") {
                    error.kind = None;
                }
                self.error.get_or_insert(error);
                Ok(())
            }
            kind => match provider_items::input(kind, output_index, event, sink) {
                Some(applied) => applied,
                None if server_tools::is_live(kind) => {
                    server_tools::live(kind, event, key(output_index, 0), sink)
                }
                None if unknown::is_quiet(kind) => Ok(()),
                // Event types newer than this decoder.
                None => keep_unknown::<Self>(frame, frame.data, choice, sink),
            },
        }
    }

    /// A text or refusal delta of a message part; at the first delta of a block, the item id
    /// the delta names (and the phase `output_item.added` gave the item) go on the block.
    fn message_text(
        &mut self,
        sink: &mut impl DeltaSink,
        output_index: u32,
        event: &Event<'_>,
        kind: TextKind,
    ) -> Result<(), Error> {
        let key = key(output_index, content_index(event));
        if let Some(text) = event.delta.as_str() {
            sink.apply(Delta::BlockText {
                choice: CHOICE,
                key,
                kind,
                text,
            })?;
        }
        if let Some(logprobs) = event.logprobs {
            token_logprobs(logprobs, sink)?;
        }
        if self.text_block == Some(key) || event.delta.as_str().is_none() {
            return Ok(());
        }
        self.text_block = Some(key);
        let Some(id) = event.item_id.as_str() else {
            return Ok(());
        };
        if !self.named_blocks.insert(key) {
            return Ok(());
        }
        sink.apply(Delta::Held(Held {
            entries: 1,
            bytes: 0,
        }))?;
        sink.apply(Delta::TextItem {
            choice: CHOICE,
            key,
            kind,
            id: Some(id),
            phase: self.phases.get(&output_index).map(String::as_str),
        })
    }

    /// Remembers the output index of an item id (once: the id is charged to the budget).
    fn remember_item(
        &mut self,
        id: &str,
        output_index: u32,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if !self.items.contains_key(id) {
            sink.apply(Delta::Held(Held {
                entries: 1,
                bytes: id.len(),
            }))?;
            self.items.insert(id.to_owned(), output_index);
        }
        Ok(())
    }

    /// The item an event is about: its `output_index`, else the index of its `item_id`. An
    /// index past `u32` is malformed (saturating it would merge two items).
    fn output_index(&self, event: &Event<'_>) -> Result<u32, Error> {
        if let Some(index) = event.output_index.0 {
            return u32::try_from(index).map_err(|_| {
                Error::new(
                    ErrorKind::Malformed,
                    format!(
                        "output_index {index} is past 2^32 - 1 in {}",
                        snippet(event.kind.as_str())
                    ),
                )
            });
        }
        Ok(event
            .item_id
            .as_str()
            .and_then(|id| self.items.get(id))
            .map_or(0, |index| *index))
    }
}

/// The events, once per item or part, whose `item_id` and `output_index` together tell where an
/// item streamed (the deltas are left out: a lookup per delta would cost more than it tells).
fn names_its_item(kind: &str) -> bool {
    matches!(
        kind,
        "response.content_part.added"
            | "response.content_part.done"
            | "response.output_text.done"
            | "response.refusal.done"
            | "response.function_call_arguments.done"
            | "response.reasoning_summary_part.added"
    )
}

/// A `u32` index for a position in a list (saturating: no list of 2^32 entries fits in memory).
fn position_index(position: usize) -> u32 {
    u32::try_from(position).unwrap_or(u32::MAX)
}

fn content_index(event: &Event<'_>) -> u32 {
    event
        .content_index
        .0
        .map_or(0, |index| u32::try_from(index).unwrap_or(u32::MAX))
}
