//! The shapes both halves write: output items (message, reasoning, function call, server-side
//! tool items) in their final form, the `response` object and its usage.

use serde_json::{json, Value};

use crate::encode::server_tools::responses_item;
use crate::encode::{cache_read_tokens, reasoning_tokens, Identity};
use crate::message::{ContentBlock, ServerToolCall, UsageMetadata};

const GENERATED_ID: &str = "resp_df";

/// An output item as it streams; its final form goes into `response.completed`.
#[derive(Debug)]
pub(super) enum Item {
    /// A message with one part being written (`refusal` tells its kind).
    Message {
        id: String,
        /// The source message's `phase` (`commentary`, `final_answer`).
        phase: Option<String>,
        refusal: bool,
        parts: Vec<Value>,
        text: String,
        /// The snapshot's text block the part mirrors, for its citations.
        mirrors: Option<usize>,
        /// The part's annotations written so far, and how many of the block's were read.
        annotations: Vec<Value>,
        annotated: usize,
    },
    Reasoning {
        id: String,
        text: String,
        mirrors: Option<usize>,
        data: Option<String>,
    },
    Call {
        id: String,
        call_id: String,
        name: String,
        arguments: String,
    },
    /// A server-side tool's item (`web_search_call`, `mcp_call`…), done once its result is in.
    Server(Box<ServerItem>),
}

/// A server-side tool's item as it streams.
#[derive(Debug)]
pub(super) struct ServerItem {
    pub(super) kind: &'static str,
    pub(super) call: ServerToolCall,
    pub(super) result: Option<ContentBlock>,
    /// The source's extras are native to Responses.
    pub(super) native: bool,
    /// Code or MCP arguments went out as deltas.
    pub(super) streamed: bool,
}

pub(super) fn empty_part(refusal: bool) -> Value {
    if refusal {
        json!({"type": "refusal", "refusal": ""})
    } else {
        json!({"type": "output_text", "text": "", "annotations": [], "logprobs": []})
    }
}

pub(super) fn item_id(item: &Item) -> &str {
    match item {
        Item::Message { id, .. } | Item::Reasoning { id, .. } | Item::Call { id, .. } => id,
        Item::Server(item) => &item.call.id,
    }
}

pub(super) fn item_json(item: Item) -> Value {
    match item {
        Item::Message {
            id, phase, parts, ..
        } => {
            let mut item = json!({"id": id, "type": "message", "role": "assistant", "status": "completed", "content": parts});
            if let Some(phase) = phase {
                item["phase"] = phase.into();
            }
            item
        }
        Item::Reasoning { id, text, data, .. } => {
            let summary = if text.is_empty() {
                json!([])
            } else {
                json!([{"type": "summary_text", "text": text}])
            };
            let mut item = json!({"id": id, "type": "reasoning", "summary": summary});
            if let Some(data) = data {
                item["encrypted_content"] = json!(data);
            }
            item
        }
        Item::Call {
            id,
            call_id,
            name,
            arguments,
        } => {
            json!({"id": id, "type": "function_call", "call_id": call_id, "name": name, "arguments": arguments, "status": "completed"})
        }
        Item::Server(item) => responses_item(
            item.kind,
            &item.call.id,
            &item.call,
            item.result.as_ref(),
            true,
            item.native,
        ),
    }
}

/// The output item a text or refusal block came as in an OpenAI Responses source (its
/// `msg_…` id and `phase`), which the item written for it carries again.
pub(super) fn message_item(block: Option<&ContentBlock>) -> (Option<&str>, Option<&str>) {
    match block {
        Some(ContentBlock::Text { id, phase, .. } | ContentBlock::Refusal { id, phase, .. }) => {
            (id.as_deref(), phase.as_deref())
        }
        _ => (None, None),
    }
}

/// A `response` object without output or usage: the fields the SDK's model requires.
pub(super) fn response_shell(identity: &Identity, status: &str) -> Value {
    json!({
        "id": identity.id_or(GENERATED_ID),
        "object": "response",
        "created_at": identity.created.unwrap_or(0),
        "status": status,
        "model": identity.model(),
        "output": [],
        "error": null,
        "incomplete_details": null,
        "instructions": null,
        "metadata": {},
        "parallel_tool_calls": true,
        "temperature": null,
        "tool_choice": "auto",
        "tools": [],
        "top_p": null,
    })
}

/// Tokens written to the prompt cache; 0 when not reported (the SDK's model requires it).
fn cache_write_tokens(usage: &UsageMetadata) -> u64 {
    usage
        .input_token_details
        .and_then(|details| details.cache_creation)
        .unwrap_or(0)
}

pub(super) fn usage_json(usage: &UsageMetadata) -> Value {
    json!({
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {
            "cached_tokens": cache_read_tokens(usage).unwrap_or(0),
            "cache_write_tokens": cache_write_tokens(usage),
        },
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens(usage).unwrap_or(0)},
        "total_tokens": usage.total_tokens,
    })
}
