//! Ollama's native `/api/chat` (and `/api/generate`): newline-delimited JSON, one object per
//! line, `message.content` / `message.thinking` appending (`response` / `thinking` for
//! `/api/generate`), `message.tool_calls` whole (ids generated when absent), and a last line with
//! `done: true`, `done_reason`, `prompt_eval_count`, `eval_count` and timings. A stream that ends
//! before `done: true` is truncated.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::cursor::{for_each_member, set_once, Cursor, Scanned};
use super::detect;
use super::lenient::{LenientCount, LenientText};
use super::text::Text;
use super::Dialect;
use crate::assemble::delta::{Delta, DeltaSink, MetadataDelta};
use crate::error::{snippet, ErrorKind, ProviderError};
use crate::message::{RawUsage, UsageReport};
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

/// What the dialect remembers between lines.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// A `created_at` string was applied: the response keeps the first, so later ones change
    /// nothing and lines may skip theirs.
    created_at_kept: bool,
    /// Reused for the decoded text of a line whose strings have escapes.
    content: String,
    thinking: String,
}

impl Decoder {
    pub(crate) fn decode(
        &mut self,
        frame: &Frame<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let data = frame.data.trim_ascii();
        if data.is_empty() {
            return Ok(());
        }
        if self.created_at_kept {
            if let Some(line) = plain_chat_line(data, &mut self.content, &mut self.thinking) {
                return line.decode(sink);
            }
        }
        match serde_json::from_str::<PlainLine<'_>>(data) {
            Ok(line) => {
                let created_at = line
                    .created_at
                    .is_some_and(|raw| raw.get().starts_with('"'));
                line.decode(sink)?;
                self.created_at_kept |= created_at;
                Ok(())
            }
            Err(_) => decode_any(frame, data, sink),
        }
    }
}

/// The `/api/chat` lines that make up nearly all of a stream, read without serde once the
/// response has its `created_at` (which they then skip): `model`, `created_at`, `done: false`
/// and `message` with `role`, `content` and `thinking`, in any order. `None` for anything
/// else — another member, a repeated one, an escape in `model` — which serde then reads, so
/// the deltas are the ones [`PlainLine`] gives.
fn plain_chat_line<'a>(
    data: &'a str,
    content: &'a mut String,
    thinking: &'a mut String,
) -> Option<PlainLine<'a>> {
    let mut cursor = Cursor::new(data);
    let (mut model, mut created_at, mut done) = (None, None, None);
    let mut message = None;
    for_each_member(&mut cursor, |cursor, key| match key {
        "model" => set_once(&mut model, cursor.plain_string()?),
        "created_at" => set_once(&mut created_at, cursor.skip_value()?),
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
        _ => None,
    })?;
    if !cursor.at_end() || (model.is_none() && message.is_none() && done.is_none()) {
        return None;
    }
    let (content, thinking): (&'a String, &'a String) = (content, thinking);
    let text = |scanned: Option<Scanned<'a>>, scratch: &'a String| {
        scanned.map(|scanned| Text(scanned.resolve(scratch).into()))
    };
    Some(PlainLine {
        model: model.map(|model| Text(model.into())),
        created_at: None,
        message: message.map(|(text_part, thought)| PlainMessage {
            content: text(text_part, content),
            thinking: text(thought, thinking),
        }),
        response: None,
        thinking: None,
    })
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

/// The shape of every line but the last, read in one pass: `model`, `created_at`, `done: false`
/// and the new text, under `message` (`/api/chat`) or at the top (`/api/generate`).
///
/// Any other member (`done: true`, counts, tool calls, an error…), a repeated one, or a value of
/// another type fails this parse, and the general path ([`decode_any`]) reads the line again; so
/// this path only ever sees lines the general path decodes into the very same deltas, and every
/// error comes from the general path.
struct PlainLine<'a> {
    model: Option<Text<'a>>,
    created_at: Option<&'a RawValue>,
    message: Option<PlainMessage<'a>>,
    response: Option<Text<'a>>,
    thinking: Option<Text<'a>>,
}

/// `message` with its new text only (`role` is always `assistant`).
struct PlainMessage<'a> {
    content: Option<Text<'a>>,
    thinking: Option<Text<'a>>,
}

