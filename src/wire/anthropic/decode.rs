//! Reading an Anthropic Messages request back into messages.

use serde_json::{Map, Value};

use super::FORMAT;
use crate::message::{
    AiMessage, Annotation, Content, ContentBlock, InvalidToolCall, MediaBlock, MediaSource,
    Message, SystemMessage, ToolCall, ToolMessage, ToolStatus, UserMessage, PLAIN_TEXT,
};
use crate::wire::{as_object, optional_string, other_fields, required_string, At, WireError};

/// Reads a Messages request (its `system` and `messages`; other fields are ignored).
///
/// A user message's `tool_result` blocks become tool messages, in place; its other blocks a
/// user message. Fields of a user message's last text block beyond `text` (`cache_control`) go
/// to the message's `extra`, those of a `tool_result` block to the tool message's. Blocks this
/// module does not know (`server_tool_use`, `web_search_tool_result`, `search_result`…) become
/// non-standard blocks and are sent back as they came.
pub fn decode(request: &Value) -> Result<Vec<Message>, WireError> {
    let request = as_object(
        request,
        "the request",
        At {
            format: FORMAT,
            index: 0,
        },
    )?;
    let mut messages = decode_system(request.get("system").unwrap_or(&Value::Null))?;
    let wire = match request.get("messages") {
        Some(Value::Array(wire)) => wire,
        _ => {
            let at = At {
                format: FORMAT,
                index: 0,
            };
            return Err(at.malformed("the request has no `messages` array"));
        }
    };
    for (index, message) in wire.iter().enumerate() {
        let at = At {
            format: FORMAT,
            index,
        };
        let object = as_object(message, "the message", at)?;
        let content = object.get("content").unwrap_or(&Value::Null);
        match required_string(object, "role", at)?.as_str() {
            "user" => decode_user(content, &mut messages, at)?,
            "assistant" => messages.push(Message::Assistant(decode_assistant(content, at)?)),
            other => {
                return Err(
                    at.malformed(format!("the role {other:?} is neither user nor assistant"))
                )
            }
        }
    }
    Ok(messages)
}

fn decode_system(system: &Value) -> Result<Vec<Message>, WireError> {
    let at = At {
        format: FORMAT,
        index: 0,
    };
    match system {
        Value::Null => Ok(Vec::new()),
        Value::String(text) => Ok(vec![Message::system(text.as_str())]),
        Value::Array(blocks) => blocks
            .iter()
            .map(|block| {
                let block = as_object(block, "a system block", at)?;
                let text = required_string(block, "text", at)?;
                Ok(Message::System(SystemMessage {
                    content: Content::Text(text),
                    extra: other_fields(block, &["type", "text"]),
                    ..SystemMessage::default()
                }))
            })
            .collect(),
        other => Err(at.malformed(format!("`system` is {other}"))),
    }
}

fn decode_user(content: &Value, messages: &mut Vec<Message>, at: At) -> Result<(), WireError> {
    let blocks = match content {
        Value::String(text) => {
            messages.push(Message::user(text.as_str()));
            return Ok(());
        }
        Value::Array(blocks) => blocks,
        other => return Err(at.malformed(format!("`content` is {other}"))),
    };
    let mut user = UserMessage::default();
    let mut user_blocks = Vec::new();
    for block in blocks {
        let object = as_object(block, "a content block", at)?;
        if object.get("type").and_then(Value::as_str) == Some("tool_result") {
            flush_user(&mut user, &mut user_blocks, messages);
            messages.push(Message::Tool(decode_tool_result(object, at)?));
        } else {
            let (decoded, extra) = decode_block(block, at)?;
            user.extra = extra;
            user_blocks.push(decoded);
        }
    }
    flush_user(&mut user, &mut user_blocks, messages);
    Ok(())
}

fn flush_user(user: &mut UserMessage, blocks: &mut Vec<ContentBlock>, messages: &mut Vec<Message>) {
    if !blocks.is_empty() {
        let mut message = std::mem::take(user);
        message.content = Content::Blocks(std::mem::take(blocks));
        messages.push(Message::User(message));
    }
}

/// A user or tool-result block, and the fields of a text block beyond its text.
fn decode_block(block: &Value, at: At) -> Result<(ContentBlock, Map<String, Value>), WireError> {
    let object = as_object(block, "a content block", at)?;
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let decoded = match kind {
        "text" => {
            let text = required_string(object, "text", at)?;
            let annotations = citations(object);
            let extra = other_fields(object, &["type", "text", "citations"]);
            return Ok((
                ContentBlock::Text {
                    text,
                    annotations,
                    id: None,
                    phase: None,
                },
                extra,
            ));
        }
        "image" => ContentBlock::Image(decode_media(object, at)?),
        "document" => {
            let media = decode_media(object, at)?;
            let is_text = matches!(media.source, MediaSource::Text(_))
                || media.mime_type.as_deref() == Some(PLAIN_TEXT);
            if is_text {
                ContentBlock::PlainText(media)
            } else {
                ContentBlock::File(media)
            }
        }
        _ => ContentBlock::NonStandard {
            value: block.clone(),
        },
    };
    Ok((decoded, Map::new()))
}

