//! Gemini `streamGenerateContent` (Google AI Studio and Vertex AI; SSE with `alt=sse`, else one
//! JSON array the framing cuts into its elements) and `generateContent`: each payload is a whole
//! `GenerateContentResponse` holding the new parts of each candidate.
//!
//! Candidates are keyed by `index`. Parts with `thought: true` are reasoning, other text parts
//! the answer; a `thoughtSignature` is kept with what it signs so the turn can be sent back: on
//! the tool call for a `functionCall` part (`extras.signature`), else on the reasoning block.
//! `inlineData` parts are media blocks with their signature ([`media`]).
//! `functionCall` parts are whole tool calls (an id is generated when Gemini sends none), or with
//! Gemini 3 streamed ones ([`streamed_calls`]); `citationMetadata` sources become annotations on
//! the text. What Gemini runs itself — `executableCode` / `codeExecutionResult` parts,
//! `groundingMetadata` (searches and the citations of the text) and `urlContextMetadata` — are
//! server-side tool calls, results and citations ([`server_tools`]). `usageMetadata` is a
//! running total in every chunk: output tokens are `candidatesTokenCount + thoughtsTokenCount`,
//! input tokens `promptTokenCount + toolUsePromptTokenCount` (langchain-google-genai's rule: the
//! prompt of a server-side tool is input, and `totalTokenCount` includes it, so input + output =
//! total); a `usageMetadata` without any count (Vertex sends `{trafficType}` on every chunk) is
//! no usage. An empty `groundingMetadata: {}` (sent on every chunk, the full one only at the
//! end) is skipped, so the populated one is kept (in `response_metadata` too).
//! There is no `[DONE]`: a stream that ends after every candidate sent its `finishReason` is
//! complete; the last reason of a candidate wins ([`finish_reasons`]).

use serde_json::value::RawValue;
use serde_json::Value;

use super::decoder::DialectDecoder;
use super::payload::{keep_unknown_members, parse_payload, skip_unless_foreign, Members};
use super::usage::{valid_count, UsageObject};
use super::Dialect;
use crate::delta::UsageReport;
use crate::delta::{Delta, DeltaSink, MetadataDelta, TextKind};
use crate::error::Error;
use crate::error::ProviderError;
use crate::framing::Frame;

use payload::{Candidate, Chunk, Part, PromptFeedback};

mod args_writer;
mod fast;
mod finish_reasons;
mod media;
mod payload;
mod server_tools;
mod streamed_calls;

use finish_reasons::FinishReasons;
use server_tools::ServerTools;
use streamed_calls::StreamedCalls;

/// The members of a chunk the dialect reads (a part's are read part by part): any other is kept
/// in `response_metadata`.
const CHUNK: Members<'static> = Members {
    known: &[
        "usageMetadata",
        "modelVersion",
        "responseId",
        "promptFeedback",
        "error",
    ],
    nested: &[(
        "candidates",
        Members {
            known: &[
                "index",
                "finishReason",
                "citationMetadata",
                "finishMessage",
                "groundingMetadata",
                "safetyRatings",
                "urlContextMetadata",
            ],
            nested: &[("content", Members::flat(&["parts", "role"]))],
        },
    )],
};

/// The members of a part the dialect reads: any other of a part it reads is kept in the choice's
/// extras (a part of another kind is kept whole).
const PART: Members<'static> = Members {
    known: &[
        "text",
        "thought",
        "thoughtSignature",
        "executableCode",
        "codeExecutionResult",
        "toolCall",
        "toolResponse",
        "inlineData",
    ],
    nested: &[(
        "functionCall",
        Members::flat(&["name", "args", "id", "willContinue", "partialArgs"]),
    )],
};

/// What the dialect remembers between chunks.
#[derive(Debug, Default)]
pub(crate) struct GeminiDecoder {
    /// Reused by the [`fast`] path for a text with escapes.
    scratch: String,
    /// The function calls whose arguments are still streaming.
    calls: StreamedCalls,
    /// The finish reasons, applied when the input ends.
    finishes: FinishReasons,
    /// Code that ran, searches, and the text blocks after them.
    servers: ServerTools,
}

