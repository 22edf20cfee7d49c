//! Cohere v2 chat streaming: `message-start`, `content-start/delta/end`, `tool-plan-delta`,
//! `tool-call-start/delta/end`, `citation-start/end` and `message-end` events, each naming its
//! type in the JSON too.
//!
//! Mapped as LangChain's `langchain-cohere` maps it: content is keyed by its `index` (text, or
//! `thinking` as a reasoning block); the tool plan — the model's note on which tools it will
//! call — is text of the message, in a block of its own before the content; a tool call is
//! keyed by its own `index` and final at its `tool-call-end`; `message-end` brings the finish
//! reason (`COMPLETE`, `TOOL_CALL`, `MAX_TOKENS`…) and the usage, whose counts are the `tokens`
//! the model consumed, as LangChain's `usage_metadata` reads a Cohere answer (the raw object keeps
//! `billed_units`); or an error, kept whole with its siblings.
//! A citation is one typed citation per source, on the text block its span is in ([`citations`]).

use serde_json::value::RawValue;
use serde_json::Value;

use super::decoder::DialectDecoder;
use super::payload::{keep_unknown, keep_unknown_members, parse_payload, Members};
use super::usage::UsageObject;
use super::Dialect;
use crate::delta::UsageReport;
use crate::delta::{BlockKey, Delta, DeltaSink, MetadataDelta, TextKind, ToolCallDelta};
use crate::error::Error;
use crate::error::ProviderError;
use crate::framing::Frame;

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

/// The members of a `message-end` that ends in an error, whose delta the error keeps whole.
const END_WITH_ERROR: Members<'static> = Members::flat(&["id", "type", "delta"]);

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
                if delta.error.as_str().is_some_and(|text| !text.is_empty()) {
                    // The error keeps its whole delta.
                    keep_unknown_members(data, &END_WITH_ERROR, None, sink)?;
                    return sink.apply(Delta::Error(Box::new(end_error(data))));
                }
                keep_unknown_members(data, &END, None, sink)?;
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

/// A count as Cohere sends it, a float (`10.0`): a whole number from 0 up, or none.
fn float_count(value: &str) -> Option<u64> {
    let number = serde_json::from_str::<f64>(value).ok()?;
    (number >= 0.0 && number.fract() == 0.0 && number < u64::MAX as f64).then_some(number as u64)
}

/// The error of a `message-end`: its `error` text is the message, and everything else its
/// `delta` carries (an `error_type`, the finish reason, the usage) stays in the error object, so
/// that `Error::provider_error()` and the error line show it; `error_type` is the error's type.
fn end_error(data: &str) -> ProviderError {
    let delta = match serde_json::from_str::<Value>(data) {
        Ok(Value::Object(mut event)) => event.remove("delta").unwrap_or(Value::Null),
        _ => Value::Null,
    };
    let kind = delta
        .get("error_type")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut error = ProviderError::from_value(delta);
    if error.kind.is_none() {
        error.kind = kind;
    }
    error
}

/// The usage of `message-end`: the `tokens` the model consumed, as LangChain's `usage_metadata`
/// reads a Cohere answer (`_get_usage_metadata_v2`) and proxies report it — not the
/// `billed_units`, which leave out the prompt Cohere adds (e.g. 65 in / 63 out billed where the
/// model read 508 and wrote 86); the billed units when no `tokens` came. `cached_tokens` (prompt
/// tokens that hit Cohere's cache) are cache reads.
fn usage(raw: &RawValue) -> Option<UsageReport<'_>> {
    let usage = UsageObject::parse(raw.get())?;
    let counts = ["tokens", "billed_units"].into_iter().find(|key| {
        usage
            .member(&[key])
            .is_some_and(|value| value.starts_with('{'))
    });
    let count = |key: &str| float_count(usage.member(&[counts?, key])?);
    let counts = UsageReport {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_read: usage.member(&["cached_tokens"]).and_then(float_count),
        ..UsageReport::default()
    };
    Some(usage.into_report(counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(json: &str) -> (Option<u64>, Option<u64>, Option<u64>) {
        let raw: Box<RawValue> = serde_json::from_str(json).unwrap();
        let report = usage(&raw).unwrap();
        (report.input_tokens, report.output_tokens, report.cache_read)
    }

    #[test]
    fn usage_counts_the_tokens_consumed_and_falls_back_to_the_billed_units() {
        let both = r#"{"billed_units":{"input_tokens":65,"output_tokens":63},
            "tokens":{"input_tokens":508.0,"output_tokens":86.0},"cached_tokens":448.0}"#;
        assert_eq!(counts(both), (Some(508), Some(86), Some(448)));
        let billed = r#"{"billed_units":{"input_tokens":65,"output_tokens":63}}"#;
        assert_eq!(counts(billed), (Some(65), Some(63), None));
        let odd = r#"{"tokens":{"input_tokens":-1.0,"output_tokens":2.5},"cached_tokens":"3"}"#;
        assert_eq!(counts(odd), (None, None, None));
    }
}