impl PlainLine<'_> {
    /// The deltas [`decode_any`] applies for the same line, in the same order.
    fn decode(self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            model: self.model.as_ref().map(Text::as_str),
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
        let (thinking, content) = match &self.message {
            Some(message) => (&message.thinking, &message.content),
            None => (&self.thinking, &self.response),
        };
        if let Some(text) = thinking {
            sink.apply(Delta::Reasoning {
                choice: CHOICE,
                text: text.as_str(),
            })?;
        }
        match content {
            Some(text) => sink.apply(Delta::Text {
                choice: CHOICE,
                text: text.as_str(),
            }),
            None => Ok(()),
        }
    }
}

/// Ends a plain parse: the line is not of the plain shape.
fn not_plain<E: de::Error>() -> E {
    E::custom("not a plain Ollama line")
}

/// Reads one member value into an empty slot; a repeated member is not plain.
fn fill<'de, T: Deserialize<'de>, M: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut M,
) -> Result<(), M::Error> {
    if slot.is_some() {
        return Err(not_plain());
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

impl<'de: 'a, 'a> Deserialize<'de> for PlainLine<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LineVisitor;
        impl<'de> Visitor<'de> for LineVisitor {
            type Value = PlainLine<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a plain Ollama line")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut line = PlainLine {
                    model: None,
                    created_at: None,
                    message: None,
                    response: None,
                    thinking: None,
                };
                let mut done = None;
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "model" => fill(&mut line.model, &mut map)?,
                        "created_at" => fill(&mut line.created_at, &mut map)?,
                        "message" => fill(&mut line.message, &mut map)?,
                        "response" => fill(&mut line.response, &mut map)?,
                        "thinking" => fill(&mut line.thinking, &mut map)?,
                        "done" => fill::<bool, _>(&mut done, &mut map)?,
                        _ => return Err(not_plain()),
                    }
                }
                // `null` is no value to the general path; the last line and an unrecognised one
                // are left to it.
                let recognised = done.is_some()
                    || line.message.is_some()
                    || line.model.is_some()
                    || line.response.is_some();
                if done == Some(true)
                    || !recognised
                    || line.created_at.is_some_and(|raw| raw.get() == "null")
                {
                    return Err(not_plain());
                }
                Ok(line)
            }
        }
        deserializer.deserialize_map(LineVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for PlainMessage<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MessageVisitor;
        impl<'de> Visitor<'de> for MessageVisitor {
            type Value = PlainMessage<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a plain Ollama message")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let (mut content, mut thinking) = (None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "content" => fill(&mut content, &mut map)?,
                        "thinking" => fill(&mut thinking, &mut map)?,
                        // Not read by the general path either, which ignores it however often
                        // it comes.
                        "role" => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        _ => return Err(not_plain()),
                    }
                }
                Ok(PlainMessage { content, thinking })
            }
        }
        deserializer.deserialize_map(MessageVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every delta applied, as its debug text, so two paths can be compared field by field.
    #[derive(Default)]
    struct Recorded(Vec<String>);

    impl DeltaSink for Recorded {
        fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
            self.0.push(format!("{delta:?}"));
            Ok(())
        }
    }

    fn frame(data: &str) -> Frame<'_> {
        Frame {
            event: None,
            data,
            id: None,
            retry: None,
            number: 1,
            offset: 0,
            terminated: true,
        }
    }

    fn decode(data: &str, sink: &mut Recorded) -> Result<(), Error> {
        Decoder::default().decode(&frame(data), sink)
    }

    /// Decodes `data` through [`Decoder::decode`] and through the general path alone, asserts
    /// that both apply the same deltas or fail with the same error, and says whether the plain
    /// path read it.
    fn decode_both_ways(data: &str) -> bool {
        let (mut fast, mut general) = (Recorded::default(), Recorded::default());
        let fast_result = decode(data, &mut fast).map_err(|error| error.to_string());
        let general_result =
            decode_any(&frame(data), data, &mut general).map_err(|error| error.to_string());
        assert_eq!(fast_result, general_result, "{data}");
        assert_eq!(fast.0, general.0, "{data}");
        serde_json::from_str::<PlainLine<'_>>(data).is_ok()
    }

    #[test]
    fn plain_lines_apply_what_the_general_path_applies() {
        let lines = [
            r#"{"model":"llama3.2","created_at":"2025-05-01T10:00:00.000000Z","message":{"role":"assistant","content":"The sky"},"done":false}"#,
            r#"{"model":"qwen3","created_at":"2025-05-01T10:00:00Z","message":{"role":"assistant","content":"","thinking":"a \"b\" \\ \n \u00e9 \ud83d\ude00"},"done":false}"#,
            r#" {"message":{"content":"x","role":"assistant","role":"assistant"}} "#,
            r#"{"model":"gemma3","created_at":"2025-05-01T14:00:00Z","response":"Bonjour","thinking":"Hmm","done":false}"#,
            r#"{"model":"gemma3","message":{"content":"wins"},"response":"ignored","thinking":"ignored"}"#,
            r#"{"model":"gemma3","created_at":1746108000}"#,
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
            r#"{"model":"llama3.2","message":{"content":"a","content":"b"}}"#,
            r#"{"model":"llama3.2","message":{"content":5}}"#,
            r#"{"model":"llama3.2","message":null}"#,
            r#"{"model":null,"message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","created_at":null,"message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","done":null}"#,
            r#"{"model":"llama3.2","mod\u0065l":"x"}"#,
            r#"{"model":"llama3.2","context":[1,2,3],"response":""}"#,
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
    fn chat_lines_after_the_first_created_at_apply_what_the_general_path_applies() {
        let first = r#"{"model":"m","created_at":"2025-05-01T10:00:00Z","message":{"content":"a"},"done":false}"#;
        let plain = [
            r#"{"model":"llama3.2","created_at":"2025-05-01T10:00:01.5Z","message":{"role":"assistant","content":"The sky"},"done":false}"#,
            r#"{"model":"qwen3","created_at":"x","message":{"role":"assistant","content":"","thinking":"a \"b\" \\ \n \u00e9 \ud83d\ude00"},"done":false}"#,
            r#" { "message" : { "content" : "x\ty" , "role" : "assistant" , "role" : 1 } } "#,
            r#"{"done":false}"#,
            r#"{"created_at":7,"model":"m","message":{}}"#,
        ];
        let general_only = [
            r#"{"model":"m","message":{"content":"a","content":"b"}}"#,
            r#"{"model":"m","created_at":"a","created_at":"b","message":{"content":"a"}}"#,
            r#"{"model":"m\u0065","message":{"content":"a"}}"#,
            r#"{"model":"m","message":{"content":"a"},"done":true}"#,
            r#"{"model":"m","response":"generate"}"#,
            r#"{"model":"m","message":{"content":"\ud83d"}}"#,
            r#"{"created_at":"2025-05-01T10:00:00Z"}"#,
            r#"{"model":"m","message":{"content":"a"}} trailing"#,
        ];
        for data in plain.iter().chain(&general_only) {
            let mut decoder = Decoder::default();
            decoder
                .decode(&frame(first), &mut Recorded::default())
                .unwrap();
            assert!(decoder.created_at_kept);
            let mut fast = Recorded::default();
            let fast_result = decoder
                .decode(&frame(data), &mut fast)
                .map_err(|e| e.to_string());
            let mut general = Recorded::default();
            let general_result =
                decode_any(&frame(data), data.trim(), &mut general).map_err(|e| e.to_string());
            // The response keeps its first `created_at`: a later one changes nothing.
            general
                .0
                .retain(|delta| !delta.contains("key: \"created_at\""));
            fast.0
                .retain(|delta| !delta.contains("key: \"created_at\""));
            assert_eq!(fast_result, general_result, "{data}");
            assert_eq!(fast.0, general.0, "{data}");
            let (mut content, mut thinking) = (String::new(), String::new());
            let read_plain = plain_chat_line(data.trim(), &mut content, &mut thinking).is_some();
            assert_eq!(read_plain, plain.contains(data), "{data}");
        }
    }

    #[test]
    fn malformed_lines_fail_as_the_general_path_fails() {
        let lines = [
            r#"{"model":"llama3.2","model":"llama3.2","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","message":{"content":"a"}} trailing"#,
            r#"{"model":"llama3.2","message":{"content":"a"}"#,
            r#"{"model":"llama3.2","message":"text"}"#,
            r#"{"model":"llama3.2","done":"no"}"#,
        ];
        for data in lines {
            let mut sink = Recorded::default();
            assert!(decode(data, &mut sink).is_err(), "{data}");
            assert!(!decode_both_ways(data), "{data}");
        }
    }
}
