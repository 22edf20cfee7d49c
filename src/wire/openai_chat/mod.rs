//! The `messages` array of an OpenAI Chat Completions request, both ways.
//!
//! ```
//! use deltafold::message::Message;
//! use deltafold::wire::openai_chat;
//!
//! let messages = [Message::system("Be brief."), Message::user("Hi!")];
//! let body = serde_json::json!({
//!     "model": "gpt-4o",
//!     "stream": true,
//!     "messages": openai_chat::encode(&messages)?,
//! });
//! assert_eq!(body["messages"][1], serde_json::json!({"role": "user", "content": "Hi!"}));
//! # Ok::<(), deltafold::wire::WireError>(())
//! ```
//!
//! An assistant's spoken answer goes back by its id (see `audio`). Reading messages back: `decode`.
//!
//! What the format cannot carry: reasoning (Chat Completions takes none back), annotations,
//! an assistant's usage and metadata, an assistant's audio without an id (left out), a tool
//! message's status and artifact, and images by file id, audio other than base64, files by URL,
//! video and plain-text blocks (errors).

use serde_json::{json, Map, Value};

use super::{block_name, At, WireError, WireFormat};
use crate::message::{AiMessage, Content, ContentBlock, MediaSource, Message};

mod audio;
mod decode;
mod tool_calls;

use audio::audio_format;

pub use decode::decode;
pub(crate) use decode::decode_part;

const FORMAT: WireFormat = WireFormat::OpenAiChat;

/// Which role system messages are sent with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SystemRole {
    /// `system`, which every OpenAI-compatible server accepts.
    #[default]
    System,
    /// `developer`, which OpenAI's reasoning models expect.
    Developer,
}

/// How [`encode_with`] writes messages.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// The role of system messages.
    pub system_role: SystemRole,
}

impl EncodeOptions {
    /// The defaults: system messages as `system`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sends system messages with `role`.
    pub fn system_role(mut self, role: SystemRole) -> Self {
        self.system_role = role;
        self
    }
}

/// Writes `messages` as Chat Completions request messages, with the default options.
pub fn encode(messages: &[Message]) -> Result<Vec<Value>, WireError> {
    encode_with(messages, &EncodeOptions::default())
}

/// Writes `messages` as Chat Completions request messages.
///
/// Plain-text content goes out as a string and block content as a list of parts; an assistant
/// message's text as a string (a list when it has several text blocks), its tool calls as
/// `tool_calls` with the arguments as a JSON string (an invalid call's arguments exactly as the
/// model streamed them), its refusal as `refusal`. `extra` fields become message fields.
pub fn encode_with(messages: &[Message], options: &EncodeOptions) -> Result<Vec<Value>, WireError> {
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            encode_message(
                message,
                options,
                At {
                    format: FORMAT,
                    index,
                },
            )
        })
        .collect()
}

fn encode_message(message: &Message, options: &EncodeOptions, at: At) -> Result<Value, WireError> {
    let object = match message {
        Message::System(system) => {
            let role = match options.system_role {
                SystemRole::System => "system",
                SystemRole::Developer => "developer",
            };
            let content = encode_text_only(&system.content, "a system message", at)?;
            with_fields(&system.extra, role, content, system.name.as_deref())
        }
        Message::User(user) => {
            let content = encode_parts(&user.content, at)?;
            with_fields(&user.extra, "user", content, user.name.as_deref())
        }
        Message::Assistant(assistant) => encode_assistant(assistant),
        Message::Tool(tool) => {
            let content = encode_text_only(&tool.content, "a tool message", at)?;
            let mut object = with_fields(&tool.extra, "tool", content, tool.name.as_deref());
            object.insert("tool_call_id".into(), tool.tool_call_id.clone().into());
            object
        }
        Message::Chat(chat) => {
            let content = encode_parts(&chat.content, at)?;
            with_fields(&chat.extra, &chat.role, content, chat.name.as_deref())
        }
    };
    Ok(Value::Object(object))
}

/// A message object: `extra` first, so the standard fields always win.
fn with_fields(
    extra: &Map<String, Value>,
    role: &str,
    content: Value,
    name: Option<&str>,
) -> Map<String, Value> {
    let mut object = extra.clone();
    object.insert("role".into(), role.into());
    object.insert("content".into(), content);
    if let Some(name) = name {
        object.insert("name".into(), name.into());
    }
    object
}

