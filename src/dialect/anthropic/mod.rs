//! Anthropic Messages: `message_start`, `content_block_start/delta/stop`, `message_delta`,
//! `message_stop`, `ping` and `error` events, each naming its type in the JSON too.
//!
//! Content blocks are keyed by their `index`: each becomes a block of the message, in order.
//! Thinking keeps its signature (which `signature_delta` replaces, never appends) and redacted
//! thinking its opaque data, so the message can be sent back; citations become typed
//! annotations on their text block. A tool call is final at its block's `content_block_stop`.
//! Server-side tool blocks are not calls for the app to run: `server_tool_use` / `mcp_tool_use`
//! are server tool calls whose `input_json_delta`s stream like a client call's arguments, and
//! the `*_tool_result` blocks their results ([`server_tools`]); other new block types are kept
//! whole as non-standard blocks, as is a `compaction` block, whose summary its delta brings
//! ([`kept`]); `message_delta`'s `context_management` goes to the metadata.
//!
//! What the decoder holds between events — blocks kept whole, tool inputs a start carried — is
//! charged to the message budget as it comes ([`Delta::Held`]), and a block whose stop never
//! comes is ended at the stop reason, `message_stop` or the end of the input. An
//! `input_json_delta` for a block no start opened as a tool call is malformed: it would make a
//! call without a name. A whole non-streamed message (`{"type":"message"}`) reads as its
//! stream would (see [`body`]).

use std::collections::{HashMap, HashSet};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::decoder::DialectDecoder;
use super::payload::{keep_unknown, parse_payload};
use super::Dialect;
use crate::delta::{BlockKey, Delta, DeltaSink, Held, TextKind, ToolCallDelta};
use crate::error::Error;
use crate::error::{snippet, ErrorKind, ProviderError};
use crate::framing::Frame;

use kept::KeptBlock;
use payload::{BlockStart, Event, EventDelta};

mod body;
mod fast;
mod kept;
mod lifecycle;
mod payload;
mod server_tools;
mod unknown;

/// Anthropic sends one message per stream.
const CHOICE: u32 = 0;

/// What the dialect remembers between events.
#[derive(Debug, Default)]
pub(crate) struct AnthropicDecoder {
    /// The latest input counts, which `message_delta` may repeat only in part.
    input: InputCounts,
    /// Blocks kept whole until their stop, by index ([`kept`]).
    kept: HashMap<u32, KeptBlock>,
    /// Open `tool_use` blocks, the only ones besides opaque and server-tool blocks that take
    /// `input_json_delta`.
    tool_blocks: HashSet<u32>,
    /// Open `server_tool_use` / `mcp_tool_use` blocks.
    server_blocks: HashSet<u32>,
    /// Tool inputs that `content_block_start` carried, used if no `input_json_delta` follows:
    /// at the block's stop, or at the end of the message for a block never stopped.
    start_inputs: HashMap<u32, String>,
    /// Reused by the [`fast`] path for a fragment whose string has escapes.
    scratch: String,
    /// The id of the message a `message_start` opened ([`lifecycle`]).
    message_id: Option<String>,
    /// Messages that started while another was open, which a lenient read goes on with.
    messages_after_the_first: u32,
}

#[derive(Debug, Default, Clone, Copy)]
struct InputCounts {
    input: Option<u64>,
    cache_read: Option<u64>,
    cache_creation: Option<u64>,
}

impl AnthropicDecoder {
    /// Content blocks are keyed by their `index` within the message; only a second message a
    /// lenient read goes on with ([`lifecycle`]) gives its blocks keys of their own.
    fn block_key(&self, index: u32) -> BlockKey {
        BlockKey {
            item: index,
            part: self.messages_after_the_first,
        }
    }
}

