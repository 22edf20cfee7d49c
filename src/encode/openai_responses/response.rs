//! The non-streamed `response`: the message's blocks as output items, in order (a server-side
//! call and its result as one item).

use serde_json::{json, Value};

use super::items::{
    item_json, message_item, response_shell, usage_json, Item, JsonList, ServerItem,
};
use crate::encode::server_tools::{responses_annotation, responses_approval, responses_item_type};
use crate::encode::{finish, Identity};
use crate::message::{AiMessage, ContentBlock};

/// The non-streamed `response`.
pub(in crate::encode) fn response(message: &AiMessage) -> Value {
    let identity = Identity::of_message(message);
    let native = message.response_metadata.model_provider.as_deref() == Some("openai");
    let mut output: Vec<Value> = Vec::new();
    let mut parts: JsonList = JsonList::default();
    // The source's message item (`msg_…` id, phase) the gathered parts belong to.
    let mut source: (Option<&str>, Option<&str>) = (None, None);
    let flush =
        |parts: &mut JsonList, source: (Option<&str>, Option<&str>), output: &mut Vec<Value>| {
            if !parts.is_empty() {
                let (id, phase) = source;
                let id = id.map_or_else(|| format!("msg_df_{}", output.len()), str::to_owned);
                output.push(item_json(Item::Message {
                    id,
                    phase: phase.map(str::to_owned),
                    refusal: false,
                    parts: std::mem::take(parts),
                    text: String::new(),
                    mirrors: None,
                    annotations: Vec::new(),
                    annotated: 0,
                }));
            }
        };
    for block in &message.content {
        if matches!(
            block,
            ContentBlock::Text { .. } | ContentBlock::Refusal { .. }
        ) {
            // Parts of another source item start an item of their own.
            let item = message_item(Some(block));
            if item != source {
                flush(&mut parts, source, &mut output);
                source = item;
            }
        }
        match block {
            ContentBlock::Text {
                text, annotations, ..
            } => {
                let annotations: Vec<Value> = annotations
                    .iter()
                    .filter_map(responses_annotation)
                    .collect();
                parts.push(&json!({"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}).to_string())
            }
            ContentBlock::ServerToolCall(call) => {
                let Some(kind) = responses_item_type(&call.name) else {
                    continue;
                };
                flush(&mut parts, source, &mut output);
                let result = message.content.iter().find(|block| match block {
                    ContentBlock::ServerToolResult(result) => result.tool_call_id == call.id,
                    ContentBlock::Image(media) => media.id.as_deref() == Some(call.id.as_str()),
                    _ => false,
                });
                output.push(item_json(Item::Server(Box::new(ServerItem {
                    kind,
                    call: call.clone(),
                    result: result.cloned(),
                    native,
                    streamed: false,
                }))));
            }
            ContentBlock::ToolApprovalRequest(request) => {
                flush(&mut parts, source, &mut output);
                output.push(responses_approval(request));
            }
            ContentBlock::Refusal { refusal, .. } => {
                parts.push(&json!({"type": "refusal", "refusal": refusal}).to_string())
            }
            ContentBlock::Reasoning {
                text, data, extras, ..
            } => {
                flush(&mut parts, source, &mut output);
                let id = extras
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("rs_df_{}", output.len()), str::to_owned);
                output.push(item_json(Item::Reasoning {
                    id,
                    text: text.clone(),
                    mirrors: None,
                    data: data.clone(),
                }));
            }
            ContentBlock::ToolCall(call) => {
                flush(&mut parts, source, &mut output);
                let id = call
                    .item_id()
                    .map_or_else(|| format!("fc_df_{}", output.len()), str::to_owned);
                output.push(item_json(Item::Call {
                    id,
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: Value::Object(call.args.clone()).to_string(),
                }));
            }
            ContentBlock::InvalidToolCall(call) => {
                flush(&mut parts, source, &mut output);
                let id = call
                    .item_id()
                    .map_or_else(|| format!("fc_df_{}", output.len()), str::to_owned);
                output.push(item_json(Item::Call {
                    id,
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.args.clone(),
                }));
            }
            _ => {}
        }
    }
    flush(&mut parts, source, &mut output);
    let reason = message.response_metadata.finish_reason.as_str();
    let incomplete = finish::responses(reason, message.has_tool_calls());
    let mut response = response_shell(
        &identity,
        if incomplete.is_some() {
            "incomplete"
        } else {
            "completed"
        },
    );
    response["output"] = Value::Array(output);
    response["usage"] = usage_json(&message.usage.clone().unwrap_or_default());
    if let Some(reason) = incomplete {
        response["incomplete_details"] = json!({ "reason": reason });
    }
    response
}
