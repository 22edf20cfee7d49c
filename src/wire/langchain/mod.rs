//! LangChain's message dicts, both ways: what Python's `messages_to_dict` writes and
//! `messages_from_dict` reads, so a conversation can move between a Python service and a Rust
//! one.
//!
//! ```
//! use deltafold::message::Message;
//! use deltafold::wire::langchain;
//!
//! let dicts = langchain::messages_to_dict(&[Message::user("Hi!")]);
//! assert_eq!(dicts[0]["type"], "human");
//! assert_eq!(dicts[0]["data"]["content"], "Hi!");
//! assert_eq!(langchain::messages_from_dict(&dicts)?, [Message::user("Hi!")]);
//! # Ok::<(), deltafold::wire::WireError>(())
//! ```
//!
//! Each dict is `{"type": "human" | "ai" | "system" | "tool" | "chat", "data": {...}}`, the data
//! being the message's `model_dump()`. A message's `extra` is LangChain's `additional_kwargs`;
//! blocks use LangChain's standard content-block shapes, and blocks LangChain carries in a
//! provider's own shape (OpenAI's `image_url`, Anthropic's `thinking`…) are read too. The serde
//! form of [`Message`] is the data dict alone (its `type` tells the kind).
//!
//! What does not survive: `response_metadata` of messages other than assistant ones, and the
//! `example` flag of older LangChain versions.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Map, Value};

mod ai_message;
mod reasoning_items;

pub use ai_message::AiMessageDict;

use super::{as_object, optional_string, required_string, At, WireError, WireFormat};
use crate::message::{
    AiMessage, ChatMessage, Content, ContentBlock, MediaBlock, MediaSource, Message, SystemMessage,
    ToolMessage, ToolStatus, UserMessage,
};

const FORMAT: WireFormat = WireFormat::LangChain;

/// Writes each message as `{"type": …, "data": {…}}`, like Python's `messages_to_dict`.
pub fn messages_to_dict(messages: &[Message]) -> Vec<Value> {
    messages.iter().map(message_to_dict).collect()
}

/// Writes one message as `{"type": …, "data": {…}}`, like Python's `message_to_dict`.
pub fn message_to_dict(message: &Message) -> Value {
    let data = to_data(message);
    json!({"type": data["type"].clone(), "data": data})
}

/// An assembled answer as a dict: LangChain's `AIMessage` dict (the serde form of
/// [`AiMessage`]) with the provider-neutral [`FinishKind`] beside the provider's finish reason,
/// as `response_metadata.finish_kind` (a free-form dict in LangChain), so that answers of
/// different providers compare. What the CLI's `--json` prints and the Python package's
/// `Completion.message()` returns.
///
/// ```
/// let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
/// let message = deltafold::assemble(body, deltafold::Options::new())?.into_message();
/// let dict = deltafold::wire::langchain::ai_message_dict(&message);
/// assert_eq!(dict["content"], "Hi");
/// assert_eq!(dict["response_metadata"]["finish_reason"], "stop");
/// assert_eq!(dict["response_metadata"]["finish_kind"], "stop");
/// # Ok::<(), deltafold::Error>(())
/// ```
///
/// [`FinishKind`]: crate::message::FinishKind
pub fn ai_message_dict(message: &AiMessage) -> Value {
    serde_json::to_value(ai_message_out(message)).unwrap_or_default()
}

/// The dict [`ai_message_dict`] gives, to serialise straight to a writer: written from the
/// message as it is held, never copied or built into a tree of `Value`s (a large usage object or
/// answer costs nothing beyond what the writer buffers).
///
/// ```
/// let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n";
/// let message = deltafold::assemble(body, deltafold::Options::new())?.into_message();
/// let json = serde_json::to_string(&deltafold::wire::langchain::ai_message_out(&message)).unwrap();
/// assert!(json.contains(r#""finish_kind":"length""#));
/// # Ok::<(), deltafold::Error>(())
/// ```
pub fn ai_message_out(message: &AiMessage) -> AiMessageDict<'_> {
    AiMessageDict(message)
}

