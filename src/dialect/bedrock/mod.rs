//! AWS Bedrock, over its binary event stream: `ConverseStream` (`messageStart`,
//! `contentBlockStart/Delta/Stop`, `messageStop`, `metadata`, and exception messages) and
//! `InvokeModelWithResponseStream` for Anthropic models (`chunk` messages, each holding one
//! Anthropic Messages event in base64).
//!
//! One dialect reads both, since one stream can only be one of them and the message name tells
//! which: a `chunk`'s event is decoded and handed to the [Anthropic](super::anthropic) decoder,
//! which this dialect keeps for the stream. Converse content blocks are keyed by
//! `contentBlockIndex`; text comes without a `contentBlockStart`, a tool use starts with one (its
//! id and name) and is final at its `contentBlockStop`. `messageStop` comes before `metadata` (the
//! usage): the stop finishes the choice, so a stream cut after it is still complete. Payloads read
//! as the SDKs log them — `{"contentBlockDelta": {…}}`, one per NDJSON line — are read too. A
//! `citation` delta is a typed citation on its text block ([`citation`]); the usage is counted in
//! [`usage_counts`]. Nova's system tools (`toolUse` of `type: server_tool_use`, `toolResult`
//! blocks) are server tool calls and results ([`server_tools`]), an `image` block an image
//! ([`image`]). An exception message (`throttlingException`, `modelStreamErrorException`, …) is a
//! provider error whose type is the exception's name.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;
use serde_json::Value;

use super::anthropic::AnthropicDecoder;
use super::decoder::DialectDecoder;
use super::payload::{
    keep_members, keep_unknown_members, parse_payload, skip_unless_foreign, Members,
};
use super::Dialect;
use crate::delta::{BlockKey, Delta, DeltaSink, TextKind, ToolCallDelta};
use crate::error::Error;
use crate::error::{snippet, ErrorKind, ProviderError};
use crate::framing::Frame;

use citation::converse_citation;
use image::PendingImage;
use payload::{BlockDelta, BlockEvent, Chunk, MessageStop, Metadata};
use server_tools::PendingResult;
use usage_counts::usage;

mod base64;
mod citation;
mod fast;
mod image;
mod payload;
mod server_tools;
mod usage_counts;

/// Bedrock sends one message per stream.
const CHOICE: u32 = 0;

/// What the dialect remembers between events.
#[derive(Debug, Default)]
pub(crate) struct BedrockDecoder {
    /// The blocks a `contentBlockStart` opened as tool uses, ended by their stop.
    tool_blocks: Vec<u32>,
    /// The blocks opened as server tool calls (Nova's system tools, [`server_tools`]).
    server_blocks: Vec<u32>,
    /// Server tool results and images, held until their block stops.
    results: HashMap<u32, PendingResult>,
    images: HashMap<u32, PendingImage>,
    /// The decoder of the Anthropic events `InvokeModelWithResponseStream` wraps.
    anthropic: AnthropicDecoder,
    /// The last `chunk` decoded from base64, reused for the next.
    chunk: Vec<u8>,
    /// Reused by the [`fast`] path for a text with escapes.
    scratch: String,
}

/// Content blocks are keyed by their `contentBlockIndex` alone.
fn block_key(index: u32) -> BlockKey {
    BlockKey {
        item: index,
        part: 0,
    }
}

/// The names of exception messages: `throttlingException`, `validationException`, …
fn is_exception(name: &str) -> bool {
    name.ends_with("Exception")
}

impl DialectDecoder for BedrockDecoder {
    const DIALECT: Dialect = Dialect::Bedrock;

    const PAYLOAD_NAME: &'static str = "event";

    fn decode_control(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        let name = frame.event.filter(|name| is_exception(name))?;
        Some(exception(name, data, sink))
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
        if let Some(name) = frame.event {
            return self.event(frame, name, data, sink);
        }
        // The shape the SDKs log: the event's name wraps its payload.
        let wrapped: BTreeMap<String, &RawValue> = parse_payload::<Self, _>(frame, data)?;
        let mut members = wrapped.iter();
        match (members.next(), members.next()) {
            (Some((name, _)), None) if is_exception(name) => exception(name, data, sink),
            (Some((name, inner)), None) => self.event(frame, name, inner.get(), sink),
            _ => skip_unless_foreign::<Self>(frame),
        }
    }

