//! The non-streamed `response`: the message's blocks as output items, in order.

use serde_json::{json, Value};

use super::items::{item_json, response_shell, usage_json, Item};
use crate::encode::{finish, Identity};
use crate::message::{AiMessage, ContentBlock};

/// The non-streamed `response`.
pub(in crate::encode) fn response(message: &AiMessage) -> Value {
    let identity = Identity::of_message(message);
    let mut output: Vec<Value> = Vec::new();
    let mut parts: Vec<Value> = Vec::new();
    let flush = |parts: &mut Vec<Value>, output: &mut Vec<Value>| {
        if !parts.is_empty() {
            let id = format!("msg_df_{}", output.len());
            output.push(item_json(Item::Message {
                id,
                refusal: false,
                parts: std::mem::take(parts),
                text: String::new(),
            }));
        }
    };
    for block in &message.content {
        match block {
            // Annotations are not carried (see the table in `encode`): the source's are in its own
            // shape, which the Responses models refuse.
            ContentBlock::Text { text, .. } => parts.push(
                json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []}),
            ),
            ContentBlock::Refusal { refusal } => {
                parts.push(json!({"type": "refusal", "refusal": refusal}))
            }
            ContentBlock::Reasoning {
                text, data, extras, ..
            } => {
                flush(&mut parts, &mut output);
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
                flush(&mut parts, &mut output);
                let id = format!("fc_df_{}", output.len());
                output.push(item_json(Item::Call {
                    id,
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: Value::Object(call.args.clone()).to_string(),
                }));
            }
            ContentBlock::InvalidToolCall(call) => {
                flush(&mut parts, &mut output);
                let id = format!("fc_df_{}", output.len());
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
    flush(&mut parts, &mut output);
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