/// Reads dicts written by Python's `messages_to_dict` (or [`messages_to_dict`]).
pub fn messages_from_dict(dicts: &[Value]) -> Result<Vec<Message>, WireError> {
    dicts
        .iter()
        .enumerate()
        .map(|(index, dict)| {
            let at = At {
                format: FORMAT,
                index,
            };
            let object = as_object(dict, "the message dict", at)?;
            let kind = required_string(object, "type", at)?;
            let data = as_object(object.get("data").unwrap_or(&Value::Null), "`data`", at)?;
            from_data(&kind, data, at)
        })
        .collect()
}

/// Reads one dict written by Python's `message_to_dict`.
pub fn message_from_dict(dict: &Value) -> Result<Message, WireError> {
    let mut messages = messages_from_dict(std::slice::from_ref(dict))?;
    messages.pop().ok_or_else(|| {
        At {
            format: FORMAT,
            index: 0,
        }
        .malformed("no message")
    })
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Assistant(message) => message.serialize(serializer),
            other => to_data(other).serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let at = At {
            format: FORMAT,
            index: 0,
        };
        let read = |value: &Value| {
            let data = as_object(value, "the message", at)?;
            let kind = required_string(data, "type", at)?;
            from_data(&kind, data, at)
        };
        read(&value).map_err(serde::de::Error::custom)
    }
}

/// The `model_dump()` of a message.
fn to_data(message: &Message) -> Value {
    let (kind, content, extra, name, id) = match message {
        Message::Assistant(message) => {
            return serde_json::to_value(message).unwrap_or_default();
        }
        Message::System(m) => ("system", &m.content, &m.extra, &m.name, &m.id),
        Message::User(m) => ("human", &m.content, &m.extra, &m.name, &m.id),
        Message::Tool(m) => ("tool", &m.content, &m.extra, &m.name, &m.id),
        Message::Chat(m) => ("chat", &m.content, &m.extra, &m.name, &m.id),
    };
    let mut data = json!({
        "content": encode_content(content),
        "additional_kwargs": extra,
        "response_metadata": {},
        "type": kind,
        "name": name,
        "id": id,
    });
    match message {
        Message::Tool(tool) => {
            data["tool_call_id"] = tool.tool_call_id.clone().into();
            data["artifact"] = tool.artifact.clone().unwrap_or_default();
            data["status"] = json!(tool.status);
        }
        Message::Chat(chat) => data["role"] = chat.role.clone().into(),
        _ => {}
    }
    data
}

fn encode_content(content: &Content) -> Value {
    match content {
        Content::Text(text) => text.as_str().into(),
        Content::Blocks(blocks) => blocks.iter().map(encode_block).collect(),
    }
}

/// A block in LangChain's standard shape; a non-standard block as the provider block it holds.
fn encode_block(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::NonStandard { value } => value.clone(),
        // LangChain has no standard block for it: the native item, which langchain-openai
        // sends on as an `mcp_approval_response` input item.
        ContentBlock::ToolApprovalResponse(answer) => {
            let mut value = serde_json::to_value(answer).unwrap_or_default();
            value["type"] = "mcp_approval_response".into();
            value
        }
        ContentBlock::PlainText(media) => {
            let mut value = serde_json::to_value(block).unwrap_or_default();
            lift_plain_text_fields(&mut value, media);
            value
        }
        other => serde_json::to_value(other).unwrap_or_default(),
    }
}

/// LangChain's `text-plain` block has `title` and `context` of its own, not in `extras`.
fn lift_plain_text_fields(value: &mut Value, media: &MediaBlock) {
    for key in PLAIN_TEXT_FIELDS {
        if let Some(field) = media.extras.get(*key) {
            value[*key] = field.clone();
            if let Some(Value::Object(extras)) = value.get_mut("extras") {
                extras.remove(*key);
                if extras.is_empty() {
                    if let Value::Object(object) = value {
                        object.remove("extras");
                    }
                }
            }
        }
    }
}

const PLAIN_TEXT_FIELDS: &[&str] = &["title", "context"];

