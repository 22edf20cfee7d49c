//! Gemini `streamGenerateContent?alt=sse` (Google AI Studio and Vertex AI): each event is a
//! whole `GenerateContentResponse` holding the new parts of each candidate.
//!
//! Candidates are keyed by `index`. Parts with `thought: true` are reasoning, other text parts
//! the answer; a `thoughtSignature` (on any part) is kept on the reasoning block so the turn can
//! be sent back; `functionCall` parts are whole tool calls (an id is generated when Gemini sends
//! none); `citationMetadata` sources become annotations on the text. `usageMetadata` is a
//! running total in every chunk: output tokens are `candidatesTokenCount + thoughtsTokenCount`.
//! There is no `[DONE]`: a stream that ends after every candidate sent its `finishReason` is
//! complete.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::detect;
use super::lenient::LenientText;
use super::text::Text;
use super::Dialect;
use crate::assemble::delta::{Delta, DeltaSink, MetadataDelta};
use crate::error::ProviderError;
use crate::message::UsageReport;
use crate::sse::Frame;
use crate::Error;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk<'a> {
    #[serde(borrow, default)]
    candidates: Option<Vec<Candidate<'a>>>,
    #[serde(borrow, default)]
    usage_metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    model_version: LenientText<'a>,
    #[serde(borrow, default)]
    response_id: LenientText<'a>,
    #[serde(borrow, default)]
    prompt_feedback: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(default)]
    index: Option<u32>,
    #[serde(borrow, default)]
    content: Option<CandidateContent<'a>>,
    #[serde(borrow, default)]
    finish_reason: LenientText<'a>,
    #[serde(default)]
    citation_metadata: Option<CitationMetadata>,
    #[serde(borrow, default)]
    finish_message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    grounding_metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    safety_ratings: Option<&'a RawValue>,
    #[serde(borrow, default)]
    url_context_metadata: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CandidateContent<'a> {
    #[serde(borrow, default)]
    parts: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(borrow, default)]
    text: LenientText<'a>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(borrow, default)]
    thought_signature: LenientText<'a>,
    #[serde(borrow, default)]
    function_call: Option<FunctionCall<'a>>,
}

#[derive(Deserialize)]
struct FunctionCall<'a> {
    #[serde(borrow, default)]
    id: LenientText<'a>,
    #[serde(borrow, default)]
    name: LenientText<'a>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
}

/// AI Studio names the list `citationSources`, Vertex AI `citations`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CitationMetadata {
    #[serde(default, alias = "citations")]
    citation_sources: Vec<Value>,
}

pub(crate) fn decode(frame: &Frame<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let data = frame.data.trim_ascii();
    if data.is_empty() {
        return Ok(());
    }
    if data == "[DONE]" {
        return sink.apply(Delta::Done);
    }
    match serde_json::from_str::<PlainChunk<'_>>(data) {
        Ok(chunk) => chunk.decode(sink),
        Err(_) => decode_any(frame, data, sink),
    }
}

/// Decodes a payload of any shape, and reports what is wrong with one that is malformed.
fn decode_any(frame: &Frame<'_>, data: &str, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let chunk: Chunk<'_> = match serde_json::from_str(data) {
        Ok(chunk) => chunk,
        Err(error) => {
            if let Some(mismatch) = detect::foreign_payload(Dialect::Gemini, frame) {
                return Err(mismatch);
            }
            return Err(super::malformed_payload(error, data));
        }
    };
    let recognised = chunk.candidates.is_some()
        || chunk.usage_metadata.is_some()
        || chunk.prompt_feedback.is_some()
        || chunk.error.is_some()
        || chunk.model_version.as_str().is_some()
        || chunk.response_id.as_str().is_some();
    if !recognised {
        return match detect::foreign_payload(Dialect::Gemini, frame) {
            Some(mismatch) => Err(mismatch),
            None => Ok(()),
        };
    }
    sink.apply(Delta::Metadata(MetadataDelta {
        id: chunk.response_id.as_str(),
        model: chunk.model_version.as_str(),
        ..MetadataDelta::default()
    }))?;
    for (position, candidate) in chunk.candidates.iter().flatten().enumerate() {
        let choice = candidate
            .index
            .unwrap_or_else(|| u32::try_from(position).unwrap_or(u32::MAX));
        decode_candidate(choice, candidate, sink)?;
    }
    if let Some(feedback) = chunk.prompt_feedback {
        sink.apply(Delta::Extra {
            choice: None,
            key: "promptFeedback",
            value: feedback,
        })?;
        if chunk.candidates.as_ref().is_none_or(Vec::is_empty) {
            blocked_prompt(feedback, sink)?;
        }
    }
    if let Some(usage) = chunk.usage_metadata.and_then(usage_report) {
        sink.apply(Delta::Usage(usage))?;
    }
    if let Some(error) = chunk.error {
        let value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
        sink.apply(Delta::Error(ProviderError::from_value(value)))?;
    }
    Ok(())
}