impl DialectDecoder for GeminiDecoder {
    const DIALECT: Dialect = Dialect::Gemini;

    /// Gemini itself sends no `[DONE]`; one that comes anyway ends the stream.
    fn decode_control(
        &mut self,
        _frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        (data == "[DONE]").then(|| sink.apply(Delta::Done))
    }

    fn decode_fast(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        if self.calls.any_open() || self.servers.any() {
            // The next part may continue the call, or close it; text after a server-side block
            // goes to a keyed block: the general path decides.
            return None;
        }
        fast::decode(self, frame, data, sink)
    }

    /// A call still streaming when the input ends is complete as far as it came.
    fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        self.calls.close_all(sink)?;
        self.finishes.apply(sink)
    }

    /// Decodes a payload of any shape, and reports what is wrong with one that is malformed.
    fn decode_general(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let chunk: Chunk<'_> = parse_payload::<Self, _>(frame, data)?;
        let recognised = chunk.candidates.is_some()
            || chunk.usage_metadata.is_some()
            || chunk.prompt_feedback.is_some()
            || chunk.error.is_some()
            || chunk.model_version.as_str().is_some()
            || chunk.response_id.as_str().is_some();
        if !recognised {
            return skip_unless_foreign::<Self>(frame);
        }
        sink.apply(Delta::Metadata(MetadataDelta {
            id: chunk.response_id.as_str(),
            model: chunk.model_version.as_str(),
            ..MetadataDelta::default()
        }))?;
        keep_unknown_members(data, &CHUNK, None, sink)?;
        for (position, candidate) in chunk.candidates.iter().flatten().enumerate() {
            let choice = candidate
                .index
                .unwrap_or_else(|| u32::try_from(position).unwrap_or(u32::MAX));
            decode_candidate(self, choice, candidate, sink)?;
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
            sink.apply(Delta::Usage(Box::new(usage)))?;
        }
        if let Some(error) = chunk.error {
            let value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
            sink.apply(Delta::Error(Box::new(ProviderError::from_value(value))))?;
        }
        Ok(())
    }
}

fn decode_candidate(
    decoder: &mut GeminiDecoder,
    choice: u32,
    candidate: &Candidate<'_>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    sink.apply(Delta::Choice { choice })?;
    let parts = candidate
        .content
        .as_ref()
        .and_then(|content| content.parts.as_ref());
    // The pages were read before the answer that this chunk begins.
    if let Some(value) = candidate
        .url_context_metadata
        .filter(|value| !is_empty_object(value.get()))
    {
        decoder.servers.url_context(choice, value, sink)?;
    }
    for raw in parts.into_iter().flatten() {
        decode_part(decoder, choice, raw, sink)?;
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
        if let Some(value) = value.filter(|value| !is_empty_object(value.get())) {
            sink.apply(Delta::Extra {
                choice: Some(choice),
                key,
                value,
            })?;
            if key == "groundingMetadata" {
                decoder.servers.grounding(choice, value, sink)?;
            }
        }
    }
    match candidate.finish_reason.as_str() {
        Some(reason) => {
            decoder.calls.close(choice, sink)?;
            decoder.finishes.note(choice, reason);
            Ok(())
        }
        None => Ok(()),
    }
}

