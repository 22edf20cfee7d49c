//! The serde types of a `chat.completion.chunk`, borrowed from the payload: hand-written
//! visitors where a derive would allocate (unknown members kept raw, in order) or refuse what
//! compatibles send (`content` as parts, `arguments` as an object).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::dialect::text::Text;

/// Top-level fields this dialect reads itself or drops on purpose (`object` is always
/// `chat.completion.chunk`; `obfuscation` is random padding against length side channels).
const DROPPED_KEYS: [&str; 2] = ["object", "obfuscation"];

/// A `chat.completion.chunk`, borrowed from the payload. Unknown keys are kept raw.
#[derive(Default)]
pub(super) struct Chunk<'a> {
    pub(super) id: Option<Text<'a>>,
    pub(super) model: Option<Text<'a>>,
    pub(super) created: Option<i64>,
    pub(super) system_fingerprint: Option<Text<'a>>,
    pub(super) service_tier: Option<Text<'a>>,
    pub(super) choices: Vec<ChoiceChunk<'a>>,
    /// Whether the chunk has a `choices` member at all (of which the last one counts), so that
    /// the fast path, which reads the first one itself, can tell a second one in the rest.
    pub(super) has_choices: bool,
    pub(super) usage: Option<&'a RawValue>,
    pub(super) error: Option<&'a RawValue>,
    pub(super) extra: Vec<(Text<'a>, &'a RawValue)>,
}

/// One choice of a chunk. Unknown keys are kept raw.
#[derive(Default)]
pub(super) struct ChoiceChunk<'a> {
    pub(super) index: Option<u32>,
    pub(super) delta: Option<DeltaChunk<'a>>,
    pub(super) finish_reason: Option<Text<'a>>,
    pub(super) logprobs: Option<&'a RawValue>,
    pub(super) extra: Vec<(Text<'a>, &'a RawValue)>,
}

/// A choice's `delta` (or a whole body's `message`). Members it does not read are kept raw, in
/// order, in `extra` (but `role`, always the assistant's, and the per-token `token_id` and
/// `channel` that the drop list of `docs/dialects.md` names).
#[derive(Default)]
pub(super) struct DeltaChunk<'a> {
    pub(super) content: Option<Content<'a>>,
    pub(super) reasoning_content: Option<Text<'a>>,
    pub(super) reasoning: Option<Text<'a>>,
    pub(super) reasoning_details: Option<&'a RawValue>,
    pub(super) refusal: Option<Text<'a>>,
    /// Citations on the text (`url_citation`…), from search-enabled models.
    pub(super) annotations: Option<&'a RawValue>,
    pub(super) tool_calls: Option<Vec<ToolCallChunk<'a>>>,
    /// A piece of the spoken answer (`modalities: ["text", "audio"]`).
    pub(super) audio: Option<AudioChunk<'a>>,
    /// Images the model made (OpenRouter, Gemini-compatible hosts).
    pub(super) images: Option<&'a RawValue>,
    /// Provider data on the delta (Gemini's `google.thought_signature` over a text answer).
    pub(super) extra_content: Option<&'a RawValue>,
    pub(super) extra: Vec<(Text<'a>, &'a RawValue)>,
}

/// A `delta.audio` piece (`ChatCompletionAudio` streamed): `id` and `expires_at` on one piece,
/// `data` (base64) and `transcript` in pieces.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
pub(super) struct AudioChunk<'a> {
    #[serde(borrow)]
    pub(super) id: Option<Text<'a>>,
    #[serde(borrow)]
    pub(super) data: Option<Text<'a>>,
    #[serde(borrow)]
    pub(super) transcript: Option<Text<'a>>,
    pub(super) expires_at: Option<i64>,
}

/// One tool-call fragment of a `delta`: a function call's, or a custom call's (`custom`; its
/// `type` says the same and is not read).
#[derive(serde::Deserialize)]
pub(super) struct ToolCallChunk<'a> {
    #[serde(default)]
    pub(super) index: Option<u32>,
    #[serde(borrow, default)]
    pub(super) id: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(super) function: Option<FunctionChunk<'a>>,
    /// Boxed: a chunk may hold very many calls, nearly all of them functions.
    #[serde(borrow, default)]
    pub(super) custom: Option<Box<CustomChunk<'a>>>,
    /// Provider data on the call (Gemini's `google.thought_signature`).
    #[serde(borrow, default)]
    pub(super) extra_content: Option<&'a RawValue>,
}

/// The custom tool of a tool-call fragment: a name, or a piece of the free-text input.
#[derive(serde::Deserialize)]
pub(super) struct CustomChunk<'a> {
    #[serde(borrow, default)]
    pub(super) name: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(super) input: Option<Text<'a>>,
}

/// The function of a tool-call fragment: a name, or a piece of the arguments.
#[derive(serde::Deserialize)]
pub(super) struct FunctionChunk<'a> {
    #[serde(borrow, default)]
    pub(super) name: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(super) arguments: Option<Arguments<'a>>,
}

/// `delta.content`: a string, or an array of typed parts (Mistral's `thinking` parts).
pub(super) enum Content<'a> {
    Text(Text<'a>),
    Parts(Vec<&'a RawValue>),
}

/// One part of an array `content`.
#[derive(serde::Deserialize)]
pub(super) struct Part<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(super) text: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub(super) thinking: Option<Content<'a>>,
}

/// `function.arguments`: a JSON string as specified, or — from some compatibles — the arguments
/// object itself, kept as its JSON text.
pub(super) struct Arguments<'a>(pub(super) Text<'a>);

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
                            chunk.has_choices = true;
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

impl<'de: 'a, 'a> Deserialize<'de> for DeltaChunk<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DeltaVisitor;
        impl<'de> Visitor<'de> for DeltaVisitor {
            type Value = DeltaChunk<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a delta object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut delta = DeltaChunk::default();
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match key.as_str() {
                        "content" => once(&mut delta.content, &mut map, "content")?,
                        "reasoning_content" => {
                            once(&mut delta.reasoning_content, &mut map, "reasoning_content")?;
                        }
                        "reasoning" => once(&mut delta.reasoning, &mut map, "reasoning")?,
                        "reasoning_details" => {
                            once(&mut delta.reasoning_details, &mut map, "reasoning_details")?;
                        }
                        "refusal" => once(&mut delta.refusal, &mut map, "refusal")?,
                        "annotations" => once(&mut delta.annotations, &mut map, "annotations")?,
                        "tool_calls" => once(&mut delta.tool_calls, &mut map, "tool_calls")?,
                        "audio" => once(&mut delta.audio, &mut map, "audio")?,
                        "images" => once(&mut delta.images, &mut map, "images")?,
                        "extra_content" => {
                            once(&mut delta.extra_content, &mut map, "extra_content")?
                        }
                        "role" | "token_id" | "channel" => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                        _ => {
                            let raw = map.next_value()?;
                            delta.extra.push((key, raw));
                        }
                    }
                }
                Ok(delta)
            }
        }
        deserializer.deserialize_map(DeltaVisitor)
    }
}

/// Reads a member into `slot`; a member sent twice is an error, as with a derived struct (which
/// of two texts counts cannot be told).
fn once<'de, T: Deserialize<'de>, M: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut M,
    name: &'static str,
) -> Result<(), M::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = map.next_value()?;
    Ok(())
}