fn decode_candidate(
    choice: u32,
    candidate: &Candidate<'_>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    sink.apply(Delta::Choice { choice })?;
    let parts = candidate
        .content
        .as_ref()
        .and_then(|content| content.parts.as_ref());
    for raw in parts.into_iter().flatten() {
        decode_part(choice, raw, sink)?;
    }
    if let Some(metadata) = &candidate.citation_metadata {
        for source in &metadata.citation_sources {
            sink.apply(Delta::Annotation {
                choice,
                key: None,
                value: source.clone(),
            })?;
        }
    }
    for (key, value) in [
        ("finishMessage", candidate.finish_message),
        ("groundingMetadata", candidate.grounding_metadata),
        ("urlContextMetadata", candidate.url_context_metadata),
        ("safetyRatings", candidate.safety_ratings),
    ] {
        if let Some(value) = value {
            sink.apply(Delta::Extra {
                choice: Some(choice),
                key,
                value,
            })?;
        }
    }
    match candidate.finish_reason.as_str() {
        Some(reason) => sink.apply(Delta::Finish { choice, reason }),
        None => Ok(()),
    }
}

fn decode_part(choice: u32, raw: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let Ok(part) = serde_json::from_str::<Part<'_>>(raw.get()) else {
        return non_standard(choice, raw, sink);
    };
    if let Some(signature) = part.thought_signature.as_str() {
        sink.apply(Delta::ReasoningSignature {
            choice,
            key: None,
            signature,
        })?;
    }
    if let Some(call) = &part.function_call {
        let arguments = call.args.map_or("", RawValue::get);
        return sink.apply(Delta::WholeToolCall {
            choice,
            id: call.id.as_str(),
            name: call.name.as_str().unwrap_or_default(),
            arguments: if arguments == "null" { "" } else { arguments },
        });
    }
    match part.text.as_str() {
        Some(text) if part.thought == Some(true) => sink.apply(Delta::Reasoning { choice, text }),
        Some(text) => sink.apply(Delta::Text { choice, text }),
        None if part.thought_signature.as_str().is_some() => Ok(()),
        None => non_standard(choice, raw, sink),
    }
}

/// Executable code, code results, inline data…: kept as sent.
fn non_standard(choice: u32, raw: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    match serde_json::from_str(raw.get()) {
        Ok(value) => sink.apply(Delta::NonStandard { choice, value }),
        Err(_) => Ok(()),
    }
}

/// A prompt blocked before any candidate: the answer is finished, and says why.
fn blocked_prompt(feedback: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Feedback<'a> {
        #[serde(borrow, default)]
        block_reason: LenientText<'a>,
    }
    let Ok(feedback) = serde_json::from_str::<Feedback<'_>>(feedback.get()) else {
        return Ok(());
    };
    match feedback.block_reason.as_str() {
        Some(reason) => {
            sink.apply(Delta::Choice { choice: 0 })?;
            sink.apply(Delta::Finish { choice: 0, reason })
        }
        None => Ok(()),
    }
}

