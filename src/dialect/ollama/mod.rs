//! Ollama's native `/api/chat` (and `/api/generate`): newline-delimited JSON, one object per
//! line, `message.content` / `message.thinking` appending (`response` / `thinking` for
//! `/api/generate`), `message.tool_calls` whole (ids generated when absent), and a last line with
//! `done: true`, `done_reason`, `prompt_eval_count`, `eval_count` and timings. A stream that ends
//! before `done: true` is truncated.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::cursor::{for_each_member, set_once, Cursor, Scanned};
use super::detect;
use super::lenient::{LenientCount, LenientText};
use super::Dialect;
use crate::delta::{Delta, DeltaSink, MetadataDelta};
use crate::delta::{RawUsage, UsageReport};
use crate::error::{snippet, ErrorKind, ProviderError};
use crate::framing::Frame;
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

/// What the dialect keeps between lines: buffers for the text of lines with escapes.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    content: String,
    thinking: String,
}

impl Decoder {
    /// Decodes one payload (`data`: trimmed, not empty).
    pub(crate) fn decode(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        match plain_line(data, &mut self.content, &mut self.thinking) {
            Some(line) => line.decode(sink),
            None => decode_any(frame, data, sink),
        }
    }
}

/// Decodes a line of any shape, and reports what is wrong with one that is malformed.
fn decode_any(frame: &Frame<'_>, data: &str, sink: &mut impl DeltaSink) -> Result<(), Error> {
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
            raw: Some(RawUsage::Object(raw)),
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

/// The shape of every line but the last: `model`, `created_at`, `done: false`, and the new text
/// under `message` (`/api/chat`: `role`, `content`, `thinking`) or at the top (`/api/generate`:
/// `response`, `thinking`), in any order.
///
/// Anything else — `done: true`, counts, tool calls, an error, a repeated member, `null`, an
/// escape in `model`, text both in `message` and at the top — and [`plain_line`] gives up: the
/// general path ([`decode_any`]) reads the line instead; so this path only ever sees lines the
/// general path decodes into the very same deltas, and every error comes from the general path.
struct PlainLine<'a> {
    model: Option<&'a str>,
    created_at: Option<&'a RawValue>,
    thinking: Option<&'a str>,
    content: Option<&'a str>,
}

impl PlainLine<'_> {
    /// The deltas [`decode_any`] applies for the same line, in the same order.
    fn decode(self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            model: self.model,
            ..MetadataDelta::default()
        }))?;
        sink.apply(Delta::Choice { choice: CHOICE })?;
        if let Some(value) = self.created_at {
            sink.apply(Delta::Extra {
                choice: None,
                key: "created_at",
                value,
            })?;
        }
        if let Some(text) = self.thinking {
            sink.apply(Delta::Reasoning {
                choice: CHOICE,
                text,
            })?;
        }
        match self.content {
            Some(text) => sink.apply(Delta::Text {
                choice: CHOICE,
                text,
            }),
            None => Ok(()),
        }
    }
}

