//! Finish reasons across dialects: how each target spells what a provider's reason means
//! ([`FinishKind`]). A refusal becomes the target's filter reason where it has no word of its own.

use crate::message::FinishKind;

/// The kind of `reason` (see [`FinishKind`]); a plain stop of a message that asks for tool calls
/// counts as [`ToolCalls`](FinishKind::ToolCalls): Gemini and Responses say `STOP`/`completed`
/// there.
fn kind(reason: &str, has_tool_calls: bool) -> FinishKind {
    match FinishKind::of(reason) {
        FinishKind::Stop if has_tool_calls => FinishKind::ToolCalls,
        kind => kind,
    }
}

/// OpenAI chat's `finish_reason`; anything it has no word for is `stop`.
pub(super) fn openai_chat(reason: &str, has_tool_calls: bool) -> &'static str {
    match kind(reason, has_tool_calls) {
        FinishKind::Length => "length",
        FinishKind::ToolCalls => "tool_calls",
        FinishKind::ContentFilter | FinishKind::Refusal => "content_filter",
        _ => "stop",
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
    match kind(reason, has_tool_calls) {
        FinishKind::Length => "max_tokens",
        FinishKind::ToolCalls => "tool_use",
        FinishKind::ContentFilter | FinishKind::Refusal => "refusal",
        _ => "end_turn",
    }
}

/// Responses' status and `incomplete_details.reason`: length and filters make the response
/// `incomplete`, everything else `completed`.
pub(super) fn responses(reason: &str, has_tool_calls: bool) -> Option<&'static str> {
    match kind(reason, has_tool_calls) {
        FinishKind::Length => Some("max_output_tokens"),
        FinishKind::ContentFilter | FinishKind::Refusal => Some("content_filter"),
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
    match kind(reason, has_tool_calls) {
        FinishKind::Length => "MAX_TOKENS",
        FinishKind::ContentFilter | FinishKind::Refusal => "SAFETY",
        _ => "STOP",
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