/// Content that may hold text parts only (system and tool messages).
fn encode_text_only(content: &Content, what: &str, at: At) -> Result<Value, WireError> {
    match content {
        Content::Text(text) => Ok(text.as_str().into()),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text { text, .. } => Ok(text_part(text)),
                ContentBlock::NonStandard { value } => Ok(value.clone()),
                other => Err(at.unsupported(format!("{} in {what}", block_name(other)))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
    }
}

/// User (or custom-role) content: a string, or text, image, audio and file parts.
fn encode_parts(content: &Content, at: At) -> Result<Value, WireError> {
    match content {
        Content::Text(text) => Ok(text.as_str().into()),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|block| encode_part(block, at))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
    }
}

fn encode_part(block: &ContentBlock, at: At) -> Result<Value, WireError> {
    match block {
        ContentBlock::Text { text, .. } => Ok(text_part(text)),
        ContentBlock::Image(media) => {
            let url = match &media.source {
                MediaSource::Url(url) => url.clone(),
                MediaSource::Base64(_) => media.data_url().unwrap_or_default(),
                MediaSource::FileId(_) => return Err(at.unsupported("an image by file id")),
                MediaSource::Text(_) => return Err(at.unsupported("an image given as text")),
            };
            let mut image_url = Map::new();
            image_url.insert("url".into(), url.into());
            if let Some(detail) = media.extras.get("detail") {
                image_url.insert("detail".into(), detail.clone());
            }
            Ok(json!({"type": "image_url", "image_url": image_url}))
        }
        ContentBlock::Audio(media) => {
            let MediaSource::Base64(data) = &media.source else {
                return Err(at.unsupported("audio that is not base64 data"));
            };
            let Some(mime_type) = &media.mime_type else {
                return Err(at.unsupported("audio without a MIME type"));
            };
            Ok(json!({
                "type": "input_audio",
                "input_audio": {"data": data, "format": audio_format(mime_type)},
            }))
        }
        ContentBlock::File(media) => {
            let mut file = Map::new();
            match &media.source {
                MediaSource::FileId(id) => {
                    file.insert("file_id".into(), id.clone().into());
                }
                MediaSource::Base64(_) => {
                    file.insert(
                        "file_data".into(),
                        media.data_url().unwrap_or_default().into(),
                    );
                }
                MediaSource::Url(_) => return Err(at.unsupported("a file by URL")),
                MediaSource::Text(_) => return Err(at.unsupported("a file given as text")),
            }
            if let Some(filename) = media.filename() {
                file.insert("filename".into(), filename.into());
            }
            Ok(json!({"type": "file", "file": file}))
        }
        ContentBlock::NonStandard { value } => Ok(value.clone()),
        other => Err(at.unsupported(format!("{} in a user message", block_name(other)))),
    }
}

fn encode_assistant(message: &AiMessage) -> Map<String, Value> {
    let texts: Vec<&str> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let tool_calls: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolCall(call) => Some(tool_calls::encode(call)),
            ContentBlock::InvalidToolCall(call) => Some(tool_calls::encode_invalid(call)),
            _ => None,
        })
        .collect();
    let refusal = message.refusal();
    let audio = audio::assistant_audio_id(message);
    let content = match texts.as_slice() {
        [] if !tool_calls.is_empty() || refusal.is_some() => Some(Value::Null),
        [] if audio.is_some() => None,
        [] => Some("".into()),
        [text] => Some((*text).into()),
        several => Some(several.iter().map(|text| text_part(text)).collect()),
    };
    let mut object = message.extra.clone();
    object.insert("role".into(), "assistant".into());
    if let Some(content) = content {
        object.insert("content".into(), content);
    }
    if let Some(id) = audio {
        object.insert("audio".into(), json!({ "id": id }));
    }
    if let Some(refusal) = refusal {
        object.insert("refusal".into(), refusal.into());
    }
    if let Some(name) = &message.name {
        object.insert("name".into(), name.clone().into());
    }
    if !tool_calls.is_empty() {
        object.insert("tool_calls".into(), tool_calls.into());
    }
    object
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MediaBlock;

    #[test]
    fn errors_name_the_message_and_what_is_missing() {
        let error = decode(&[json!({"role": "tool", "content": "x"})]).unwrap_err();
        assert_eq!(
            error,
            WireError::Malformed {
                format: FORMAT,
                index: 0,
                reason: "`tool_call_id` is missing".into()
            }
        );
        let error = encode(&[Message::user(ContentBlock::video(MediaBlock::url(
            "https://v",
        )))])
        .unwrap_err();
        assert!(
            error.to_string().contains("a video in a user message"),
            "{error}"
        );
    }
}