fn decode_part(
    decoder: &mut GeminiDecoder,
    choice: u32,
    raw: &RawValue,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    let GeminiDecoder { calls, servers, .. } = decoder;
    let Ok(part) = serde_json::from_str::<Part<'_>>(raw.get()) else {
        calls.close(choice, sink)?;
        return non_standard(choice, raw, sink);
    };
    let typed = part.function_call.is_some()
        || part.executable_code.is_some()
        || part.code_execution_result.is_some()
        || part.tool_call.is_some()
        || part.tool_response.is_some()
        || part.text.as_str().is_some()
        || part.thought_signature.as_str().is_some();
    if typed {
        keep_unknown_members(raw.get(), &PART, Some(choice), sink)?;
    }
    if let Some(call) = &part.function_call {
        return calls.part(choice, call, part.thought_signature.as_str(), sink);
    }
    // Any other part follows the call: a call's parts come one after the other.
    calls.close(choice, sink)?;
    let thought = part.thought == Some(true);
    let signature = part.thought_signature.as_str();
    if let Some(code) = part.executable_code {
        return servers.code(choice, code, thought, signature, sink);
    }
    if let Some(result) = part.code_execution_result {
        return servers.code_result(choice, result, thought, signature, sink);
    }
    if let Some(call) = part.tool_call {
        return servers.tool_call(choice, call, thought, signature, sink);
    }
    if let Some(response) = part.tool_response {
        return servers.tool_response(choice, response, thought, signature, sink);
    }
    if part.inline_data.is_some() {
        if let Some(block) = media::inline_block(raw) {
            return servers.standalone(choice, block, sink);
        }
    }
    let key = servers.text_key(choice);
    if let Some(signature) = signature {
        sink.apply(Delta::ReasoningSignature {
            choice,
            key,
            signature,
        })?;
    }
    let kind = if thought {
        TextKind::Reasoning
    } else {
        TextKind::Text
    };
    match (part.text.as_str(), key) {
        (Some(text), Some(key)) => sink.apply(Delta::BlockText {
            choice,
            key,
            kind,
            text,
        }),
        (Some(text), None) if thought => sink.apply(Delta::Reasoning { choice, text }),
        (Some(text), None) => sink.apply(Delta::Text { choice, text }),
        (None, _) if signature.is_some() => Ok(()),
        (None, _) => non_standard(choice, raw, sink),
    }
}

/// Parts of other kinds (and inline data that is not media): kept as sent.
fn non_standard(choice: u32, raw: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    match serde_json::from_str(raw.get()) {
        Ok(value) => sink.apply(Delta::NonStandard { choice, value }),
        Err(_) => Ok(()),
    }
}

/// A prompt blocked before any candidate: the answer is finished, and says why.
fn blocked_prompt(feedback: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let Ok(feedback) = serde_json::from_str::<PromptFeedback<'_>>(feedback.get()) else {
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

/// `{}`, however spaced: a member Gemini sends before it has anything to say.
fn is_empty_object(raw: &str) -> bool {
    raw.strip_prefix('{')
        .and_then(|rest| rest.strip_suffix('}'))
        .is_some_and(|inside| inside.trim_ascii().is_empty())
}

/// Maps `usageMetadata` as sent, or `None` when it is not an object or holds no count.
fn usage_report(raw: &RawValue) -> Option<UsageReport<'_>> {
    let usage = UsageObject::parse(raw.get())?;
    let report = usage_counts(
        usage
            .members()
            .map(|(name, value)| (name, valid_count(value))),
    )?;
    Some(usage.into_report(report))
}

/// Maps the members of a `usageMetadata`, which omits counts that are zero, in one pass rather
/// than one lookup per count; the caller adds the raw object. `None` when no count is there.
fn usage_counts<'n>(
    members: impl Iterator<Item = (&'n str, Option<u64>)>,
) -> Option<UsageReport<'static>> {
    let (mut prompt, mut tool_use, mut candidates, mut thoughts, mut total, mut cached) =
        (None, None, None, None, None, None);
    let mut counted = false;
    for (name, value) in members {
        let count = match name {
            "promptTokenCount" => &mut prompt,
            "toolUsePromptTokenCount" => &mut tool_use,
            "candidatesTokenCount" => &mut candidates,
            "thoughtsTokenCount" => &mut thoughts,
            "totalTokenCount" => &mut total,
            "cachedContentTokenCount" => &mut cached,
            _ => continue,
        };
        counted |= value.is_some();
        *count = value;
    }
    if !counted {
        return None;
    }
    Some(UsageReport {
        input_tokens: Some(prompt.unwrap_or(0).saturating_add(tool_use.unwrap_or(0))),
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
    })
}