impl DialectDecoder for AnthropicDecoder {
    const DIALECT: Dialect = Dialect::Anthropic;

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
        let event: Event<'_> = parse_payload::<Self, _>(frame, data)?;
        let index = event.index.unwrap_or(0);
        let key = self.block_key(index);
        unknown::keep_new_fields(event.kind.as_str(), data, sink)?;
        match event.kind.as_str() {
            "message_start" => self.message_start(event.message, sink),
            "content_block_start" => match event.content_block {
                Some(block) => self.block_start(index, key, block, sink),
                None => Ok(()),
            },
            "content_block_delta" => match event.delta {
                Some(delta)
                    if self.kept.contains_key(&index)
                        && delta.kind.as_str() != Some("input_json_delta") =>
                {
                    self.change_kept(index, data, sink)
                }
                Some(delta) if unknown::is_known_delta(delta.kind.as_str()) => {
                    self.block_delta(index, key, delta, sink)
                }
                Some(_) => keep_unknown::<Self>(frame, data, 0, sink),
                None => Ok(()),
            },
            "content_block_stop" => self.block_stop(index, sink),
            "message_delta" => {
                if let Some(value) = event.context_management {
                    sink.apply(Delta::Extra {
                        choice: None,
                        key: "context_management",
                        value,
                    })?;
                }
                self.message_delta(event.delta, event.usage, sink)
            }
            "message_stop" => {
                self.end_unstopped_blocks(sink)?;
                sink.apply(Delta::Done)
            }
            "message" => self.whole_message(frame, data, sink),
            "error" => {
                let value = serde_json::from_str(data).unwrap_or(Value::Null);
                sink.apply(Delta::Error(Box::new(ProviderError::from_value(value))))
            }
            "ping" => Ok(()),
            // Event types newer than this decoder.
            _ => keep_unknown::<Self>(frame, data, 0, sink),
        }
    }

    /// A block whose stop never came keeps what it holds (see `end_unstopped_blocks`).
    fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        self.end_unstopped_blocks(sink)
    }
}

