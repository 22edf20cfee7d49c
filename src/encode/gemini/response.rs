//! The non-streamed `GenerateContentResponse`: each choice a candidate with its parts whole,
//! its finish reason and metadata, and the usage. Apart from the chunk rules in `mod.rs`, which
//! write the same parts as they stream.

use serde_json::{json, Value};

use super::server::{is_code, Activity};
use super::{function_call, metadata, usage_json, GEMINI};
use crate::assemble::FinishedToolCall;
use crate::encode::{finish, Identity};
use crate::message::{AiMessage, ContentBlock};
use crate::wire::gemini::parts::{code_execution_result, executable_code};

/// The thought signature a tool call carries itself.
fn call_signature(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::ToolCall(call) => call.signature(),
        _ => None,
    }
}

/// The non-streamed `GenerateContentResponse`.
pub(in crate::encode) fn response(choices: &[(u32, &AiMessage)]) -> Value {
    let identity = choices
        .first()
        .map(|(_, message)| Identity::of_message(message))
        .unwrap_or_default();
    let candidates: Vec<Value> = choices
        .iter()
        .map(|(index, message)| {
            let native = message.response_metadata.model_provider.as_deref() == Some(GEMINI);
            let code_ids: Vec<&str> = message
                .content
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::ServerToolCall(call) if is_code(call) => Some(call.id.as_str()),
                    _ => None,
                })
                .collect();
            let mut parts = Vec::new();
            let mut signature: Option<&str> = None;
            for block in &message.content {
                let mut part = match block {
                    ContentBlock::Reasoning { text, signature: sealed, .. } => {
                        signature = sealed.as_deref().or(signature);
                        if text.is_empty() {
                            continue;
                        }
                        json!({"text": text, "thought": true})
                    }
                    ContentBlock::Text { text, .. } | ContentBlock::Refusal { refusal: text, .. } => json!({"text": text}),
                    ContentBlock::ToolCall(_) | ContentBlock::InvalidToolCall(_) => {
                        json!({"functionCall": FinishedToolCall::of(block).as_ref().map(function_call)})
                    }
                    ContentBlock::ServerToolCall(call) if is_code(call) => {
                        parts.push(executable_code(call, native));
                        continue;
                    }
                    ContentBlock::ServerToolResult(result) if code_ids.contains(&result.tool_call_id.as_str()) => {
                        parts.push(code_execution_result(result, native));
                        continue;
                    }
                    _ => continue,
                };
                if !matches!(block, ContentBlock::Reasoning { .. }) {
                    if let Some(signature) = signature.take().or_else(|| call_signature(block)) {
                        part["thoughtSignature"] = json!(signature);
                    }
                }
                parts.push(part);
            }
            if let Some(signature) = signature {
                parts.push(json!({ "thoughtSignature": signature }));
            }
            let reason = message.response_metadata.finish_reason.as_str();
            let mut candidate = json!({
                "content": {"role": "model", "parts": parts},
                "finishReason": finish::gemini(reason, message.has_tool_calls(), message.refusal().is_some()),
                "index": index,
            });
            metadata(&mut candidate, &Activity::of_blocks(&message.content), native, true);
            candidate
        })
        .collect();
    let mut response = json!({ "candidates": candidates, "modelVersion": identity.model() });
    if let Some(id) = &identity.id {
        response["responseId"] = json!(id);
    }
    if let Some(usage) = choices
        .iter()
        .find_map(|(_, message)| message.usage.as_ref())
    {
        response["usageMetadata"] = usage_json(usage);
    }
    response
}