fn from_data(kind: &str, data: &Map<String, Value>, at: At) -> Result<Message, WireError> {
    if matches!(kind, "ai" | "AIMessageChunk") {
        return decode_ai(data, at).map(Message::Assistant);
    }
    let content = decode_content(data.get("content").unwrap_or(&Value::Null), at)?;
    let extra = match data.get("additional_kwargs") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(kwargs)) => kwargs.clone(),
        Some(other) => return Err(at.malformed(format!("`additional_kwargs` is {other}"))),
    };
    let name = optional_string(data, "name", at)?;
    let id = optional_string(data, "id", at)?;
    Ok(match kind {
        "human" | "HumanMessageChunk" => Message::User(UserMessage {
            content,
            id,
            name,
            extra,
        }),
        "system" | "SystemMessageChunk" => Message::System(SystemMessage {
            content,
            id,
            name,
            extra,
        }),
        "tool" | "ToolMessageChunk" => Message::Tool(ToolMessage {
            tool_call_id: required_string(data, "tool_call_id", at)?,
            content,
            status: match optional_string(data, "status", at)?.as_deref() {
                None | Some("success") => ToolStatus::Success,
                Some("error") => ToolStatus::Error,
                Some(other) => return Err(at.malformed(format!("unknown tool status {other:?}"))),
            },
            artifact: data
                .get("artifact")
                .filter(|value| !value.is_null())
                .cloned(),
            id,
            name,
            extra,
        }),
        "chat" | "ChatMessageChunk" | "function" | "FunctionMessageChunk" => {
            let role = match kind {
                "function" | "FunctionMessageChunk" => "function".to_owned(),
                _ => required_string(data, "role", at)?,
            };
            Message::Chat(ChatMessage {
                role,
                content,
                id,
                name,
                extra,
            })
        }
        other => return Err(at.malformed(format!("unknown message type {other:?}"))),
    })
}

fn decode_content(content: &Value, at: At) -> Result<Content, WireError> {
    match content {
        Value::Null => Ok(Content::default()),
        Value::String(text) => Ok(Content::Text(text.clone())),
        Value::Array(parts) => parts
            .iter()
            .map(|part| decode_block(part, at))
            .collect::<Result<Vec<_>, _>>()
            .map(Content::Blocks),
        other => Err(at.malformed(format!("`content` is {other}"))),
    }
}

/// Block types of LangChain's standard shape that deltafold models.
const STANDARD_TYPES: &[&str] = &[
    "text",
    "reasoning",
    "refusal",
    "tool_call",
    "invalid_tool_call",
    "image",
    "audio",
    "video",
    "file",
    "text-plain",
    "non_standard",
];

/// One content item: a string, a standard block, an older (`source_type`) data block, an
/// OpenAI-style part, or anything else as a non-standard block.
fn decode_block(part: &Value, at: At) -> Result<ContentBlock, WireError> {
    let object = match part {
        Value::String(text) => return Ok(ContentBlock::text(text.as_str())),
        Value::Object(object) => object,
        other => return Err(at.malformed(format!("a content item is {other}"))),
    };
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if kind == "image_url"
        || kind == "input_audio"
        || (kind == "file" && object.contains_key("file"))
    {
        return super::openai_chat::decode_part(part, at);
    }
    if kind == "mcp_approval_response" {
        // The native item langchain-openai forwards from a user message.
        let mut answer = object.clone();
        answer.remove("type");
        return Ok(serde_json::from_value(Value::Object(answer))
            .map(ContentBlock::ToolApprovalResponse)
            .unwrap_or_else(|_| non_standard(part)));
    }
    if !STANDARD_TYPES.contains(&kind) {
        return Ok(non_standard(part));
    }
    if let Some(block) = decode_source_type_block(kind, object) {
        return Ok(block);
    }
    let mut standard = object.clone();
    if kind == "text-plain" {
        for key in PLAIN_TEXT_FIELDS {
            if let Some(field) = standard.remove(*key) {
                let extras = standard.entry("extras").or_insert_with(|| json!({}));
                if let Value::Object(extras) = extras {
                    extras.insert((*key).to_owned(), field);
                }
            }
        }
    }
    Ok(serde_json::from_value(Value::Object(standard)).unwrap_or_else(|_| non_standard(part)))
}

