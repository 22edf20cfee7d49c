//! AG-UI's non-streamed form: a finished message as one `MESSAGES_SNAPSHOT` event. Apart from
//! the event rules in `mod.rs`, which write the same message as it streams.

use serde_json::{json, Value};

use super::GENERATED_RUN;
use crate::assemble::FinishedToolCall;
use crate::encode::{call_parts, Identity};
use crate::message::AiMessage;

/// The message as AG-UI's `MESSAGES_SNAPSHOT` event: the non-streamed form, for an app that
/// sends the whole answer at once. Its reasoning as one reasoning message, its text, refusal and
/// client tool calls as one assistant message.
pub(in crate::encode) fn messages_snapshot(message: &AiMessage) -> Value {
    let id = Identity::of_message(message)
        .id_or(GENERATED_RUN)
        .to_owned();
    let mut messages = Vec::new();
    let reasoning = message.reasoning();
    if !reasoning.is_empty() {
        messages.push(
            json!({"id": format!("{id}-reasoning"), "role": "reasoning", "content": reasoning}),
        );
    }
    let mut text = message.text();
    if let Some(refusal) = message.refusal() {
        text.push_str(&refusal);
    }
    let calls: Vec<Value> = message
        .content
        .iter()
        .filter_map(FinishedToolCall::of)
        .map(|call| {
            let (id, name, arguments) = call_parts(&call);
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    let mut assistant = json!({"id": format!("{id}-assistant"), "role": "assistant"});
    if !text.is_empty() {
        assistant["content"] = json!(text);
    }
    if !calls.is_empty() {
        assistant["toolCalls"] = Value::Array(calls);
    }
    messages.push(assistant);
    json!({"type": "MESSAGES_SNAPSHOT", "messages": messages})
}