/// Maps `usageMetadata` as sent, or `None` when it is not an object.
fn usage_report(raw: &RawValue) -> Option<UsageReport> {
    super::text::tolerant_object(raw.get()).map(usage_from)
}

/// Maps a `usageMetadata` object, which omits counts that are zero. One pass over its members
/// matches the names, rather than one hashed lookup per count.
fn usage_from(usage: Map<String, Value>) -> UsageReport {
    let (mut prompt, mut candidates, mut thoughts, mut total, mut cached) =
        (None, None, None, None, None);
    for (key, value) in &usage {
        let count = match key.as_str() {
            "promptTokenCount" => &mut prompt,
            "candidatesTokenCount" => &mut candidates,
            "thoughtsTokenCount" => &mut thoughts,
            "totalTokenCount" => &mut total,
            "cachedContentTokenCount" => &mut cached,
            _ => continue,
        };
        *count = value.as_u64();
    }
    UsageReport {
        input_tokens: Some(prompt.unwrap_or(0)),
        output_tokens: Some(
            candidates
                .unwrap_or(0)
                .saturating_add(thoughts.unwrap_or(0)),
        ),
        total_tokens: total,
        input_audio: None,
        cache_read: cached,
        cache_creation: None,
        output_audio: None,
        reasoning: thoughts,
        raw: Some(usage),
    }
}

/// The shape of nearly every chunk of a stream, read in one pass with nothing kept raw: one
/// candidate with at most one part of text, reasoning or signature, an optional
/// `finishReason`, and the response's `usageMetadata`, `modelVersion` and `responseId`.
///
/// Any other member, a repeated one, or a value of another type fails this parse, and the
/// general path ([`decode_any`]) reads the payload again; so this path only ever sees payloads
/// the general path decodes into the very same deltas, and every error comes from the general
/// path.
struct PlainChunk<'a> {
    model_version: Option<Text<'a>>,
    response_id: Option<Text<'a>>,
    candidate: PlainCandidate<'a>,
    usage: Option<Map<String, Value>>,
}

struct PlainCandidate<'a> {
    index: Option<u32>,
    part: Option<PlainPart<'a>>,
    finish_reason: Option<Text<'a>>,
}

struct PlainPart<'a> {
    text: Option<Text<'a>>,
    thought: Option<bool>,
    signature: Option<Text<'a>>,
}

impl PlainChunk<'_> {
    /// The deltas [`decode_any`] applies for the same payload, in the same order.
    fn decode(self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            id: self.response_id.as_ref().map(Text::as_str),
            model: self.model_version.as_ref().map(Text::as_str),
            ..MetadataDelta::default()
        }))?;
        let candidate = &self.candidate;
        let choice = candidate.index.unwrap_or(0);
        sink.apply(Delta::Choice { choice })?;
        if let Some(part) = &candidate.part {
            if let Some(signature) = &part.signature {
                sink.apply(Delta::ReasoningSignature {
                    choice,
                    key: None,
                    signature: signature.as_str(),
                })?;
            }
            if let Some(text) = &part.text {
                let text = text.as_str();
                sink.apply(if part.thought == Some(true) {
                    Delta::Reasoning { choice, text }
                } else {
                    Delta::Text { choice, text }
                })?;
            }
        }
        if let Some(reason) = &candidate.finish_reason {
            sink.apply(Delta::Finish {
                choice,
                reason: reason.as_str(),
            })?;
        }
        match self.usage {
            Some(usage) => sink.apply(Delta::Usage(usage_from(usage))),
            None => Ok(()),
        }
    }
}

