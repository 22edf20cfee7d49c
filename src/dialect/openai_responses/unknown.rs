//! What the Responses decoder does not know, kept rather than dropped: event types newer than it
//! (each kept whole as a `non_standard` block) and fields added to the response object (kept in
//! `response_metadata`). The events it knows but has no use for, and the request parameters the
//! response object echoes, are on the drop list of `docs/dialects.md`.

use crate::delta::DeltaSink;
use crate::dialect::payload::{keep_unknown_members, Members};
use crate::error::Error;

/// Events the decoder knows and reads nothing from: what they say, other events say too (the
/// part or item they open or close, the whole text or arguments a later event repeats).
const QUIET: [&str; 10] = [
    "response.content_part.added",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.reasoning_text.done",
    "response.code_interpreter_call_code.done",
    "response.mcp_call_arguments.done",
    "response.mcp_list_tools.in_progress",
    "response.mcp_list_tools.completed",
    "response.mcp_list_tools.failed",
    // A compaction's progress: the `compaction` item that follows is kept whole.
    "response.compaction.compacting",
];

/// Whether the decoder knows this event and reads nothing from it.
pub(super) fn is_quiet(kind: &str) -> bool {
    QUIET.contains(&kind)
}

/// The members of the response object the decoder reads, and the request parameters it echoes
/// (dropped, as `docs/dialects.md` says): any other is kept in `response_metadata`.
const EVENT: Members<'static> = Members {
    known: &["type", "sequence_number"],
    nested: &[(
        "response",
        Members::flat(&[
            "id",
            "object",
            "created_at",
            "completed_at",
            "status",
            "model",
            "output",
            "usage",
            "error",
            "incomplete_details",
            "service_tier",
            "background",
            "store",
            "temperature",
            "top_p",
            "top_logprobs",
            "tool_choice",
            "truncation",
            "parallel_tool_calls",
            "max_output_tokens",
            "max_tool_calls",
            "prompt_cache_retention",
            "prompt_cache_key",
            "safety_identifier",
            "user",
            "instructions",
            "previous_response_id",
            "text",
            "reasoning",
            "tools",
            "metadata",
        ]),
    )],
};

/// Keeps the fields a response snapshot (`response.created`, `.completed`…) carries that the
/// decoder does not read.
pub(super) fn keep_response_fields(data: &str, sink: &mut impl DeltaSink) -> Result<(), Error> {
    keep_unknown_members(data, &EVENT, None, sink)
}
