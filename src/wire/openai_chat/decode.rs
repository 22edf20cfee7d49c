//! Reading a Chat Completions request's `messages` back into messages. Apart from the encoding
//! in `mod.rs`: the two directions share only the format's names.

use serde_json::{Map, Value};

use super::audio::{self, audio_mime_type};
use super::{tool_calls, FORMAT};
use crate::message::{
    parse_data_url, AiMessage, ChatMessage, Content, ContentBlock, MediaBlock, MediaSource,
    Message, SystemMessage, ToolMessage, UserMessage,
};
use crate::wire::{as_object, optional_string, other_fields, required_string, At, WireError};

/// Reads Chat Completions request messages.
///
/// `system` and `developer` both read as system messages; roles other than `user`,
/// `assistant` and `tool` as chat messages with that role. Unknown message fields go to the
/// message's `extra`, unknown content parts
/// to non-standard blocks.
pub fn decode(messages: &[Value]) -> Result<Vec<Message>, WireError> {
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            decode_message(
                message,
                At {
                    format: FORMAT,
                    index,
                },
            )
        })
        .collect()
}

fn decode_message(value: &Value, at: At) -> Result<Message, WireError> {
    let object = as_object(value, "the message", at)?;
    let role = required_string(object, "role", at)?;
    let name = optional_string(object, "name", at)?;
    let content = object.get("content").unwrap_or(&Value::Null);
    Ok(match role.as_str() {
        "system" | "developer" => Message::System(SystemMessage {
            content: decode_content(content, at)?,
            id: None,
            name,
            extra: other_fields(object, &["role", "content", "name"]),
        }),
        "user" => Message::User(UserMessage {
            content: decode_content(content, at)?,
            id: None,
            name,
            extra: other_fields(object, &["role", "content", "name"]),
        }),
        "assistant" => Message::Assistant(decode_assistant(object, content, name, at)?),
        "tool" => Message::Tool(ToolMessage {
            tool_call_id: required_string(object, "tool_call_id", at)?,
            content: decode_content(content, at)?,
            name,
            extra: other_fields(object, &["role", "content", "name", "tool_call_id"]),
            ..ToolMessage::default()
        }),
        _ => Message::Chat(ChatMessage {
            content: decode_content(content, at)?,
            id: None,
            name,
            extra: other_fields(object, &["role", "content", "name"]),
            role,
        }),
    })
}

fn decode_content(content: &Value, at: At) -> Result<Content, WireError> {
    match content {
        Value::Null => Ok(Content::default()),
        Value::String(text) => Ok(Content::Text(text.clone())),
        Value::Array(parts) => parts
            .iter()
            .map(|part| decode_part(part, at))
            .collect::<Result<Vec<_>, _>>()
            .map(Content::Blocks),
        other => Err(at.malformed(format!("`content` is {other}"))),
    }
}

/// One content part; parts this module does not know become non-standard blocks.
pub(crate) fn decode_part(part: &Value, at: At) -> Result<ContentBlock, WireError> {
    let object = as_object(part, "a content part", at)?;
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let block = match kind {
        "text" => ContentBlock::text(required_string(object, "text", at)?),
        "refusal" => ContentBlock::refusal(required_string(object, "refusal", at)?),
        "image_url" => {
            let (url, detail) = match object.get("image_url") {
                Some(Value::String(url)) => (url.clone(), None),
                Some(Value::Object(image)) => (
                    required_string(image, "url", at)?,
                    image.get("detail").cloned(),
                ),
                _ => return Err(at.malformed("an image_url part without `image_url`")),
            };
            let mut media = match parse_data_url(&url) {
                Some((mime_type, data)) => MediaBlock::base64(data, mime_type),
                None => MediaBlock::url(url),
            };
            if let Some(detail) = detail {
                media.extras.insert("detail".into(), detail);
            }
            ContentBlock::Image(media)
        }
        "input_audio" => {
            let audio = as_object(
                object.get("input_audio").unwrap_or(&Value::Null),
                "`input_audio`",
                at,
            )?;
            let data = required_string(audio, "data", at)?;
            let format = required_string(audio, "format", at)?;
            ContentBlock::Audio(MediaBlock::base64(data, audio_mime_type(&format)))
        }
        "file" => {
            let file = as_object(object.get("file").unwrap_or(&Value::Null), "`file`", at)?;
            let mut media = match (
                optional_string(file, "file_id", at)?,
                optional_string(file, "file_data", at)?,
            ) {
                (Some(id), _) => MediaBlock::file_id(id),
                (None, Some(data)) => match parse_data_url(&data) {
                    Some((mime_type, data)) => MediaBlock::base64(data, mime_type),
                    None => MediaBlock::from_source(MediaSource::Base64(data)),
                },
                (None, None) => {
                    return Err(at.malformed("a file part with no file_id or file_data"))
                }
            };
            if let Some(filename) = optional_string(file, "filename", at)? {
                media = media.with_filename(filename);
            }
            ContentBlock::File(media)
        }
        _ => ContentBlock::NonStandard {
            value: part.clone(),
        },
    };
    Ok(block)
}

fn decode_assistant(
    object: &Map<String, Value>,
    content: &Value,
    name: Option<String>,
    at: At,
) -> Result<AiMessage, WireError> {
    let mut blocks = decode_content(content, at)?.into_blocks();
    if let Some(refusal) = optional_string(object, "refusal", at)? {
        blocks.push(ContentBlock::refusal(refusal));
    }
    let calls = match object.get("tool_calls") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(calls)) => calls.as_slice(),
        Some(other) => return Err(at.malformed(format!("`tool_calls` is {other}"))),
    };
    for call in calls {
        blocks.push(tool_calls::decode(call, at)?);
    }
    blocks.extend(audio::decode_assistant_audio(object, at)?);
    Ok(AiMessage {
        name,
        content: blocks,
        extra: other_fields(
            object,
            &["role", "content", "name", "refusal", "tool_calls", "audio"],
        ),
        ..AiMessage::default()
    })
}
