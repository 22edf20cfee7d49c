//! Ollama's native `/api/chat` (and `/api/generate`): newline-delimited JSON, one object per
//! line, `message.content` / `message.thinking` appending (`response` / `thinking` for
//! `/api/generate`), `message.tool_calls` whole (ids generated when absent), and a last line with
//! `done: true`, `done_reason`, `prompt_eval_count`, `eval_count` and timings. A stream that ends
//! before `done: true` is truncated.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::detect;
use super::lenient::{LenientCount, LenientText};
use super::Dialect;
use crate::assemble::delta::{Delta, DeltaSink, MetadataDelta};
use crate::error::{snippet, ErrorKind, ProviderError};
use crate::message::UsageReport;
use crate::sse::Frame;
use crate::Error;

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

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    model: LenientText<'a>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    response: LenientText<'a>,
    #[serde(borrow, default)]
    thinking: LenientText<'a>,
    #[serde(default)]
    done: Option<bool>,
    #[serde(borrow, default)]
    done_reason: LenientText<'a>,
    #[serde(default)]
    prompt_eval_count: LenientCount,
    #[serde(default)]
    eval_count: LenientCount,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    created_at: Option<&'a RawValue>,
    #[serde(borrow, default)]
    context: Option<&'a RawValue>,
    #[serde(borrow, default)]
    total_duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    load_duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    prompt_eval_duration: Option<&'a RawValue>,
    #[serde(borrow, default)]
    eval_duration: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    content: LenientText<'a>,
    #[serde(borrow, default)]
    thinking: LenientText<'a>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
}

#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow, default)]
    id: LenientText<'a>,
    #[serde(borrow, default)]
    function: Option<Function<'a>>,
}

#[derive(Deserialize)]
struct Function<'a> {
    #[serde(borrow, default)]
    name: LenientText<'a>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

pub(crate) fn decode(frame: &Frame<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let data = frame.data.trim_ascii();
    if data.is_empty() {
        return Ok(());
    }
    let line: Line<'_> = match serde_json::from_str(data) {
        Ok(line) => line,
        Err(error) => {
            if let Some(mismatch) = detect::foreign_payload(Dialect::Ollama, frame) {
                return Err(mismatch);
            }
            return Err(Error::new(
                ErrorKind::Malformed,
                format!("{error} in line {}", snippet(data)),
            )
            .with_source(error));
        }
    };
    if let Some(error) = line.error {
        let value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
        return sink.apply(Delta::Error(ProviderError::from_value(value)));
    }
    let recognised = line.done.is_some()
        || line.message.is_some()
        || line.model.as_str().is_some()
        || line.response.as_str().is_some();
    if !recognised {
        return match detect::foreign_payload(Dialect::Ollama, frame) {
            Some(mismatch) => Err(mismatch),
            None => Ok(()),
        };
    }
    sink.apply(Delta::Metadata(MetadataDelta {
        model: line.model.as_str(),
        ..MetadataDelta::default()
    }))?;
    sink.apply(Delta::Choice { choice: CHOICE })?;
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
        let mut raw = serde_json::Map::new();
        for (key, count) in [
            ("prompt_eval_count", line.prompt_eval_count.0),
            ("eval_count", line.eval_count.0),
        ] {
            if let Some(count) = count {
                raw.insert(key.to_owned(), count.into());
            }
        }
        let usage = UsageReport {
            input_tokens: line.prompt_eval_count.0,
            output_tokens: line.eval_count.0,
            raw: Some(raw),
            ..UsageReport::default()
        };
        if !usage.is_empty() {
            sink.apply(Delta::Usage(usage))?;
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

/// The arguments as JSON text: the object as sent, or the text of a JSON string that holds it.
fn arguments_text(raw: Option<&RawValue>) -> std::borrow::Cow<'_, str> {
    match raw.map(RawValue::get) {
        None | Some("null") => "".into(),
        Some(text) if text.starts_with('"') => serde_json::from_str::<String>(text)
            .map_or_else(|_| text.into(), std::borrow::Cow::Owned),
        Some(text) => text.into(),
    }
}