/// The general path, one event type at a time.
impl AnthropicDecoder {
    fn block_start(
        &mut self,
        index: u32,
        key: BlockKey,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let block: BlockStart<'_> = serde_json::from_str(raw.get()).map_err(|error| {
            Error::new(
                ErrorKind::Malformed,
                format!("{error} in content block {}", snippet(raw.get())),
            )
        })?;
        let choice = CHOICE;
        match block.kind.as_str().unwrap_or_default() {
            "text" => {
                if let Some(text) = block.text.as_str() {
                    sink.apply(Delta::BlockText {
                        choice,
                        key,
                        kind: TextKind::Text,
                        text,
                    })?;
                }
                for citation in block.citations.into_iter().flatten() {
                    sink.apply(Delta::Annotation {
                        choice,
                        key: Some(key),
                        value: citation,
                    })?;
                }
                Ok(())
            }
            "thinking" => {
                if let Some(text) = block.thinking.as_str() {
                    sink.apply(Delta::BlockText {
                        choice,
                        key,
                        kind: TextKind::Reasoning,
                        text,
                    })?;
                }
                if let Some(signature) = block.signature.as_str() {
                    sink.apply(Delta::ReasoningSignature {
                        choice,
                        key: Some(key),
                        signature,
                    })?;
                }
                Ok(())
            }
            "redacted_thinking" => match block.data.as_str() {
                Some(data) => sink.apply(Delta::ReasoningData {
                    choice,
                    key: Some(key),
                    data,
                }),
                None => Ok(()),
            },
            "tool_use" => {
                self.tool_blocks.insert(index);
                if let Some(input) = block.input.map(RawValue::get) {
                    let trimmed = input.trim();
                    if trimmed != "{}" && trimmed != "null" && !trimmed.is_empty() {
                        sink.apply(Delta::Held(Held {
                            entries: 1,
                            bytes: trimmed.len(),
                        }))?;
                        self.start_inputs.insert(index, trimmed.to_owned());
                    }
                }
                sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice,
                    index: Some(index),
                    id: block.id.as_str(),
                    name: block.name.as_str(),
                    arguments: "",
                }))?;
                for (name, raw) in [
                    ("caller", block.caller),
                    ("toolset_name", block.toolset_name),
                ] {
                    if let Some(Ok(value)) = raw.map(|raw| serde_json::from_str::<Value>(raw.get()))
                    {
                        if !value.is_null() {
                            sink.apply(Delta::ToolCallExtra {
                                choice,
                                index: Some(index),
                                name,
                                value,
                            })?;
                        }
                    }
                }
                Ok(())
            }
            kind => self.other_block_start(index, key, kind, raw, sink),
        }
    }

    fn block_delta(
        &mut self,
        index: u32,
        key: BlockKey,
        delta: EventDelta<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let choice = CHOICE;
        match delta.kind.as_str().unwrap_or_default() {
            "text_delta" => match delta.text.as_str() {
                Some(text) => sink.apply(Delta::BlockText {
                    choice,
                    key,
                    kind: TextKind::Text,
                    text,
                }),
                None => Ok(()),
            },
            "thinking_delta" => match delta.thinking.as_str() {
                Some(text) => sink.apply(Delta::BlockText {
                    choice,
                    key,
                    kind: TextKind::Reasoning,
                    text,
                }),
                None => Ok(()),
            },
            "signature_delta" => match delta.signature.as_str() {
                Some(signature) => sink.apply(Delta::ReasoningSignature {
                    choice,
                    key: Some(key),
                    signature,
                }),
                None => Ok(()),
            },
            "input_json_delta" => {
                let fragment = delta.partial_json.as_str().unwrap_or_default();
                if self.server_blocks.contains(&index) {
                    return sink.apply(Delta::ServerToolArguments {
                        choice,
                        key,
                        fragment,
                    });
                }
                if let Some(kept) = self.kept.get_mut(&index) {
                    sink.apply(Delta::Held(Held {
                        entries: 0,
                        bytes: fragment.len(),
                    }))?;
                    kept.input_json.push_str(fragment);
                    return Ok(());
                }
                if !self.tool_blocks.contains(&index) {
                    return Err(orphan_input_json(index, fragment));
                }
                self.start_inputs.remove(&index);
                sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice,
                    index: Some(index),
                    id: None,
                    name: None,
                    arguments: fragment,
                }))
            }
            "citations_delta" => match delta.citation {
                Some(citation) => match serde_json::from_str(citation.get()) {
                    Ok(value) => sink.apply(Delta::Annotation {
                        choice,
                        key: Some(key),
                        value,
                    }),
                    Err(_) => Ok(()),
                },
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn block_stop(&mut self, index: u32, sink: &mut impl DeltaSink) -> Result<(), Error> {
        if self.server_blocks.remove(&index) {
            return sink.apply(Delta::ServerToolEnd {
                choice: CHOICE,
                key: self.block_key(index),
                args: None,
                extras: Map::new(),
            });
        }
        if let Some(ended) = self.end_kept(index, sink) {
            return ended;
        }
        self.tool_blocks.remove(&index);
        let start_input = self.start_inputs.remove(&index);
        sink.apply(Delta::ToolCallEnd {
            choice: CHOICE,
            index,
            arguments: start_input.as_deref(),
        })
    }

    /// Ends the blocks whose stop never came, so that nothing they hold is lost: the input a
    /// `tool_use` start carried, a block kept whole (in index order, so the result does not
    /// depend on hashing).
    fn end_unstopped_blocks(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        let mut open: Vec<u32> = self
            .start_inputs
            .keys()
            .chain(self.kept.keys())
            .chain(&self.server_blocks)
            .copied()
            .collect();
        open.sort_unstable();
        for index in open {
            self.block_stop(index, sink)?;
        }
        Ok(())
    }
}

/// An `input_json_delta` for a block that no `content_block_start` opened as a tool call (or as
/// a block kept whole): its call would have no name, so it is not one. A malformed event: an
/// error in strict mode, skipped with a warning in lenient mode.
fn orphan_input_json(index: u32, fragment: &str) -> Error {
    Error::new(
        ErrorKind::Malformed,
        format!(
            "input_json_delta for content block {index}, which no content_block_start opened \
             as a tool_use block ({})",
            snippet(fragment)
        ),
    )
}