    /// Blocks whose stop never came keep what they hold; so do the Anthropic events'.
    fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        self.end_unstopped_blocks(sink)?;
        self.anthropic.end(sink)
    }
}

/// The general path, one event at a time.
impl BedrockDecoder {
    fn event(
        &mut self,
        frame: &Frame<'_>,
        name: &str,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        match name {
            "messageStart" => {
                keep_unknown_members(data, &Members::flat(&["role", "p"]), None, sink)?;
                sink.apply(Delta::Choice { choice: CHOICE })
            }
            "contentBlockStart" | "contentBlockDelta" | "contentBlockStop" => {
                let event: BlockEvent<'_> = parse_payload::<Self, _>(frame, data)?;
                let index = event.content_block_index.unwrap_or(0);
                match name {
                    "contentBlockStart" => self.block_start(index, event, sink),
                    "contentBlockDelta" => match event.delta {
                        Some(delta) => self.delta(index, delta, sink),
                        None => Ok(()),
                    },
                    _ => self.block_stop(index, sink),
                }
            }
            "messageStop" => {
                let stop: MessageStop<'_> = parse_payload::<Self, _>(frame, data)?;
                let known = ["stopReason", "additionalModelResponseFields", "p"];
                keep_unknown_members(data, &Members::flat(&known), None, sink)?;
                self.end_unstopped_blocks(sink)?;
                if let Some(value) = stop.additional_model_response_fields {
                    sink.apply(Delta::Extra {
                        choice: None,
                        key: "additionalModelResponseFields",
                        value,
                    })?;
                }
                sink.apply(Delta::Finish {
                    choice: CHOICE,
                    reason: stop.stop_reason.as_str().unwrap_or("end_turn"),
                })
            }
            "metadata" => {
                let metadata: Metadata<'_> = parse_payload::<Self, _>(frame, data)?;
                let known = [
                    "usage",
                    "metrics",
                    "trace",
                    "performanceConfig",
                    "serviceTier",
                    "p",
                ];
                keep_unknown_members(data, &Members::flat(&known), None, sink)?;
                if let Some(usage) = metadata.usage.and_then(usage) {
                    sink.apply(Delta::Usage(Box::new(usage)))?;
                }
                keep_members(
                    None,
                    [
                        ("metrics", metadata.metrics),
                        ("trace", metadata.trace),
                        ("performanceConfig", metadata.performance_config),
                        ("serviceTier", metadata.service_tier),
                    ],
                    sink,
                )?;
                Ok(())
            }
            "chunk" => self.chunk(frame, data, sink),
            // Event types newer than this decoder: kept whole, under their name.
            _ => {
                skip_unless_foreign::<Self>(frame)?;
                match serde_json::from_str::<Value>(data) {
                    Ok(value) => sink.apply(Delta::NonStandard {
                        choice: CHOICE,
                        value: serde_json::json!({ name: value }),
                    }),
                    Err(_) => Ok(()),
                }
            }
        }
    }

    fn block_start(
        &mut self,
        index: u32,
        event: BlockEvent<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Some(start) = event.start else {
            return Ok(());
        };
        if let Some(raw) = start.tool_result {
            return self.result_start(index, raw, sink);
        }
        if let Some(raw) = start.image {
            return self.image_piece(index, raw, sink);
        }
        let Some(tool) = start.tool_use else {
            return Ok(());
        };
        let (id, name) = (tool.tool_use_id.as_str(), tool.name.as_str());
        if tool.kind.as_str() == Some("server_tool_use") {
            return self.server_call_start(
                index,
                id.unwrap_or_default(),
                name.unwrap_or_default(),
                sink,
            );
        }
        if !self.tool_blocks.contains(&index) {
            self.tool_blocks.push(index);
        }
        sink.apply(Delta::ToolCall(ToolCallDelta {
            choice: CHOICE,
            index: Some(index),
            id,
            name,
            arguments: "",
        }))
    }

    /// One `contentBlockDelta` of the general path: a server call's input, a piece of a
    /// result or an image here, the rest as [`block_delta`] reads it.
    fn delta(
        &mut self,
        index: u32,
        mut delta: BlockDelta<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if self.server_blocks.contains(&index) {
            if let Some(tool) = delta.tool_use.take() {
                sink.apply(Delta::ServerToolArguments {
                    choice: CHOICE,
                    key: block_key(index),
                    fragment: tool.input.as_str().unwrap_or_default(),
                })?;
            }
        }
        if let Some(raw) = delta.tool_result.take() {
            self.result_delta(index, raw, sink)?;
        }
        if let Some(raw) = delta.image.take() {
            self.image_piece(index, raw, sink)?;
        }
        block_delta(index, delta, sink)
    }

