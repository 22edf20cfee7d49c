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

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::cursor::{for_each_member, set_once, Cursor, Scanned};
use super::detect;
use super::lenient::LenientText;
use super::Dialect;
use crate::assemble::delta::{Delta, DeltaSink, MetadataDelta};
use crate::error::ProviderError;
use crate::message::{RawUsage, Scalar, UsageReport};
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
fn usage_report(raw: &RawValue) -> Option<UsageReport<'static>> {
    let usage = super::text::tolerant_object(raw.get())?;
    let report = usage_counts(
        usage
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_u64())),
    );
    Some(UsageReport {
        raw: Some(RawUsage::Object(usage)),
        ..report
    })
}

/// Maps the members of a `usageMetadata`, which omits counts that are zero, in one pass rather
/// than one lookup per count; the caller adds the raw object.
fn usage_counts<'n>(members: impl Iterator<Item = (&'n str, Option<u64>)>) -> UsageReport<'static> {
    let (mut prompt, mut candidates, mut thoughts, mut total, mut cached) =
        (None, None, None, None, None);
    for (name, value) in members {
        let count = match name {
            "promptTokenCount" => &mut prompt,
            "candidatesTokenCount" => &mut candidates,
            "thoughtsTokenCount" => &mut thoughts,
            "totalTokenCount" => &mut total,
            "cachedContentTokenCount" => &mut cached,
            _ => continue,
        };
        *count = value;
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
        raw: None,
    }
}

/// What the dialect remembers between chunks.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// Reused for the decoded text of a chunk whose text has escapes.
    scratch: String,
}

impl Decoder {
    /// Decodes one payload (`data`: trimmed, not empty).
    pub(crate) fn decode(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if data == "[DONE]" {
            return sink.apply(Delta::Done);
        }
        let mut usage = [("", Scalar::Count(0)); MAX_USAGE_MEMBERS];
        match plain_chunk(data, &mut self.scratch, &mut usage) {
            Some(chunk) => chunk.decode(sink),
            None => decode_any(frame, data, sink),
        }
    }
}

/// Members of a `usageMetadata` read without building it; one with more goes the general way.
const MAX_USAGE_MEMBERS: usize = 8;

/// The shape of nearly every chunk of a stream: one candidate with at most one part of text,
/// reasoning or signature, an optional `finishReason`, and the response's `usageMetadata` (counts
/// and plain strings), `modelVersion` and `responseId`.
///
/// Any other member, a repeated one, an escape outside the text, or a value of another type,
/// and [`plain_chunk`] gives up: the general path ([`decode_any`]) reads the payload instead; so
/// this path only ever sees payloads the general path decodes into the very same deltas, and
/// every error comes from the general path.
struct PlainChunk<'a> {
    model_version: Option<&'a str>,
    response_id: Option<&'a str>,
    candidate: PlainCandidate<'a>,
    usage: Option<&'a [(&'a str, Scalar<'a>)]>,
}

struct PlainCandidate<'a> {
    index: Option<u32>,
    part: Option<PlainPart<'a>>,
    finish_reason: Option<&'a str>,
}

struct PlainPart<'a> {
    text: Option<&'a str>,
    thought: Option<bool>,
    signature: Option<&'a str>,
}

impl PlainChunk<'_> {
    /// The deltas [`decode_any`] applies for the same payload, in the same order.
    fn decode(self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            id: self.response_id,
            model: self.model_version,
            ..MetadataDelta::default()
        }))?;
        let candidate = &self.candidate;
        let choice = candidate.index.unwrap_or(0);
        sink.apply(Delta::Choice { choice })?;
        if let Some(part) = &candidate.part {
            if let Some(signature) = part.signature {
                sink.apply(Delta::ReasoningSignature {
                    choice,
                    key: None,
                    signature,
                })?;
            }
            if let Some(text) = part.text {
                sink.apply(if part.thought == Some(true) {
                    Delta::Reasoning { choice, text }
                } else {
                    Delta::Text { choice, text }
                })?;
            }
        }
        if let Some(reason) = candidate.finish_reason {
            sink.apply(Delta::Finish { choice, reason })?;
        }
        match self.usage {
            Some(scalars) => {
                let counts = scalars.iter().map(|(name, scalar)| match scalar {
                    Scalar::Count(count) => (*name, Some(*count)),
                    Scalar::Text(_) => (*name, None),
                });
                sink.apply(Delta::Usage(UsageReport {
                    raw: Some(RawUsage::Scalars(scalars)),
                    ..usage_counts(counts)
                }))
            }
            None => Ok(()),
        }
    }
}

