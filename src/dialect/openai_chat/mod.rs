//! OpenAI Chat Completions: `chat.completion.chunk` payloads (and a whole `chat.completion`
//! body, whose `message` reads as one big `delta`), as sent by OpenAI and its compatibles.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::text::Text;
use super::Dialect;
use crate::delta::{Delta, DeltaSink, MetadataDelta, ToolCallDelta};
use crate::delta::{RawUsage, UsageReport};
use crate::error::ProviderError;
use crate::framing::Frame;
use crate::Error;

/// Top-level fields this dialect reads itself or drops on purpose (`object` is always
/// `chat.completion.chunk`; `obfuscation` is random padding against length side channels).
const DROPPED_KEYS: [&str; 2] = ["object", "obfuscation"];

mod repeat;

/// Per-stream state: what the chunks so far repeated (see [`repeat`]).
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    repeats: repeat::Repeats,
}

impl Decoder {
    pub(crate) fn decode(
        &mut self,
        frame: &Frame<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let data = frame.data.trim_ascii();
        if data == "[DONE]" {
            return sink.apply(Delta::Done);
        }
        if frame.event == Some("error") {
            let value =
                serde_json::from_str(data).unwrap_or_else(|_| Value::String(data.to_owned()));
            return sink.apply(Delta::Error(ProviderError::from_value(value)));
        }
        if data.is_empty() {
            return Ok(());
        }
        if let Some(rest) = self.repeats.after_prefix(data) {
            if let Some(decoded) = self.repeats.decode(rest, sink) {
                return decoded;
            }
        }
        let chunk: Chunk<'_> =
            serde_json::from_str(data).map_err(|error| super::malformed_payload(error, data))?;
        // Only a chunk without choices can be another dialect's payload: the hot path never asks.
        if chunk.choices.is_empty() && !chunk.extra.is_empty() {
            if let Some(other) = super::detect::foreign_chat_keys(&chunk.extra) {
                return Err(super::detect::mismatch(Dialect::OpenAiChat, other, data));
            }
        }
        chunk.decode(sink)?;
        self.repeats.remember_prefix(data);
        Ok(())
    }
}

fn choice_index(index: Option<u32>, position: usize) -> u32 {
    index.unwrap_or_else(|| u32::try_from(position).unwrap_or(u32::MAX))
}

/// A `chat.completion.chunk`, borrowed from the payload. Unknown keys are kept raw.
#[derive(Default)]
struct Chunk<'a> {
    id: Option<Text<'a>>,
    model: Option<Text<'a>>,
    created: Option<i64>,
    system_fingerprint: Option<Text<'a>>,
    service_tier: Option<Text<'a>>,
    choices: Vec<ChoiceChunk<'a>>,
    usage: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
    extra: Vec<(Text<'a>, &'a RawValue)>,
}

#[derive(Default)]
struct ChoiceChunk<'a> {
    index: Option<u32>,
    delta: Option<DeltaChunk<'a>>,
    finish_reason: Option<Text<'a>>,
    logprobs: Option<&'a RawValue>,
    extra: Vec<(Text<'a>, &'a RawValue)>,
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct DeltaChunk<'a> {
    #[serde(borrow)]
    content: Option<Content<'a>>,
    #[serde(borrow)]
    reasoning_content: Option<Text<'a>>,
    #[serde(borrow)]
    reasoning: Option<Text<'a>>,
    #[serde(borrow)]
    reasoning_details: Option<&'a RawValue>,
    #[serde(borrow)]
    refusal: Option<Text<'a>>,
    /// Citations on the text (`url_citation`…), from search-enabled models.
    #[serde(borrow)]
    annotations: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_calls: Option<Vec<ToolCallChunk<'a>>>,
}

#[derive(serde::Deserialize)]
struct ToolCallChunk<'a> {
    #[serde(default)]
    index: Option<u32>,
    #[serde(borrow, default)]
    id: Option<Text<'a>>,
    #[serde(borrow, default)]
    function: Option<FunctionChunk<'a>>,
}

#[derive(serde::Deserialize)]
struct FunctionChunk<'a> {
    #[serde(borrow, default)]
    name: Option<Text<'a>>,
    #[serde(borrow, default)]
    arguments: Option<Arguments<'a>>,
}

/// `delta.content`: a string, or an array of typed parts (Mistral's `thinking` parts).
enum Content<'a> {
    Text(Text<'a>),
    Parts(Vec<&'a RawValue>),
}

/// One part of an array `content`.
#[derive(serde::Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Text<'a>>,
    #[serde(borrow, default)]
    text: Option<Text<'a>>,
    #[serde(borrow, default)]
    thinking: Option<Content<'a>>,
}

/// `function.arguments`: a JSON string as specified, or — from some compatibles — the arguments
/// object itself, kept as its JSON text.
struct Arguments<'a>(Text<'a>);