/// Ends a plain parse: the payload is not of the plain shape.
fn not_plain<E: de::Error>() -> E {
    E::custom("not a plain Gemini chunk")
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

impl<'de: 'a, 'a> Deserialize<'de> for PlainChunk<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ChunkVisitor;
        impl<'de> Visitor<'de> for ChunkVisitor {
            type Value = PlainChunk<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a plain Gemini chunk")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let (mut model_version, mut response_id, mut candidate, mut usage) =
                    (None, None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "candidates" => {
                            fill::<OneCandidate<'de>, _>(&mut candidate, &mut map)?;
                        }
                        "usageMetadata" => match map.next_value::<Value>()? {
                            Value::Object(object) if usage.is_none() => usage = Some(object),
                            _ => return Err(not_plain()),
                        },
                        "modelVersion" => fill(&mut model_version, &mut map)?,
                        "responseId" => fill(&mut response_id, &mut map)?,
                        _ => return Err(not_plain()),
                    }
                }
                Ok(PlainChunk {
                    model_version,
                    response_id,
                    candidate: candidate.ok_or_else(not_plain)?.0,
                    usage,
                })
            }
        }
        deserializer.deserialize_map(ChunkVisitor)
    }
}

/// `candidates` holding exactly one candidate.
struct OneCandidate<'a>(PlainCandidate<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for OneCandidate<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CandidatesVisitor;
        impl<'de> Visitor<'de> for CandidatesVisitor {
            type Value = OneCandidate<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("one candidate")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                let candidate = seq.next_element()?.ok_or_else(not_plain)?;
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(not_plain()),
                    None => Ok(OneCandidate(candidate)),
                }
            }
        }
        deserializer.deserialize_seq(CandidatesVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for PlainCandidate<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CandidateVisitor;
        impl<'de> Visitor<'de> for CandidateVisitor {
            type Value = PlainCandidate<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a plain candidate")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let (mut index, mut content, mut finish_reason) = (None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "index" => fill(&mut index, &mut map)?,
                        "content" => fill::<PlainContent<'de>, _>(&mut content, &mut map)?,
                        "finishReason" => fill(&mut finish_reason, &mut map)?,
                        _ => return Err(not_plain()),
                    }
                }
                Ok(PlainCandidate {
                    index,
                    part: content.and_then(|content| content.0),
                    finish_reason,
                })
            }
        }
        deserializer.deserialize_map(CandidateVisitor)
    }
}

/// A candidate's `content`: its `role` (always `model`) and at most one part.
struct PlainContent<'a>(Option<PlainPart<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for PlainContent<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = PlainContent<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a candidate's content")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut parts = None;
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "parts" => fill::<AtMostOnePart<'de>, _>(&mut parts, &mut map)?,
                        // Not read by the general path either, which ignores it however often
                        // it comes.
                        "role" => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        _ => return Err(not_plain()),
                    }
                }
                Ok(PlainContent(parts.and_then(|parts| parts.0)))
            }
        }
        deserializer.deserialize_map(ContentVisitor)
    }
}

