//! Finish reasons across dialects: how each target spells what a provider's reason means
//! ([`FinishKind`]). A refusal becomes the target's filter reason where it has no word of its own.
//!
//! A message that refused under a plain stop (OpenAI sends `refusal` text with `"stop"`) keeps
//! `stop` / `completed` in the targets with a refusal field of their own (OpenAI chat,
//! Responses: the field says it, as OpenAI does); Anthropic and Gemini carry the refusal as
//! text, so there the stop reason says it (`refusal`, `SAFETY`), as
//! [`AiMessage::finish_kind`](crate::AiMessage::finish_kind) does.

use crate::message::FinishKind;

/// The kind of `reason` (see [`FinishKind`]); a plain stop of a message that asks for tool calls
/// counts as [`ToolCalls`](FinishKind::ToolCalls): Gemini and Responses say `STOP`/`completed`
/// there. No reason at all (a source that ended without one) is a plain stop.
fn kind(reason: &str, has_tool_calls: bool) -> FinishKind {
    let kind = if reason.is_empty() {
        FinishKind::Stop
    } else {
        FinishKind::of(reason)
    };
    match kind {
        FinishKind::Stop if has_tool_calls => FinishKind::ToolCalls,
        kind => kind,
    }
}

/// [`kind`], where a plain stop of a message with refusal text is a refusal.
fn message_kind(reason: &str, has_tool_calls: bool, refused: bool) -> FinishKind {
    match kind(reason, has_tool_calls) {
        FinishKind::Stop if refused => FinishKind::Refusal,
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

/// The AI SDK's `finishReason` (UI message stream `finish`): `stop`, `length`, `tool-calls`,
/// `content-filter`, `error` or `other`.
pub(super) fn ai_sdk(reason: &str, has_tool_calls: bool) -> &'static str {
    match kind(reason, has_tool_calls) {
        FinishKind::Stop => "stop",
        FinishKind::Length => "length",
        FinishKind::ToolCalls => "tool-calls",
        FinishKind::ContentFilter | FinishKind::Refusal => "content-filter",
        FinishKind::Error => "error",
        _ => "other",
    }
}

/// Anthropic's `stop_reason`: its own words kept, others mapped (`end_turn` for the rest);
/// `refused` when the message holds refusal text.
pub(super) fn anthropic(reason: &str, has_tool_calls: bool, refused: bool) -> &str {
    match reason {
        "end_turn" if refused => return "refusal",
        "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal" => {
            return reason
        }
        _ => {}
    }
    match message_kind(reason, has_tool_calls, refused) {
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

/// Gemini's `finishReason`: its own words kept, others mapped (`STOP` for the rest);
/// `refused` when the message holds refusal text.
pub(super) fn gemini(reason: &str, has_tool_calls: bool, refused: bool) -> &str {
    match reason {
        "STOP" if refused => return "SAFETY",
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
    match message_kind(reason, has_tool_calls, refused) {
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
        assert_eq!(anthropic("stop_sequence", false, false), "stop_sequence");
        assert_eq!(anthropic("STOP", true, false), "tool_use");
        assert_eq!(anthropic("length", false, false), "max_tokens");
        assert_eq!(responses("max_tokens", false), Some("max_output_tokens"));
        assert_eq!(responses("tool_calls", true), None);
        assert_eq!(gemini("RECITATION", false, false), "RECITATION");
        assert_eq!(gemini("tool_calls", true, false), "STOP");
        assert_eq!(gemini("max_output_tokens", false, false), "MAX_TOKENS");
    }

    #[test]
    fn a_refusal_under_a_plain_stop_is_said_where_the_target_has_no_refusal_field() {
        assert_eq!(openai_chat("stop", false), "stop");
        assert_eq!(responses("stop", false), None);
        assert_eq!(anthropic("stop", false, true), "refusal");
        assert_eq!(anthropic("end_turn", false, true), "refusal");
        assert_eq!(gemini("stop", false, true), "SAFETY");
        assert_eq!(gemini("STOP", false, true), "SAFETY");
        assert_eq!(anthropic("max_tokens", false, true), "max_tokens");
    }

    #[test]
    fn no_reason_is_a_stop_or_the_tool_call_reason() {
        assert_eq!(openai_chat("", true), "tool_calls");
        assert_eq!(openai_chat("", false), "stop");
        assert_eq!(anthropic("", true, false), "tool_use");
        assert_eq!(gemini("", false, false), "STOP");
    }
}
