//! Reading a Responses request's `input` (and `instructions`) back into messages, by way of the
//! Chat Completions messages they mean: `message` items (text and image parts), `function_call`
//! and `function_call_output`. Other items (`reasoning`, built-in tool calls…) are an error
//! naming the item type: they carry state only OpenAI can read back.

use serde_json::{json, Map, Value};

use super::{malformed, unsupported};
use crate::message::Message;
use crate::wire::openai_chat;
use crate::wire::{WireError, WireFormat};

const FORMAT: WireFormat = WireFormat::OpenAiResponses;

/// The messages of `instructions` and `input`.
pub(super) fn decode(
    instructions: Option<String>,
    input: Option<Value>,
) -> Result<Vec<Message>, WireError> {
    let mut chat: Vec<Value> = Vec::new();
    if let Some(instructions) = instructions {
        chat.push(json!({"role": "system", "content": instructions}));
    }
    match input {
        None => {}
        Some(Value::String(text)) => chat.push(json!({"role": "user", "content": text})),
        Some(Value::Array(items)) => {
            for item in items {
                push_item(&mut chat, item)?;
            }
        }
        Some(other) => return Err(malformed(FORMAT, format!("`input` is {other}"))),
    }
    openai_chat::decode(&chat)
}

fn push_item(chat: &mut Vec<Value>, item: Value) -> Result<(), WireError> {
    let Value::Object(mut item) = item else {
        return Err(malformed(FORMAT, format!("an input item is {item}")));
    };
    let kind = item
        .remove("type")
        .and_then(|kind| kind.as_str().map(str::to_owned));
    match kind.as_deref() {
        None | Some("message") => {
            let content = match item.remove("content") {
                Some(Value::Array(parts)) => {
                    Value::Array(parts.into_iter().map(chat_part).collect::<Result<_, _>>()?)
                }
                Some(content) => content,
                None => return Err(malformed(FORMAT, "a message item has no `content`")),
            };
            item.insert("content".into(), content);
            chat.push(Value::Object(item));
        }
        Some("function_call") => {
            let call = json!({
                "id": item.remove("call_id").unwrap_or_default(),
                "type": "function",
                "function": {
                    "name": item.remove("name").unwrap_or_default(),
                    "arguments": item.remove("arguments").unwrap_or_default(),
                },
            });
            let last_is_assistant = chat.last().is_some_and(|last| last["role"] == "assistant");
            if !last_is_assistant {
                chat.push(json!({"role": "assistant", "content": null}));
            }
            let Some(Value::Object(last)) = chat.last_mut() else {
                unreachable!("an assistant message was just ensured");
            };
            match last.get_mut("tool_calls") {
                Some(Value::Array(calls)) => calls.push(call),
                _ => {
                    last.insert("tool_calls".into(), json!([call]));
                }
            }
        }
        Some("function_call_output") => chat.push(json!({
            "role": "tool",
            "tool_call_id": item.remove("call_id").unwrap_or_default(),
            "content": item.remove("output").unwrap_or_default(),
        })),
        Some(other) => {
            return Err(unsupported(
                FORMAT,
                format!("reading back a `{other}` input item"),
            ))
        }
    }
    Ok(())
}

/// A Responses content part as the Chat Completions part it means.
fn chat_part(part: Value) -> Result<Value, WireError> {
    let Value::Object(mut part) = part else {
        return Err(malformed(FORMAT, format!("a content part is {part}")));
    };
    let kind = part.remove("type");
    let mut chat = Map::new();
    match kind.as_ref().and_then(Value::as_str) {
        Some("input_text" | "output_text") => {
            part.remove("annotations");
            chat.insert("type".into(), "text".into());
            chat.insert("text".into(), part.remove("text").unwrap_or_default());
        }
        Some("input_image") => {
            let mut image = Map::new();
            image.insert("url".into(), part.remove("image_url").unwrap_or_default());
            if let Some(detail) = part.remove("detail") {
                image.insert("detail".into(), detail);
            }
            chat.insert("type".into(), "image_url".into());
            chat.insert("image_url".into(), image.into());
        }
        other => {
            return Err(unsupported(
                FORMAT,
                format!(
                    "reading back a `{}` content part",
                    other.unwrap_or("untyped")
                ),
            ))
        }
    }
    if let Some(key) = part.keys().next() {
        return Err(unsupported(FORMAT, format!("`{key}` on a content part")));
    }
    Ok(chat.into())
}
