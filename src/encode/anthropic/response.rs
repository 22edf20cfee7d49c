//! The non-streamed Anthropic `message`: the content blocks whole, the stop reason, the usage,
//! the code execution container.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::compaction::compaction;
use super::{usage_json, GENERATED_ID};
use crate::encode::server_tools::{
    anthropic_call, anthropic_citation, anthropic_expressible, anthropic_result, anthropic_upload,
};
use crate::encode::{finish, Identity};
use crate::message::{AiMessage, Annotation, ContentBlock, ResponseMetadata};

/// The non-streamed `message`: server-side calls and results as their blocks, citations on
/// their text (see the module doc of `encode::anthropic` for what has no place).
pub(in crate::encode) fn response(message: &AiMessage) -> Value {
    let identity = Identity::of_message(message);
    let native = message.response_metadata.model_provider.as_deref() == Some("anthropic");
    let names: HashMap<&str, &str> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ServerToolCall(call) => Some((call.id.as_str(), call.name.as_str())),
            _ => None,
        })
        .collect();
    let content: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text {
                text, annotations, ..
            } => {
                let mut block = json!({"type": "text", "text": text});
                let citations: Vec<Value> = annotations
                    .iter()
                    .filter_map(|annotation| match annotation {
                        Annotation::Citation(citation) => Some(anthropic_citation(citation)),
                        _ => None,
                    })
                    .collect();
                if !citations.is_empty() {
                    block["citations"] = Value::Array(citations);
                }
                Some(block)
            }
            ContentBlock::Refusal { refusal: text, .. } => {
                Some(json!({"type": "text", "text": text}))
            }
            ContentBlock::ServerToolCall(call) if !anthropic_expressible(&call.name) => None,
            ContentBlock::ServerToolCall(call) => Some(anthropic_call(
                call,
                Value::Object(call.args.clone()),
                native,
            )),
            ContentBlock::ServerToolResult(result) => anthropic_result(
                result,
                names.get(result.tool_call_id.as_str()).copied(),
                native,
            ),
            ContentBlock::File(_) => anthropic_upload(block),
            ContentBlock::NonStandard { .. } => {
                compaction(block).map(|value| Value::Object(value.clone()))
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
    let mut body = json!({
        "id": identity.id_or(GENERATED_ID),
        "type": "message",
        "role": "assistant",
        "model": identity.model(),
        "content": content,
        "stop_reason": finish::anthropic(reason, message.has_tool_calls(), message.refusal().is_some()),
        "stop_sequence": null,
        "usage": usage_json(&usage),
    });
    if let Some(container) = container(&message.response_metadata) {
        body["container"] = container;
    }
    if let Some(edits) = context_management(&message.response_metadata) {
        body["context_management"] = edits;
    }
    body
}

/// The context edits an Anthropic answer reported (`{"applied_edits": […]}`), kept where
/// LangChain keeps them; `None` for any other shape.
pub(super) fn context_management(metadata: &ResponseMetadata) -> Option<Value> {
    let edits = metadata.extra.get("context_management")?;
    edits
        .get("applied_edits")
        .is_some_and(Value::is_array)
        .then(|| edits.clone())
}

/// The code execution container an Anthropic answer named (`{"id", "expires_at"}`), which its
/// client quotes in the next request; `None` for any other shape.
pub(super) fn container(metadata: &ResponseMetadata) -> Option<Value> {
    let container = metadata.extra.get("container")?;
    let shaped = ["id", "expires_at"]
        .iter()
        .all(|key| container.get(*key).is_some_and(Value::is_string));
    shaped.then(|| container.clone())
}