fn non_standard(part: &Value) -> ContentBlock {
    ContentBlock::NonStandard {
        value: part.clone(),
    }
}

/// LangChain 0.3's data blocks: `{"type": "image", "source_type": "url" | "base64" | "id" |
/// "text", "url" | "data" | "id" | "text": …, "mime_type": …}`.
fn decode_source_type_block(kind: &str, object: &Map<String, Value>) -> Option<ContentBlock> {
    let source_type = object.get("source_type")?.as_str()?;
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    let source = match source_type {
        "url" => MediaSource::Url(text("url")?),
        "base64" => MediaSource::Base64(text("data")?),
        "id" => MediaSource::FileId(text("id")?),
        "text" => MediaSource::Text(text("text")?),
        _ => return None,
    };
    let mut media = MediaBlock::from_source(source);
    media.mime_type = text("mime_type");
    if let Some(Value::Object(metadata)) = object.get("metadata") {
        media.extras.extend(metadata.clone());
    }
    Some(match kind {
        "image" => ContentBlock::Image(media),
        "audio" => ContentBlock::Audio(media),
        "video" => ContentBlock::Video(media),
        "text-plain" => ContentBlock::PlainText(media),
        _ => ContentBlock::File(media),
    })
}

/// An `AIMessage` dict. Dicts written by deltafold carry `content_blocks`; for dicts LangChain
/// wrote, provider blocks in `content` are made readable first: Anthropic's `thinking` becomes
/// reasoning, its `tool_use` blocks are dropped (the same calls are in `tool_calls`), and other
/// unknown blocks become non-standard blocks (a `redacted_thinking` one reads as reasoning).
fn decode_ai(data: &Map<String, Value>, at: At) -> Result<AiMessage, WireError> {
    let mut data = data.clone();
    data.entry("type").or_insert_with(|| "ai".into());
    if !data.contains_key("content_blocks") {
        if let Some(Value::Array(parts)) = data.get_mut("content") {
            let parts_in = std::mem::take(parts);
            *parts = parts_in.into_iter().filter_map(readable_ai_part).collect();
        }
    }
    serde_json::from_value(Value::Object(data)).map_err(|error| at.malformed(error.to_string()))
}

fn readable_ai_part(part: Value) -> Option<Value> {
    let kind = part.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "" if part.is_string() => Some(part),
        "tool_use" => None,
        "thinking" => {
            let mut reasoning = json!({"type": "reasoning", "reasoning": part["thinking"]});
            if let Some(signature) = part.get("signature") {
                reasoning["extras"] = json!({"signature": signature});
            }
            Some(reasoning)
        }
        _ if serde_json::from_value::<ContentBlock>(part.clone()).is_ok() => Some(part),
        _ => Some(json!({"type": "non_standard", "value": part})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_types_are_errors_and_unknown_blocks_are_kept() {
        let error =
            messages_from_dict(&[json!({"type": "remove", "data": {"id": "x"}})]).unwrap_err();
        assert!(error.to_string().contains("\"remove\""), "{error}");
        let part = json!({"type": "search_result", "source": "https://x.test", "content": []});
        let message =
            message_from_dict(&json!({"type": "human", "data": {"content": [part]}})).unwrap();
        let Message::User(user) = &message else {
            panic!("{message:?}")
        };
        assert_eq!(user.content, Content::Blocks(vec![non_standard(&part)]));
        assert_eq!(message_to_dict(&message)["data"]["content"], json!([part]));
    }

    #[test]
    fn older_source_type_blocks_are_read() {
        let block = decode_block(
            &json!({"type": "image", "source_type": "base64", "data": "iVBO", "mime_type": "image/png"}),
            At { format: FORMAT, index: 0 },
        )
        .unwrap();
        assert_eq!(
            block,
            ContentBlock::image(MediaBlock::base64("iVBO", "image/png"))
        );
    }

    #[test]
    fn serde_uses_the_data_dict() {
        let message = Message::tool("call_1", "18°C");
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(value["type"], "tool");
        assert_eq!(value["status"], "success");
        assert_eq!(serde_json::from_value::<Message>(value).unwrap(), message);
    }
}
