//! `FinishReason`: why the model stopped, kept as the provider spelled it; `FinishKind`: the same
//! reason in a small vocabulary that compares across providers.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Why the model stopped. An open string: providers send values beyond OpenAI's (`end_turn`,
/// `MAX_TOKENS`, `eos`…) and each is kept as sent. The empty string means "not reported".
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FinishReason(Cow<'static, str>);

impl FinishReason {
    /// The model finished its answer.
    pub const STOP: FinishReason = FinishReason(Cow::Borrowed("stop"));
    /// The output hit the token limit.
    pub const LENGTH: FinishReason = FinishReason(Cow::Borrowed("length"));
    /// The model asked for tool calls.
    pub const TOOL_CALLS: FinishReason = FinishReason(Cow::Borrowed("tool_calls"));
    /// The provider's content filter stopped the answer.
    pub const CONTENT_FILTER: FinishReason = FinishReason(Cow::Borrowed("content_filter"));
    /// No reason reported (yet).
    pub const NONE: FinishReason = FinishReason(Cow::Borrowed(""));

    /// A reason as the provider spelled it.
    pub fn new(reason: impl Into<String>) -> Self {
        FinishReason(Cow::Owned(reason.into()))
    }

    /// The reason as sent; `""` when none was reported.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when no reason has been reported.
    pub fn is_none(&self) -> bool {
        self.0.is_empty()
    }

    /// The reason in the vocabulary shared by every provider; `None` when none was reported.
    /// A provider-neutral `stop` stays [`FinishKind::Stop`] here even when the message asks for
    /// tool calls (Gemini says `STOP` then): [`AiMessage::finish_kind`](super::AiMessage::finish_kind)
    /// knows the message and says [`FinishKind::ToolCalls`].
    ///
    /// ```
    /// use deltafold::message::{FinishKind, FinishReason};
    ///
    /// assert_eq!(FinishReason::new("end_turn").kind(), Some(FinishKind::Stop));
    /// assert_eq!(FinishReason::new("MAX_TOKENS").kind(), Some(FinishKind::Length));
    /// assert_eq!(FinishReason::new("tool_use").kind(), Some(FinishKind::ToolCalls));
    /// assert_eq!(FinishReason::new("SAFETY").kind(), Some(FinishKind::ContentFilter));
    /// assert_eq!(FinishReason::new("OTHER").kind(), Some(FinishKind::Other));
    /// assert_eq!(FinishReason::NONE.kind(), None);
    /// ```
    pub fn kind(&self) -> Option<FinishKind> {
        (!self.is_none()).then(|| FinishKind::of(&self.0))
    }
}

/// Why the model stopped, comparable across providers — the unified finish reasons of the
/// Vercel AI SDK's `map-*-finish-reason` functions, with refusals kept apart from content
/// filters. The provider's own value stays in [`FinishReason`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishKind {
    /// The answer is complete: an end of turn, a stop sequence.
    Stop,
    /// The output token limit cut the answer.
    Length,
    /// The model waits for the results of the tool calls it asked for.
    ToolCalls,
    /// A safety, recitation, blocklist or guardrail filter stopped the answer.
    ContentFilter,
    /// The model declined to answer.
    Refusal,
    /// The provider failed while generating (a malformed function call, a failed response).
    Error,
    /// Any other reason.
    Other,
}

impl FinishKind {
    /// The kind of a provider's finish reason, whatever its case.
    pub(crate) fn of(reason: &str) -> FinishKind {
        match reason.to_ascii_lowercase().as_str() {
            // OpenAI and compatibles, Ollama, Gemini, Anthropic, Bedrock, Cohere, Responses.
            "stop" | "end_turn" | "stop_sequence" | "pause_turn" | "complete" | "completed"
            | "eos" | "eos_token" => FinishKind::Stop,
            "length"
            | "max_tokens"
            | "max_output_tokens"
            | "model_context_window_exceeded"
            | "incomplete" => FinishKind::Length,
            "tool_calls" | "function_call" | "tool_use" | "tool_call" => FinishKind::ToolCalls,
            "content_filter"
            | "content_filtered"
            | "guardrail_intervened"
            | "safety"
            | "recitation"
            | "blocklist"
            | "prohibited_content"
            | "spii"
            | "image_safety"
            | "error_toxic" => FinishKind::ContentFilter,
            "refusal" => FinishKind::Refusal,
            "error" | "failed" | "malformed_function_call" | "error_limit" => FinishKind::Error,
            _ => FinishKind::Other,
        }
    }

    /// The kind's name, as serialised (`tool_calls`, `content_filter`…).
    pub fn as_str(self) -> &'static str {
        match self {
            FinishKind::Stop => "stop",
            FinishKind::Length => "length",
            FinishKind::ToolCalls => "tool_calls",
            FinishKind::ContentFilter => "content_filter",
            FinishKind::Refusal => "refusal",
            FinishKind::Error => "error",
            FinishKind::Other => "other",
        }
    }
}

impl fmt::Display for FinishKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for FinishReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The usual spellings are borrowed: nearly every stream ends with one of them, and a stream's
/// result then holds no allocation for its reason.
impl From<&str> for FinishReason {
    fn from(reason: &str) -> Self {
        const COMMON: [&str; 10] = [
            "stop",
            "length",
            "tool_calls",
            "content_filter",
            "end_turn",
            "tool_use",
            "max_tokens",
            "STOP",
            "MAX_TOKENS",
            "completed",
        ];
        match COMMON.iter().find(|common| **common == reason) {
            Some(common) => FinishReason(Cow::Borrowed(common)),
            None => FinishReason::new(reason),
        }
    }
}

impl PartialEq<str> for FinishReason {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for FinishReason {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::{FinishKind, FinishReason};

    #[test]
    fn every_provider_spelling_has_its_kind() {
        use FinishKind::*;
        let spellings = [
            ("stop", Stop),
            ("STOP", Stop),
            ("end_turn", Stop),
            ("stop_sequence", Stop),
            ("COMPLETE", Stop),
            ("completed", Stop),
            ("length", Length),
            ("MAX_TOKENS", Length),
            ("max_tokens", Length),
            ("max_output_tokens", Length),
            ("incomplete", Length),
            ("tool_calls", ToolCalls),
            ("function_call", ToolCalls),
            ("tool_use", ToolCalls),
            ("content_filter", ContentFilter),
            ("SAFETY", ContentFilter),
            ("RECITATION", ContentFilter),
            ("PROHIBITED_CONTENT", ContentFilter),
            ("guardrail_intervened", ContentFilter),
            ("content_filtered", ContentFilter),
            ("refusal", Refusal),
            ("ERROR", Error),
            ("failed", Error),
            ("MALFORMED_FUNCTION_CALL", Error),
            ("FINISH_REASON_UNSPECIFIED", Other),
        ];
        for (spelling, kind) in spellings {
            assert_eq!(FinishReason::new(spelling).kind(), Some(kind), "{spelling}");
        }
        assert_eq!(FinishReason::NONE.kind(), None);
    }

    #[test]
    fn kinds_serialise_by_their_names() {
        let json = serde_json::to_string(&[FinishKind::ToolCalls, FinishKind::ContentFilter]);
        assert_eq!(json.unwrap(), r#"["tool_calls","content_filter"]"#);
        assert_eq!(FinishKind::ContentFilter.to_string(), "content_filter");
    }
}