impl<'a> Chunk<'a> {
    fn decode(self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            id: self.id.as_ref().map(Text::as_str),
            model: self.model.as_ref().map(Text::as_str),
            created: self.created,
            system_fingerprint: self.system_fingerprint.as_ref().map(Text::as_str),
            service_tier: self.service_tier.as_ref().map(Text::as_str),
        }))?;
        for (key, value) in &self.extra {
            sink.apply(Delta::Extra {
                choice: None,
                key: key.as_str(),
                value,
            })?;
        }
        for (position, choice) in self.choices.iter().enumerate() {
            choice.decode(choice_index(choice.index, position), sink)?;
        }
        let usage = self.usage.filter(|usage| usage.get() != "null");
        if let Some(usage) = usage.or_else(|| groq_usage(&self.extra)) {
            if let Some(report) = usage_report(usage) {
                sink.apply(Delta::Usage(report))?;
            }
        }
        if let Some(error) = self.error.filter(|error| error.get() != "null") {
            let value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
            sink.apply(Delta::Error(ProviderError::from_value(value)))?;
        }
        Ok(())
    }
}

impl ChoiceChunk<'_> {
    fn decode(&self, choice: u32, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Choice { choice })?;
        if let Some(delta) = &self.delta {
            delta.decode(choice, sink)?;
        }
        if let Some(logprobs) = self.logprobs.filter(|raw| raw.get() != "null") {
            sink.apply(Delta::Logprobs { choice, logprobs })?;
        }
        for (key, value) in &self.extra {
            sink.apply(Delta::Extra {
                choice: Some(choice),
                key: key.as_str(),
                value,
            })?;
        }
        if let Some(reason) = &self.finish_reason {
            sink.apply(Delta::Finish {
                choice,
                reason: reason.as_str(),
            })?;
        }
        Ok(())
    }
}

impl DeltaChunk<'_> {
    fn decode(&self, choice: u32, sink: &mut impl DeltaSink) -> Result<(), Error> {
        // Some servers mirror the same text into both fields: take the first that has text.
        let reasoning = [&self.reasoning_content, &self.reasoning]
            .into_iter()
            .flatten()
            .find(|text| !text.as_str().is_empty());
        if let Some(text) = reasoning {
            sink.apply(Delta::Reasoning {
                choice,
                text: text.as_str(),
            })?;
        }
        if let Some(raw) = self.reasoning_details {
            if let Ok(Value::Array(details)) = serde_json::from_str::<Value>(raw.get()) {
                if reasoning.is_none() {
                    for text in details.iter().filter_map(detail_text) {
                        sink.apply(Delta::Reasoning { choice, text })?;
                    }
                }
                if !details.is_empty() {
                    sink.apply(Delta::ReasoningDetails { choice, details })?;
                }
            }
        }
        match &self.content {
            Some(Content::Text(text)) => sink.apply(Delta::Text {
                choice,
                text: text.as_str(),
            })?,
            Some(Content::Parts(parts)) => decode_parts(choice, parts, sink)?,
            None => {}
        }
        if let Some(raw) = self.annotations {
            if let Ok(Value::Array(annotations)) = serde_json::from_str::<Value>(raw.get()) {
                for value in annotations {
                    sink.apply(Delta::Annotation {
                        choice,
                        key: None,
                        value,
                    })?;
                }
            }
        }
        if let Some(refusal) = &self.refusal {
            sink.apply(Delta::Refusal {
                choice,
                text: refusal.as_str(),
            })?;
        }
        for call in self.tool_calls.iter().flatten() {
            let function = call.function.as_ref();
            sink.apply(Delta::ToolCall(ToolCallDelta {
                choice,
                index: call.index,
                id: call.id.as_ref().map(Text::as_str),
                name: function.and_then(|f| f.name.as_ref()).map(Text::as_str),
                arguments: function
                    .and_then(|f| f.arguments.as_ref())
                    .map_or("", |arguments| arguments.0.as_str()),
            }))?;
        }
        Ok(())
    }
}

/// The text of a `reasoning.text` or `reasoning.summary` detail.
fn detail_text(detail: &Value) -> Option<&str> {
    match detail.get("type")?.as_str()? {
        "reasoning.text" => detail.get("text")?.as_str(),
        "reasoning.summary" => detail.get("summary")?.as_str(),
        _ => None,
    }
}

fn decode_parts(choice: u32, parts: &[&RawValue], sink: &mut impl DeltaSink) -> Result<(), Error> {
    for raw in parts {
        let part: Part<'_> = match serde_json::from_str(raw.get()) {
            Ok(part) => part,
            Err(_) => {
                let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                sink.apply(Delta::NonStandard { choice, value })?;
                continue;
            }
        };
        match (
            part.kind.as_ref().map(Text::as_str),
            &part.text,
            &part.thinking,
        ) {
            (Some("text") | None, Some(text), _) => sink.apply(Delta::Text {
                choice,
                text: text.as_str(),
            })?,
            (Some("thinking"), _, Some(Content::Text(text))) => sink.apply(Delta::Reasoning {
                choice,
                text: text.as_str(),
            })?,
            (Some("thinking"), _, Some(Content::Parts(inner))) => {
                for raw in inner {
                    if let Ok(Part {
                        text: Some(text), ..
                    }) = serde_json::from_str::<Part<'_>>(raw.get())
                    {
                        sink.apply(Delta::Reasoning {
                            choice,
                            text: text.as_str(),
                        })?;
                    }
                }
            }
            _ => {
                let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                sink.apply(Delta::NonStandard { choice, value })?;
            }
        }
    }
    Ok(())
}

