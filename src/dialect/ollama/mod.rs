//! Ollama's native `/api/chat` (and `/api/generate`): newline-delimited JSON, one object per
//! line, `message.content` / `message.thinking` appending (`response` / `thinking` for
//! `/api/generate`), `message.tool_calls` whole (ids generated when absent), and a last line with
//! `done: true`, `done_reason`, `prompt_eval_count`, `eval_count` and timings. A stream that ends
//! before `done: true` is truncated.

use serde_json::value::RawValue;
use serde_json::Value;

use super::decoder::DialectDecoder;
use super::payload::{keep_unknown_members, parse_payload, skip_unless_foreign, Members};
use super::Dialect;
use crate::delta::{Delta, DeltaSink, MetadataDelta};
use crate::delta::{RawUsage, Scalar, UsageReport};
use crate::error::Error;
use crate::error::ProviderError;
use crate::framing::Frame;

use payload::Line;

mod fast;
mod payload;

/// One answer per request.
const CHOICE: u32 = 0;

/// Fields kept as they are, beside the mapped ones (`context` is `/api/generate`'s conversation
/// state, needed to continue it).
const KEPT: [&str; 6] = [
    "created_at",
    "context",
    "total_duration",
    "load_duration",
    "prompt_eval_duration",
    "eval_duration",
];

/// The members of a line the dialect reads (`role` is always the assistant's): any other is kept
/// in `response_metadata`.
const LINE: Members<'static> = Members {
    known: &[
        "model",
        "message",
        "response",
        "thinking",
        "done",
        "done_reason",
        "prompt_eval_count",
        "eval_count",
        "error",
        "created_at",
        "context",
        "total_duration",
        "load_duration",
        "prompt_eval_duration",
        "eval_duration",
    ],
    nested: &[(
        "message",
        Members::flat(&["role", "content", "thinking", "tool_calls"]),
    )],
};

/// What the dialect keeps between lines: buffers for the [`fast`] path's texts with escapes.
#[derive(Debug, Default)]
pub(crate) struct OllamaDecoder {
    content: String,
    thinking: String,
}

impl DialectDecoder for OllamaDecoder {
    const DIALECT: Dialect = Dialect::Ollama;

    /// One JSON object a line: errors quote the line.
    const PAYLOAD_NAME: &'static str = "line";

    fn decode_fast(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        fast::decode(self, frame, data, sink)
    }

    /// Decodes a line of any shape, and reports what is wrong with one that is malformed.
    fn decode_general(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let line: Line<'_> = parse_payload::<Self, _>(frame, data)?;
        if let Some(error) = line.error {
            let value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
            return sink.apply(Delta::Error(Box::new(ProviderError::from_value(value))));
        }
        let recognised = line.done.is_some()
            || line.message.is_some()
            || line.model.as_str().is_some()
            || line.response.as_str().is_some();
        if !recognised {
            return skip_unless_foreign::<Self>(frame);
        }
        sink.apply(Delta::Metadata(MetadataDelta {
            model: line.model.as_str(),
            ..MetadataDelta::default()
        }))?;
        sink.apply(Delta::Choice { choice: CHOICE })?;
        // Fields added to a line or its message (the fast path leaves such lines to this one).
        keep_unknown_members(data, &LINE, None, sink)?;
        for (key, value) in KEPT.into_iter().zip([
            line.created_at,
            line.context,
            line.total_duration,
            line.load_duration,
            line.prompt_eval_duration,
            line.eval_duration,
        ]) {
            if let Some(value) = value {
                sink.apply(Delta::Extra {
                    choice: None,
                    key,
                    value,
                })?;
            }
        }
        let (thinking, content) = match &line.message {
            Some(message) => (&message.thinking, &message.content),
            None => (&line.thinking, &line.response),
        };
        if let Some(text) = thinking.as_str() {
            sink.apply(Delta::Reasoning {
                choice: CHOICE,
                text,
            })?;
        }
        if let Some(text) = content.as_str() {
            sink.apply(Delta::Text {
                choice: CHOICE,
                text,
            })?;
        }
        let calls = line
            .message
            .as_ref()
            .and_then(|message| message.tool_calls.as_ref());
        for call in calls.into_iter().flatten() {
            let function = call.function.as_ref();
            let arguments = arguments_text(function.and_then(|function| function.arguments));
            sink.apply(Delta::WholeToolCall {
                choice: CHOICE,
                id: call.id.as_str(),
                name: function
                    .and_then(|function| function.name.as_str())
                    .unwrap_or_default(),
                arguments: &arguments,
            })?;
        }
        if line.done == Some(true) {
            let counts = [
                ("prompt_eval_count", line.prompt_eval_count.0),
                ("eval_count", line.eval_count.0),
            ];
            let raw: Vec<(&str, Scalar<'_>)> = counts
                .into_iter()
                .filter_map(|(key, count)| Some((key, Scalar::Count(count?))))
                .collect();
            let usage = UsageReport {
                input_tokens: line.prompt_eval_count.0,
                output_tokens: line.eval_count.0,
                raw: Some(RawUsage::Scalars(&raw)),
                ..UsageReport::default()
            };
            if !usage.is_empty() {
                sink.apply(Delta::Usage(Box::new(usage)))?;
            }
            if let Some(reason) = line.done_reason.as_str() {
                sink.apply(Delta::Finish {
                    choice: CHOICE,
                    reason,
                })?;
            }
            sink.apply(Delta::Done)?;
        }
        Ok(())
    }
}

/// The arguments as JSON text: the object as sent, or the text of a JSON string that holds it.
fn arguments_text(raw: Option<&RawValue>) -> std::borrow::Cow<'_, str> {
    match raw.map(RawValue::get) {
        None | Some("null") => "".into(),
        Some(text) if text.starts_with('"') => serde_json::from_str::<String>(text)
            .map_or_else(|_| text.into(), std::borrow::Cow::Owned),
        Some(text) => text.into(),
    }
}
