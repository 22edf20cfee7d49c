//! The non-streamed Anthropic `message`: the content blocks whole, the stop reason, the usage.

use serde_json::{json, Value};

use super::{usage_json, GENERATED_ID};
use crate::encode::{finish, Identity};
use crate::message::{AiMessage, ContentBlock};

/// The non-streamed `message`.
pub(in crate::encode) fn response(message: &AiMessage) -> Value {
    let identity = Identity::of_message(message);
    let content: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text, .. } | ContentBlock::Refusal { refusal: text } => {
                Some(json!({"type": "text", "text": text}))
            }
            ContentBlock::Reasoning {
                text,
                data: Some(data),
                ..
            } if text.is_empty() => Some(json!({"type": "redacted_thinking", "data": data})),
            ContentBlock::Reasoning {
                text, signature, ..
            } => Some(json!({
                "type": "thinking",
                "thinking": text,
                "signature": signature.as_deref().unwrap_or_default(),
            })),
            ContentBlock::ToolCall(call) => Some(json!({
                "type": "tool_use", "id": call.id, "name": call.name, "input": call.args,
            })),
            ContentBlock::InvalidToolCall(call) => Some(json!({
                "type": "tool_use", "id": call.id, "name": call.name, "input": {},
            })),
            _ => None,
        })
        .collect();
    let reason = message.response_metadata.finish_reason.as_str();
    let usage = message.usage.clone().unwrap_or_default();
    json!({
        "id": identity.id_or(GENERATED_ID),
        "type": "message",
        "role": "assistant",
        "model": identity.model(),
        "content": content,
        "stop_reason": finish::anthropic(reason, message.has_tool_calls(), message.refusal().is_some()),
        "stop_sequence": null,
        "usage": usage_json(&usage),
    })
}