/// Reads a [`PlainChunk`] with the strict reader; `None` when the payload is not one. An
/// escaped text is decoded into `scratch`, the usage members into `usage`.
fn plain_chunk<'a>(
    data: &'a str,
    scratch: &'a mut String,
    usage: &'a mut [(&'a str, Scalar<'a>); MAX_USAGE_MEMBERS],
) -> Option<PlainChunk<'a>> {
    let mut cursor = Cursor::new(data);
    let (mut model_version, mut response_id, mut candidate, mut usage_len) =
        (None, None, None, None);
    for_each_member(&mut cursor, |cursor, key| match key {
        "candidates" => set_once(&mut candidate, one_candidate(cursor, scratch)?),
        "usageMetadata" => set_once(&mut usage_len, usage_scalars(cursor, usage)?),
        "modelVersion" => set_once(&mut model_version, cursor.plain_string()?),
        "responseId" => set_once(&mut response_id, cursor.plain_string()?),
        _ => None,
    })?;
    if !cursor.at_end() {
        return None;
    }
    let (candidate, text) = candidate?;
    let scratch: &'a String = scratch;
    let usage: &'a [(&'a str, Scalar<'a>)] = usage;
    let mut candidate = candidate;
    if let (Some(part), Some(text)) = (&mut candidate.part, text) {
        part.text = Some(text.resolve(scratch));
    }
    Some(PlainChunk {
        model_version,
        response_id,
        candidate,
        usage: usage_len.map(|len| &usage[..len]),
    })
}

/// `candidates` holding exactly one candidate, and its part's text as read.
fn one_candidate<'a>(
    cursor: &mut Cursor<'a>,
    scratch: &mut String,
) -> Option<(PlainCandidate<'a>, Option<Scanned<'a>>)> {
    if !cursor.eat("[") {
        return None;
    }
    let (mut index, mut content, mut finish_reason) = (None, None, None);
    for_each_member(cursor, |cursor, key| match key {
        "index" => set_once(&mut index, u32::try_from(cursor.count()?).ok()?),
        "content" => set_once(&mut content, plain_content(cursor, scratch)?),
        "finishReason" => set_once(&mut finish_reason, cursor.plain_string()?),
        _ => None,
    })?;
    cursor.skip_whitespace();
    if !cursor.eat("]") {
        return None;
    }
    let (part, text) = content.flatten().unzip();
    Some((
        PlainCandidate {
            index,
            part,
            finish_reason,
        },
        text.flatten(),
    ))
}

/// A candidate's `content`: its `role` (always `model`, ignored however often it comes, as the
/// general path does) and `parts` with no part or one; the part, and its text as read.
fn plain_content<'a>(
    cursor: &mut Cursor<'a>,
    scratch: &mut String,
) -> Option<Option<PartRead<'a>>> {
    let mut parts = None;
    for_each_member(cursor, |cursor, key| match key {
        "role" => cursor.skip_value(),
        "parts" => {
            if !cursor.eat("[") {
                return None;
            }
            cursor.skip_whitespace();
            if cursor.eat("]") {
                return set_once(&mut parts, None);
            }
            let part = plain_part(cursor, scratch)?;
            cursor.skip_whitespace();
            if !cursor.eat("]") {
                return None;
            }
            set_once(&mut parts, Some(part))
        }
        _ => None,
    })?;
    Some(parts.flatten())
}

/// A part, and its text as read (resolved once the scratch buffer is no longer written).
type PartRead<'a> = (PlainPart<'a>, Option<Scanned<'a>>);

/// A part with text (answer or reasoning) or a signature, or both; its text as read.
fn plain_part<'a>(cursor: &mut Cursor<'a>, scratch: &mut String) -> Option<PartRead<'a>> {
    let (mut text, mut thought, mut signature) = (None, None, None);
    for_each_member(cursor, |cursor, key| match key {
        "text" => set_once(&mut text, cursor.string(scratch)?),
        "thought" => set_once(&mut thought, cursor.boolean()?),
        "thoughtSignature" => set_once(&mut signature, cursor.plain_string()?),
        _ => None,
    })?;
    // A part with neither is kept whole by the general path.
    if text.is_none() && signature.is_none() {
        return None;
    }
    let part = PlainPart {
        text: None,
        thought,
        signature,
    };
    Some((part, text))
}

/// The members of a `usageMetadata` that holds only counts and plain strings, into `usage`;
/// their number.
fn usage_scalars<'a>(
    cursor: &mut Cursor<'a>,
    usage: &mut [(&'a str, Scalar<'a>); MAX_USAGE_MEMBERS],
) -> Option<usize> {
    let mut len = 0;
    for_each_member(cursor, |cursor, key| {
        let scalar = match cursor.peek()? {
            b'"' => Scalar::Text(cursor.plain_string()?),
            _ => Scalar::Count(cursor.count()?),
        };
        *usage.get_mut(len)? = (key, scalar);
        len += 1;
        Some(())
    })?;
    Some(len)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_same_deltas, frame, Recorded};
    use super::*;

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
        let mut usage = [("", Scalar::Count(0)); MAX_USAGE_MEMBERS];
        plain_chunk(data.trim(), &mut String::new(), &mut usage).is_some()
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
            r#"{"candidates":[{"index":0}],"usageMetadata":{"promptTokenCount":1,"trafficType":"ON_DEMAND","promptTokenCount":2}}"#,
            r#"{"candidates":[{"index":0}],"usageMetadata":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}}"#,
            r#"{"candidates":[{"index":0}],"usageMetadata":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"promptTokensDetails":9}}"#,
        ];
        for data in chunks {
            let plain = decode_both_ways(data);
            // The counts' breakdown (an array) and a count that is not a plain integer are left
            // to the general path.
            let general = data.contains("1e400") || data.contains("promptTokensDetails");
            assert_eq!(plain, !general, "{data}");
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
            assert!(decode(data, &mut Recorded::default()).is_err(), "{data}");
            assert!(!decode_both_ways(data), "{data}");
        }
    }
}