fn citations(object: &Map<String, Value>) -> Vec<Annotation> {
    match object.get("citations") {
        Some(Value::Array(citations)) => citations
            .iter()
            .cloned()
            .map(Annotation::from_provider)
            .collect(),
        _ => Vec::new(),
    }
}

fn decode_media(object: &Map<String, Value>, at: At) -> Result<MediaBlock, WireError> {
    let source = as_object(
        object.get("source").unwrap_or(&Value::Null),
        "a block's `source`",
        at,
    )?;
    let mime_type = optional_string(source, "media_type", at)?;
    let source = match required_string(source, "type", at)?.as_str() {
        "base64" => MediaSource::Base64(required_string(source, "data", at)?),
        "text" => MediaSource::Text(required_string(source, "data", at)?),
        "url" => MediaSource::Url(required_string(source, "url", at)?),
        "file" => MediaSource::FileId(required_string(source, "file_id", at)?),
        other => return Err(at.unsupported(format!("a {other:?} source"))),
    };
    Ok(MediaBlock {
        source,
        mime_type,
        id: None,
        extras: other_fields(object, &["type", "source"]),
    })
}

fn decode_tool_result(object: &Map<String, Value>, at: At) -> Result<ToolMessage, WireError> {
    let content = match object.get("content") {
        None | Some(Value::Null) => Content::default(),
        Some(Value::String(text)) => Content::Text(text.clone()),
        Some(Value::Array(blocks)) => Content::Blocks(
            blocks
                .iter()
                .map(|block| decode_block(block, at).map(|(block, _)| block))
                .collect::<Result<_, _>>()?,
        ),
        Some(other) => return Err(at.malformed(format!("a tool result's `content` is {other}"))),
    };
    let is_error = object.get("is_error").and_then(Value::as_bool) == Some(true);
    Ok(ToolMessage {
        tool_call_id: required_string(object, "tool_use_id", at)?,
        content,
        status: if is_error {
            ToolStatus::Error
        } else {
            ToolStatus::Success
        },
        extra: other_fields(object, &["type", "tool_use_id", "content", "is_error"]),
        ..ToolMessage::default()
    })
}

fn decode_assistant(content: &Value, at: At) -> Result<AiMessage, WireError> {
    let blocks = match content {
        Value::String(text) => vec![ContentBlock::text(text.as_str())],
        Value::Array(blocks) => blocks
            .iter()
            .map(|block| decode_assistant_block(block, at))
            .collect::<Result<_, _>>()?,
        other => return Err(at.malformed(format!("`content` is {other}"))),
    };
    // Its thinking signatures are Anthropic's: another format's encoder (Gemini's) must not
    // send them as its own.
    let mut message = AiMessage {
        content: blocks,
        ..AiMessage::default()
    };
    message.response_metadata.model_provider = Some("anthropic".into());
    Ok(message)
}

fn decode_assistant_block(block: &Value, at: At) -> Result<ContentBlock, WireError> {
    let object = as_object(block, "a content block", at)?;
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(match kind {
        "text" => ContentBlock::Text {
            text: required_string(object, "text", at)?,
            annotations: citations(object),
            id: None,
            phase: None,
        },
        "thinking" => ContentBlock::Reasoning {
            text: required_string(object, "thinking", at)?,
            signature: optional_string(object, "signature", at)?,
            data: None,
            extras: Map::new(),
        },
        "redacted_thinking" => ContentBlock::Reasoning {
            text: String::new(),
            signature: None,
            data: Some(required_string(object, "data", at)?),
            extras: Map::new(),
        },
        "tool_use" => {
            let id = required_string(object, "id", at)?;
            let name = required_string(object, "name", at)?;
            match object.get("input") {
                Some(Value::Object(args)) => ContentBlock::ToolCall(ToolCall {
                    id,
                    name,
                    args: args.clone(),
                    extras: super::CALL_EXTRAS
                        .iter()
                        .filter_map(|key| Some(((*key).to_owned(), object.get(*key)?.clone())))
                        .collect(),
                }),
                input => ContentBlock::InvalidToolCall(InvalidToolCall {
                    id,
                    name,
                    args: input.map(Value::to_string).unwrap_or_default(),
                    error: "the input is not a JSON object".into(),
                    extras: Map::new(),
                }),
            }
        }
        _ => ContentBlock::NonStandard {
            value: block.clone(),
        },
    })
}