/// Groq reports usage under `x_groq.usage`.
fn groq_usage<'a>(extra: &[(Text<'a>, &'a RawValue)]) -> Option<&'a RawValue> {
    #[derive(serde::Deserialize)]
    struct XGroq<'a> {
        #[serde(borrow, default)]
        usage: Option<&'a RawValue>,
    }
    let (_, raw) = extra.iter().find(|(key, _)| key.as_str() == "x_groq")?;
    serde_json::from_str::<XGroq<'a>>(raw.get()).ok()?.usage
}

/// Maps an OpenAI usage object (and DeepSeek's cache fields) to neutral counts.
fn usage_report(raw: &RawValue) -> Option<UsageReport<'static>> {
    let usage = super::text::tolerant_object(raw.get())?;
    let count = |path: &[&str]| {
        let mut value = usage.get(path[0])?;
        for key in &path[1..] {
            value = value.get(key)?;
        }
        value.as_u64()
    };
    Some(UsageReport {
        input_tokens: count(&["prompt_tokens"]),
        output_tokens: count(&["completion_tokens"]),
        total_tokens: count(&["total_tokens"]),
        input_audio: count(&["prompt_tokens_details", "audio_tokens"]),
        cache_read: count(&["prompt_tokens_details", "cached_tokens"])
            .or_else(|| count(&["prompt_cache_hit_tokens"])),
        cache_creation: count(&["prompt_tokens_details", "cache_write_tokens"]),
        output_audio: count(&["completion_tokens_details", "audio_tokens"]),
        reasoning: count(&["completion_tokens_details", "reasoning_tokens"]),
        raw: Some(RawUsage::Object(usage)),
    })
}

fn created(raw: &RawValue) -> Option<i64> {
    raw.get().parse().ok()
}

impl<'de: 'a, 'a> Deserialize<'de> for Chunk<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ChunkVisitor;
        impl<'de> Visitor<'de> for ChunkVisitor {
            type Value = Chunk<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a chat.completion.chunk object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut chunk = Chunk::default();
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match key.as_str() {
                        "id" => chunk.id = map.next_value()?,
                        "model" => chunk.model = map.next_value()?,
                        "system_fingerprint" => chunk.system_fingerprint = map.next_value()?,
                        "service_tier" => chunk.service_tier = map.next_value()?,
                        "choices" => {
                            chunk.choices = map
                                .next_value::<Option<Vec<ChoiceChunk<'de>>>>()?
                                .unwrap_or_default()
                        }
                        "usage" => chunk.usage = map.next_value()?,
                        "error" => chunk.error = map.next_value()?,
                        "created" => {
                            let raw: &'de RawValue = map.next_value()?;
                            match created(raw) {
                                Some(created) => chunk.created = Some(created),
                                None => chunk.extra.push((key, raw)),
                            }
                        }
                        dropped if DROPPED_KEYS.contains(&dropped) => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        _ => {
                            let raw = map.next_value()?;
                            chunk.extra.push((key, raw));
                        }
                    }
                }
                Ok(chunk)
            }
        }
        deserializer.deserialize_map(ChunkVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ChoiceChunk<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ChoiceVisitor;
        impl<'de> Visitor<'de> for ChoiceVisitor {
            type Value = ChoiceChunk<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a choice object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut choice = ChoiceChunk::default();
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match key.as_str() {
                        "index" => choice.index = map.next_value()?,
                        "delta" | "message" => choice.delta = map.next_value()?,
                        "finish_reason" => choice.finish_reason = map.next_value()?,
                        "logprobs" => choice.logprobs = map.next_value()?,
                        _ => {
                            let raw = map.next_value()?;
                            choice.extra.push((key, raw));
                        }
                    }
                }
                Ok(choice)
            }
        }
        deserializer.deserialize_map(ChoiceVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Text(text.into())))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Text(text.to_owned().into())))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Text(text.into())))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                let mut parts = Vec::new();
                while let Some(part) = seq.next_element()? {
                    parts.push(part);
                }
                Ok(Content::Parts(parts))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Arguments<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ArgumentsVisitor;
        impl<'de> Visitor<'de> for ArgumentsVisitor {
            type Value = Arguments<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON string or object of arguments")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Arguments(Text(text.into())))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Arguments(Text(text.to_owned().into())))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Arguments(Text(text.into())))
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
                let object =
                    Map::<String, Value>::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Arguments(Text(Value::Object(object).to_string().into())))
            }
        }
        deserializer.deserialize_any(ArgumentsVisitor)
    }
}