/// Reads a [`PlainLine`] with the strict reader; `None` when the line is not one. Escaped
/// texts are decoded into the two buffers.
fn plain_line<'a>(
    data: &'a str,
    content: &'a mut String,
    thinking: &'a mut String,
) -> Option<PlainLine<'a>> {
    let mut cursor = Cursor::new(data);
    let (mut model, mut created_at, mut done, mut message) = (None, None, None, None);
    let (mut response, mut top_thinking) = (None, None);
    for_each_member(&mut cursor, |cursor, key| match key {
        "model" => set_once(&mut model, cursor.plain_string()?),
        "created_at" => set_once(&mut created_at, cursor.scalar_literal()?),
        "done" => set_once(&mut done, cursor.eat("false").then_some(())?),
        "message" => {
            let (mut text, mut thought) = (None, None);
            for_each_member(cursor, |cursor, key| match key {
                "role" => cursor.skip_value(),
                "content" => set_once(&mut text, cursor.string(content)?),
                "thinking" => set_once(&mut thought, cursor.string(thinking)?),
                _ => None,
            })?;
            set_once(&mut message, (text, thought))
        }
        "response" => set_once(&mut response, cursor.string(content)?),
        "thinking" => set_once(&mut top_thinking, cursor.string(thinking)?),
        _ => None,
    })?;
    let top_level_text = response.is_some() || top_thinking.is_some();
    let recognised = model.is_some() || message.is_some() || done.is_some() || response.is_some();
    // Text in both places shares the buffers; the general path reads it (`message` wins).
    if !cursor.at_end() || !recognised || (message.is_some() && top_level_text) {
        return None;
    }
    let created_at = match created_at {
        Some(literal) => Some(serde_json::from_str::<&RawValue>(literal).ok()?),
        None => None,
    };
    let (content, thinking): (&'a String, &'a String) = (content, thinking);
    let (text, thought) = message.unwrap_or((response, top_thinking));
    Some(PlainLine {
        model,
        created_at,
        thinking: thought.map(|scanned: Scanned<'a>| scanned.resolve(thinking)),
        content: text.map(|scanned: Scanned<'a>| scanned.resolve(content)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::test_support::{assert_same_deltas, frame, Recorded};

    fn decode(data: &str, sink: &mut Recorded) -> Result<(), Error> {
        Decoder::default().decode(&frame(None, data), data.trim(), sink)
    }

    /// Decodes `data` through [`Decoder::decode`] and through the general path alone, asserts
    /// that both apply the same deltas or fail with the same error, and says whether the plain
    /// path read it.
    fn decode_both_ways(data: &str) -> bool {
        let frame = frame(None, data);
        assert_same_deltas(
            data,
            |sink| decode(data, sink),
            |sink| decode_any(&frame, data.trim(), sink),
        );
        let (mut content, mut thinking) = (String::new(), String::new());
        plain_line(data.trim(), &mut content, &mut thinking).is_some()
    }

    #[test]
    fn plain_lines_apply_what_the_general_path_applies() {
        let lines = [
            r#"{"model":"llama3.2","created_at":"2025-05-01T10:00:00.000000Z","message":{"role":"assistant","content":"The sky"},"done":false}"#,
            r#"{"model":"qwen3","created_at":"2025-05-01T10:00:00Z","message":{"role":"assistant","content":"","thinking":"a \"b\" \\ \n \u00e9 \ud83d\ude00"},"done":false}"#,
            r#" { "message" : { "content" : "x\ty" , "role" : "assistant" , "role" : 1 } } "#,
            r#"{"model":"gemma3","created_at":"2025-05-01T14:00:00Z","response":"Bon\njour","thinking":"Hmm","done":false}"#,
            r#"{"model":"gemma3","created_at":1746108000}"#,
            r#"{"created_at":7,"model":"m","message":{}}"#,
            r#"{"done":false}"#,
        ];
        for data in lines {
            assert!(decode_both_ways(data), "{data}");
        }
    }

    #[test]
    fn other_shapes_are_left_to_the_general_path() {
        let lines = [
            r#"{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":26,"eval_count":282}"#,
            r#"{"model":"llama3.2","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}"#,
            r#"{"model":"gemma3","message":{"content":"wins"},"response":"ignored","thinking":"ignored"}"#,
            r#"{"model":"llama3.2","message":{"content":5}}"#,
            r#"{"model":"llama3.2","message":null}"#,
            r#"{"model":null,"message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","created_at":null,"message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","created_at":"a\u0062","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","done":null}"#,
            r#"{"model":"llama3.2","mod\u0065l":"x"}"#,
            r#"{"model":"m\u0065","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","context":[1,2,3],"response":""}"#,
            r#"{"model":"m","message":{"content":"\ud83d"}}"#,
            r#"{"error":"model not found"}"#,
            r#"{"thinking":"alone"}"#,
            r#"{"created_at":"2025-05-01T10:00:00Z"}"#,
            "{}",
        ];
        for data in lines {
            assert!(!decode_both_ways(data), "{data}");
        }
    }

    #[test]
    fn malformed_lines_fail_as_the_general_path_fails() {
        let lines = [
            r#"{"model":"llama3.2","model":"llama3.2","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","message":{"content":"a","content":"b"}}"#,
            r#"{"model":"m","created_at":"a","created_at":"b","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","message":{"content":"a"}} trailing"#,
            r#"{"model":"llama3.2","message":{"content":"a"}"#,
            r#"{"model":"llama3.2","message":"text"}"#,
            r#"{"model":"llama3.2","done":"no"}"#,
        ];
        for data in lines {
            assert!(decode(data, &mut Recorded::default()).is_err(), "{data}");
            assert!(!decode_both_ways(data), "{data}");
        }
    }
}
