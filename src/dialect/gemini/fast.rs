//! The fast path of Gemini: the chunks that make up nearly all of a stream, read with the strict
//! reader; anything else goes to the general path of the parent module.

use super::finish_reasons::FinishReasons;
use super::{usage_counts, GeminiDecoder};
use crate::delta::{Delta, DeltaSink, MetadataDelta};
use crate::delta::{RawUsage, Scalar, UsageReport};
use crate::dialect::cursor::{for_each_member, set_once, Cursor, Scanned};
use crate::error::Error;
use crate::framing::Frame;

/// Members of a `usageMetadata` read without building it; one with more goes the general way.
const MAX_USAGE_MEMBERS: usize = 8;

/// Decodes a [`PlainChunk`] as the general path would; `None` for any other payload, which the
/// general path then reads (or reports).
pub(super) fn decode(
    decoder: &mut GeminiDecoder,
    _frame: &Frame<'_>,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    let mut usage = [("", Scalar::Count(0)); MAX_USAGE_MEMBERS];
    let GeminiDecoder {
        scratch, finishes, ..
    } = decoder;
    read(data, scratch, &mut usage).map(|chunk| chunk.decode(finishes, sink))
}

/// The shape of nearly every chunk of a stream: one candidate with at most one part of text,
/// reasoning or signature, an optional `finishReason`, and the response's `usageMetadata` (counts
/// and plain strings), `modelVersion` and `responseId`.
///
/// Any other member, a repeated one, an escape outside the text, or a value of another type,
/// and [`read`] gives up: the general path reads the payload instead; so this path only ever
/// sees payloads the general path decodes into the very same deltas, and every error comes from
/// the general path.
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
    /// The deltas the general path applies for the same payload, in the same order.
    fn decode(self, finishes: &mut FinishReasons, sink: &mut impl DeltaSink) -> Result<(), Error> {
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
            finishes.note(choice, reason);
        }
        match self.usage {
            Some(scalars) => {
                let counts = scalars.iter().map(|(name, scalar)| match scalar {
                    Scalar::Count(count) => (*name, Some(*count)),
                    Scalar::Text(_) => (*name, None),
                });
                match usage_counts(counts) {
                    Some(report) => sink.apply(Delta::Usage(Box::new(UsageReport {
                        raw: Some(RawUsage::Scalars(scalars)),
                        ..report
                    }))),
                    None => Ok(()),
                }
            }
            None => Ok(()),
        }
    }
}

/// Reads a [`PlainChunk`] with the strict reader; `None` when the payload is not one. An
/// escaped text is decoded into `scratch`, the usage members into `usage`.
fn read<'a>(
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
    use crate::dialect::gemini::GeminiDecoder;
    use crate::dialect::test_support::{assert_same_deltas, decode, Path};

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
            let path = assert_same_deltas::<GeminiDecoder>(&[], data);
            // The counts' breakdown (an array) and a count that is not a plain integer are left
            // to the general path.
            let general = data.contains("1e400") || data.contains("promptTokensDetails");
            let expected = if general { Path::General } else { Path::Fast };
            assert_eq!(path, expected, "{data}");
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
            let path = assert_same_deltas::<GeminiDecoder>(&[], data);
            assert_eq!(path, Path::General, "{data}");
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
            assert!(decode::<GeminiDecoder>(data).is_err(), "{data}");
            let path = assert_same_deltas::<GeminiDecoder>(&[], data);
            assert_eq!(path, Path::General, "{data}");
        }
    }
}
