//! Cohere v2 chat streaming: `message-start`, `content-start/delta/end`, `tool-plan-delta`,
//! `tool-call-start/delta/end`, `citation-start/end` and `message-end` events, each naming its
//! type in the JSON too.
//!
//! Mapped as LangChain's `langchain-cohere` maps it: content is keyed by its `index` (text, or
//! `thinking` as a reasoning block); the tool plan — the model's note on which tools it will
//! call — is text of the message, in a block of its own before the content; a tool call is
//! keyed by its own `index` and final at its `tool-call-end`; `message-end` brings the finish
//! reason (`COMPLETE`, `TOOL_CALL`, `MAX_TOKENS`…) and the usage, whose counts are the billed
//! units as LangChain's stream reports them (the raw object keeps `tokens` and `cached_tokens`).
//! A citation is one typed citation per source, on the text block its span is in ([`citations`]).

use serde_json::value::RawValue;
use serde_json::Value;

use super::decoder::DialectDecoder;
use super::payload::{keep_unknown, keep_unknown_members, parse_payload, Members};
use super::usage::UsageObject;
use super::Dialect;
use crate::delta::UsageReport;
use crate::delta::{BlockKey, Delta, DeltaSink, MetadataDelta, TextKind, ToolCallDelta};
use crate::error::ProviderError;
use crate::framing::Frame;
use crate::Error;

use payload::{Event, MessageDelta};

mod citations;
mod fast;
mod payload;

/// Cohere sends one message per stream.
const CHOICE: u32 = 0;

/// The tool plan's block: part 1 of item 0, a key no content index takes (content is part 0).
const TOOL_PLAN: BlockKey = BlockKey { item: 0, part: 1 };

/// The members of `message-end` the dialect reads: any other is kept in `response_metadata`.
const END: Members<'static> = Members {
    known: &["id", "type"],
    nested: &[("delta", Members::flat(&["finish_reason", "usage", "error"]))],
};

/// What the dialect remembers between events.
#[derive(Debug, Default)]
pub(crate) struct CohereDecoder {
    /// The text block last written, which a citation annotates.
    last_text: Option<BlockKey>,
    /// Reused by the [`fast`] path for a fragment whose string has escapes.
    scratch: String,
}

/// Content is keyed by its `index` alone.
fn content_key(index: u32) -> BlockKey {
    BlockKey {
        item: index,
        part: 0,
    }
}

impl DialectDecoder for CohereDecoder {
    const DIALECT: Dialect = Dialect::Cohere;

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
        let delta = event.delta.unwrap_or_default();
        let message = delta.message.unwrap_or_default();
        match event.kind.as_str() {
            "message-start" => {
                keep_unknown_members(data, &Members::flat(&["id", "type", "delta"]), None, sink)?;
                sink.apply(Delta::Metadata(MetadataDelta {
                    id: event.id.as_str(),
                    ..MetadataDelta::default()
                }))?;
                sink.apply(Delta::Choice { choice: CHOICE })
            }
            "content-start" | "content-delta" => self.content(index, message, sink),
            "tool-plan-delta" => match message.tool_plan.as_str() {
                Some(text) if !text.is_empty() => self.text(TOOL_PLAN, TextKind::Text, text, sink),
                _ => Ok(()),
            },
            "tool-call-start" | "tool-call-delta" => {
                let Some(call) = message.tool_calls.0 else {
                    return Ok(());
                };
                let function = call.function.unwrap_or_default();
                sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice: CHOICE,
                    index: Some(index),
                    id: call.id.as_str(),
                    name: function.name.as_str(),
                    arguments: function.arguments.as_str().unwrap_or_default(),
                }))
            }
            "tool-call-end" => sink.apply(Delta::ToolCallEnd {
                choice: CHOICE,
                index,
                arguments: None,
            }),
            "citation-start" => match message.citations {
                Some(raw) => self.citation(raw.get(), sink),
                None => Ok(()),
            },
            "message-end" => {
                keep_unknown_members(data, &END, None, sink)?;
                if let Some(message) = delta.error.as_str().filter(|text| !text.is_empty()) {
                    let error = serde_json::json!({ "message": message });
                    return sink.apply(Delta::Error(Box::new(ProviderError::from_value(error))));
                }
                if let Some(usage) = delta.usage.and_then(usage) {
                    sink.apply(Delta::Usage(Box::new(usage)))?;
                }
                sink.apply(Delta::Finish {
                    choice: CHOICE,
                    reason: delta.finish_reason.as_str().unwrap_or("COMPLETE"),
                })?;
                sink.apply(Delta::Done)
            }
            "content-end" | "citation-end" | "debug" => Ok(()),
            // Event types newer than this decoder.
            _ => keep_unknown::<Self>(frame, data, CHOICE, sink),
        }
    }
}

impl CohereDecoder {
    fn content(
        &mut self,
        index: u32,
        message: MessageDelta<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Some(content) = message.content.0 else {
            return Ok(());
        };
        let key = content_key(index);
        if let Some(text) = content.thinking.as_str().filter(|text| !text.is_empty()) {
            sink.apply(Delta::BlockText {
                choice: CHOICE,
                key,
                kind: TextKind::Reasoning,
                text,
            })?;
        }
        match content.text.as_str() {
            Some(text) if !text.is_empty() => self.text(key, TextKind::Text, text, sink),
            _ => Ok(()),
        }
    }

    /// A `citation-start`: typed citations on the block its span is in (the tool plan's for a
    /// `PLAN` citation, the one `content_index` names, else the text block last written).
    fn citation(&mut self, raw: &str, sink: &mut impl DeltaSink) -> Result<(), Error> {
        let Ok(value) = serde_json::from_str::<Value>(raw) else {
            return Ok(());
        };
        let key = match (
            value.get("type").and_then(Value::as_str),
            value.get("content_index").and_then(Value::as_u64),
        ) {
            (Some("PLAN"), _) => Some(TOOL_PLAN),
            (_, Some(index)) => u32::try_from(index).ok().map(content_key),
            _ => self.last_text,
        };
        for citation in citations::citations(value) {
            sink.apply(Delta::Annotation {
                choice: CHOICE,
                key,
                value: citation.to_annotation(),
            })?;
        }
        Ok(())
    }

    fn text(
        &mut self,
        key: BlockKey,
        kind: TextKind,
        text: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        self.last_text = Some(key);
        sink.apply(Delta::BlockText {
            choice: CHOICE,
            key,
            kind,
            text,
        })
    }
}

/// The usage of `message-end`, as LangChain's stream reports it: the billed units (the `tokens`
/// the model processed when no billed units came).
fn usage(raw: &RawValue) -> Option<UsageReport<'_>> {
    let usage = UsageObject::parse(raw.get())?;
    let counts = ["billed_units", "tokens"].into_iter().find(|key| {
        usage
            .member(&[key])
            .is_some_and(|value| value.starts_with('{'))
    });
    // Cohere sends its counts as floats (`10.0`).
    let count = |key: &str| {
        let value = usage.member(&[counts?, key])?;
        serde_json::from_str::<f64>(value).ok().map(|n| n as u64)
    };
    let counts = UsageReport {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        ..UsageReport::default()
    };
    Some(usage.into_report(counts))
}