    fn block_stop(&mut self, index: u32, sink: &mut impl DeltaSink) -> Result<(), Error> {
        if let Some(ended) = self.end_server_block(index, sink) {
            return ended;
        }
        if let Some(ended) = self.end_image(index, sink) {
            return ended;
        }
        let Some(position) = self.tool_blocks.iter().position(|&open| open == index) else {
            return Ok(());
        };
        self.tool_blocks.swap_remove(position);
        sink.apply(Delta::ToolCallEnd {
            choice: CHOICE,
            index,
            arguments: None,
        })
    }

    /// Ends the server tool calls, results and images whose stop never came (at `messageStop`
    /// or the end of the input), in index order, so that nothing they hold is lost.
    fn end_unstopped_blocks(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        let mut open: Vec<u32> = self
            .server_blocks
            .iter()
            .chain(self.results.keys())
            .chain(self.images.keys())
            .copied()
            .collect();
        open.sort_unstable();
        for index in open {
            self.block_stop(index, sink)?;
        }
        Ok(())
    }

    /// `InvokeModelWithResponseStream`: the base64 in `{"bytes": …}` is one Anthropic event.
    fn chunk(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let chunk: Chunk<'_> = parse_payload::<Self, _>(frame, data)?;
        let encoded = chunk.bytes.as_str().unwrap_or_default();
        let malformed = |what: String| {
            Error::new(
                ErrorKind::Malformed,
                format!("{what} in the bytes of chunk {}", snippet(data)),
            )
        };
        base64::decode_into(encoded, &mut self.chunk)
            .map_err(|at| malformed(format!("invalid base64 at character {at}")))?;
        let event = std::str::from_utf8(&self.chunk)
            .map_err(|error| malformed(format!("invalid UTF-8 ({error})")))?;
        let inner = Frame {
            event: None,
            data: event,
            ..*frame
        };
        self.anthropic.decode(&inner, sink)
    }
}

/// One `contentBlockDelta`: what it adds to block `index`. Empty text adds nothing (Bedrock
/// sends an empty delta before a reasoning signature, and empty trailing blocks).
fn block_delta(index: u32, delta: BlockDelta<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let key = block_key(index);
    let choice = CHOICE;
    if let Some(text) = delta.text.as_str().filter(|text| !text.is_empty()) {
        sink.apply(Delta::BlockText {
            choice,
            key,
            kind: TextKind::Text,
            text,
        })?;
    }
    if let Some(tool) = delta.tool_use {
        sink.apply(Delta::ToolCall(ToolCallDelta {
            choice,
            index: Some(index),
            id: None,
            name: None,
            arguments: tool.input.as_str().unwrap_or_default(),
        }))?;
    }
    if let Some(reasoning) = delta.reasoning_content {
        if let Some(text) = reasoning.text.as_str().filter(|text| !text.is_empty()) {
            sink.apply(Delta::BlockText {
                choice,
                key,
                kind: TextKind::Reasoning,
                text,
            })?;
        }
        if let Some(signature) = reasoning.signature.as_str() {
            sink.apply(Delta::ReasoningSignature {
                choice,
                key: Some(key),
                signature,
            })?;
        }
        if let Some(data) = reasoning.redacted_content.as_str() {
            sink.apply(Delta::ReasoningData {
                choice,
                key: Some(key),
                data,
            })?;
        }
    }
    if let Some(citation) = delta.citation {
        if let Ok(Value::Object(citation)) = serde_json::from_str(citation.get()) {
            sink.apply(Delta::Annotation {
                choice,
                key: Some(key),
                value: converse_citation(citation).to_annotation(),
            })?;
        }
    }
    Ok(())
}

/// An exception message: a provider error typed by the exception's name, whose message is the
/// payload's `message` (the payload itself when it is not JSON, the name when it is empty).
fn exception(name: &str, data: &str, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let value = match data.trim() {
        "" => Value::String(name.to_owned()),
        text => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())),
    };
    let mut error = ProviderError::from_value(value);
    error.kind = Some(name.to_owned());
    sink.apply(Delta::Error(Box::new(error)))
}
