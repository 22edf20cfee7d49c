//! Finish reasons across dialects: what a provider's reason means ([`FinishKind`]), and how each
//! target spells it.

use serde::{Deserialize, Serialize};

/// What a finish reason means, whichever provider spelled it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishKind {
    /// The answer is complete (`stop`, `end_turn`, `stop_sequence`, `STOP`, `completed`).
    Stop,
    /// The output hit the token limit (`length`, `max_tokens`, `MAX_TOKENS`,
    /// `max_output_tokens`).
    Length,
    /// The model asks for tool calls (`tool_calls`, `tool_use`, `function_call`).
    ToolCalls,
    /// A filter or safety system stopped the answer (`content_filter`, `refusal`, `SAFETY`,
    /// `RECITATION`, …).
    ContentFilter,
    /// Anything else (`pause_turn`, `failed`, `OTHER`, …) or no reason at all.
    Other,
}

impl FinishKind {
    /// The meaning of `reason`. A plain stop of a message that asks for tool calls counts as
    /// [`ToolCalls`](Self::ToolCalls): Gemini and Responses say `STOP`/`completed` there.
    ///
    /// ```
    /// use deltafold::encode::FinishKind;
    ///
    /// assert_eq!(FinishKind::of("end_turn", false), FinishKind::Stop);
    /// assert_eq!(FinishKind::of("STOP", true), FinishKind::ToolCalls);
    /// assert_eq!(FinishKind::of("MAX_TOKENS", false), FinishKind::Length);
    /// ```
    pub fn of(reason: &str, has_tool_calls: bool) -> FinishKind {
        let kind = match reason {
            "stop" | "end_turn" | "stop_sequence" | "STOP" | "completed" | "eos" => {
                FinishKind::Stop
            }
            "length"
            | "max_tokens"
            | "MAX_TOKENS"
            | "max_output_tokens"
            | "model_context_window_exceeded" => FinishKind::Length,
            "tool_calls" | "tool_use" | "function_call" => FinishKind::ToolCalls,
            "content_filter" | "refusal" | "SAFETY" | "RECITATION" | "BLOCKLIST"
            | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => FinishKind::ContentFilter,
            _ => FinishKind::Other,
        };
        match kind {
            FinishKind::Stop if has_tool_calls => FinishKind::ToolCalls,
            kind => kind,
        }
    }
}

/// OpenAI chat's `finish_reason`; anything it has no word for is `stop`.
pub(super) fn openai_chat(reason: &str, has_tool_calls: bool) -> &'static str {
    match FinishKind::of(reason, has_tool_calls) {
        FinishKind::Length => "length",
        FinishKind::ToolCalls => "tool_calls",
        FinishKind::ContentFilter => "content_filter",
        FinishKind::Stop | FinishKind::Other => "stop",
    }
}

/// Anthropic's `stop_reason`: its own words kept, others mapped (`end_turn` for the rest).
pub(super) fn anthropic(reason: &str, has_tool_calls: bool) -> &str {
    match reason {
        "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal" => {
            return reason
        }
        _ => {}
    }
    match FinishKind::of(reason, has_tool_calls) {
        FinishKind::Length => "max_tokens",
        FinishKind::ToolCalls => "tool_use",
        FinishKind::ContentFilter => "refusal",
        FinishKind::Stop | FinishKind::Other => "end_turn",
    }
}

/// Responses' status and `incomplete_details.reason`: length and filters make the response
/// `incomplete`, everything else `completed`.
pub(super) fn responses(reason: &str, has_tool_calls: bool) -> Option<&'static str> {
    match FinishKind::of(reason, has_tool_calls) {
        FinishKind::Length => Some("max_output_tokens"),
        FinishKind::ContentFilter => Some("content_filter"),
        _ => None,
    }
}

/// Gemini's `finishReason`: its own words kept, others mapped (`STOP` for the rest).
pub(super) fn gemini(reason: &str, has_tool_calls: bool) -> &str {
    match reason {
        "STOP"
        | "MAX_TOKENS"
        | "SAFETY"
        | "RECITATION"
        | "LANGUAGE"
        | "OTHER"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "MALFORMED_FUNCTION_CALL"
        | "IMAGE_SAFETY" => return reason,
        _ => {}
    }
    match FinishKind::of(reason, has_tool_calls) {
        FinishKind::Length => "MAX_TOKENS",
        FinishKind::ContentFilter => "SAFETY",
        FinishKind::Stop | FinishKind::ToolCalls | FinishKind::Other => "STOP",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_target_keeps_its_own_words_and_maps_the_rest() {
        assert_eq!(openai_chat("tool_use", false), "tool_calls");
        assert_eq!(openai_chat("SAFETY", false), "content_filter");
        assert_eq!(anthropic("stop_sequence", false), "stop_sequence");
        assert_eq!(anthropic("STOP", true), "tool_use");
        assert_eq!(anthropic("length", false), "max_tokens");
        assert_eq!(responses("max_tokens", false), Some("max_output_tokens"));
        assert_eq!(responses("tool_calls", true), None);
        assert_eq!(gemini("RECITATION", false), "RECITATION");
        assert_eq!(gemini("tool_calls", true), "STOP");
        assert_eq!(gemini("max_output_tokens", false), "MAX_TOKENS");
    }
}