/// `parts` holding no part or one.
struct AtMostOnePart<'a>(Option<PlainPart<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for AtMostOnePart<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartsVisitor;
        impl<'de> Visitor<'de> for PartsVisitor {
            type Value = AtMostOnePart<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("at most one part")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                let Some(part) = seq.next_element()? else {
                    return Ok(AtMostOnePart(None));
                };
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(not_plain()),
                    None => Ok(AtMostOnePart(Some(part))),
                }
            }
        }
        deserializer.deserialize_seq(PartsVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for PlainPart<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartVisitor;
        impl<'de> Visitor<'de> for PartVisitor {
            type Value = PlainPart<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a text part")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let (mut text, mut thought, mut signature) = (None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "text" => fill(&mut text, &mut map)?,
                        "thought" => fill(&mut thought, &mut map)?,
                        "thoughtSignature" => fill(&mut signature, &mut map)?,
                        _ => return Err(not_plain()),
                    }
                }
                // A part with neither is kept whole by the general path.
                if text.is_none() && signature.is_none() {
                    return Err(not_plain());
                }
                Ok(PlainPart {
                    text,
                    thought,
                    signature,
                })
            }
        }
        deserializer.deserialize_map(PartVisitor)
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

    /// Decodes `data` through [`decode`] and through the general path alone, asserts that both
    /// apply the same deltas or fail with the same error, and says whether the plain path read it.
    fn decode_both_ways(data: &str) -> bool {
        let (mut fast, mut general) = (Recorded::default(), Recorded::default());
        let fast_result = decode(&frame(data), &mut fast).map_err(|error| error.to_string());
        let general_result =
            decode_any(&frame(data), data, &mut general).map_err(|error| error.to_string());
        assert_eq!(fast_result, general_result, "{data}");
        assert_eq!(fast.0, general.0, "{data}");
        serde_json::from_str::<PlainChunk<'_>>(data).is_ok()
    }

    #[test]
    fn plain_chunks_apply_what_the_general_path_applies() {
        let chunks = [
            r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.0-flash","responseId":"r1"}"#,
            r#"{"candidates": [{"content": {"parts": [{"text": "a \"b\" \\ \n \u00e9 \ud83d\ude00"}], "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 8, "totalTokenCount": 17, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}]}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"Two plus three.","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":12,"thoughtsTokenCount":20,"cachedContentTokenCount":4,"totalTokenCount":32}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"5.","thought":false,"thoughtSignature":"CiQB0e2K"}]},"finishReason":"STOP"}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"thoughtSignature":"CiQB0e2K"}],"role":"model","role":"model"},"index":3}]}"#,
            r#"{"candidates":[{"content":{"parts":[]},"finishReason":"MAX_TOKENS","index":1}],"responseId":"r1"}"#,
            r#"{"candidates":[{"content":{"role":"model"},"index":0}],"usageMetadata":{"candidatesTokenCount":1e400}}"#,
            r#"{"candidates":[{"index":0}],"usageMetadata":{}}"#,
            r#" {"candidates":[{"content":{"parts":[{"text":""}]}}]} "#,
        ];
        for data in chunks {
            let plain = decode_both_ways(data);
            // The huge count is refused by `Value`: the general path keeps it as text.
            assert_eq!(plain, !data.contains("1e400"), "{data}");
        }
    }

    #[test]
    fn other_shapes_are_left_to_the_general_path() {
        let chunks = [
            r#"{"candidates":[{"index":0},{"index":1}]}"#,
            r#"{"candidates":[]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1}}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a","functionCall":{"name":"f"}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"executableCode":{"code":"1"}}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":5}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a","thought":null}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a","text":"b"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"te\u0078t":"a"}]}}]}"#,
            r#"{"candidates":[{"finishReason":null,"index":0}]}"#,
            r#"{"candidates":[{"index":null}]}"#,
            r#"{"candidates":[{"index":0,"safetyRatings":[]}]}"#,
            r#"{"candidates":[{"index":0,"citationMetadata":{"citationSources":[{"uri":"u"}]}}]}"#,
            r#"{"candidates":[{"index":0}],"usageMetadata":null}"#,
            r#"{"candidates":[{"index":0}],"usageMetadata":{"a":1},"usageMetadata":{"b":2}}"#,
            r#"{"candidates":[{"index":0}],"modelVersion":5}"#,
            r#"{"candidates":[{"index":0}],"promptFeedback":{"blockReason":"SAFETY"}}"#,
            r#"{"candidates":[{"index":0}],"error":{"code":500,"message":"boom"}}"#,
            r#"{"usageMetadata":{"promptTokenCount":3}}"#,
            r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#,
            r#"{"modelVersion":"gemini-2.0-flash"}"#,
            "{}",
        ];
        for data in chunks {
            assert!(!decode_both_ways(data), "{data}");
        }
    }

    #[test]
    fn malformed_chunks_fail_as_the_general_path_fails() {
        let chunks = [
            r#"{"candidates":[{"index":-1}]}"#,
            r#"{"candidates":[{"index":0}],"candidates":[{"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}],"parts":[]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}]} trailing"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}"#,
            r#"{"candidates":[{"content":"text"}]}"#,
        ];
        for data in chunks {
            let mut sink = Recorded::default();
            assert!(decode(&frame(data), &mut sink).is_err(), "{data}");
            assert!(!decode_both_ways(data), "{data}");
        }
    }
}
