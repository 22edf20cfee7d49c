//! The `system` and `messages` of an Anthropic Messages request, both ways.
//!
//! ```
//! use deltafold::message::Message;
//! use deltafold::wire::anthropic;
//!
//! let request = anthropic::encode(&[Message::system("Be brief."), Message::user("Hi!")])?;
//! let mut body = serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true});
//! request.write_into(&mut body);
//! assert_eq!(body["system"], "Be brief.");
//! assert_eq!(body["messages"][0], serde_json::json!({"role": "user", "content": "Hi!"}));
//! # Ok::<(), deltafold::wire::WireError>(())
//! ```
//!
//! The system messages are lifted out into `system`; tool calls are `tool_use` blocks, and the
//! tool messages that answer them become `tool_result` blocks of one user message; reasoning is
//! sent back as `thinking` with its signature (or `redacted_thinking` with its data); images and
//! files are `image` and `document` blocks. A message's `extra` fields go on its last block
//! (where Anthropic reads `cache_control`), a tool message's on its `tool_result` block.
//! Server-side tool calls and their results go back as the blocks they were streamed as, with
//! their ids and opaque fields (`encrypted_content`, a citation's `encrypted_index`), so a turn
//! that stopped with `pause_turn` continues when sent back as it is; the latest code execution
//! container goes in `container`.
//!
//! What the format cannot carry: names and ids of messages, custom roles (an error), audio and
//! video (errors), reasoning without a signature (another provider's, left out), refusals (sent
//! as text), an invalid tool call's arguments (sent as `{}`), a tool message's artifact.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{block_name, other_fields, At, WireError, WireFormat};
use crate::message::{
    AiMessage, Content, ContentBlock, MediaBlock, MediaSource, Message, SystemMessage, ToolMessage,
    ToolStatus, UserMessage, PLAIN_TEXT,
};

mod decode;
mod native;

pub use decode::decode;

const FORMAT: WireFormat = WireFormat::Anthropic;

/// The fields of a `tool_use` block kept in its call's `extras`, which go back with it (who
/// called the tool: a programmatic call from code execution must be answered as one).
pub(crate) const CALL_EXTRAS: &[&str] = &["caller", "toolset_name"];

/// Media extras that only OpenAI reads.
const OPENAI_ONLY_EXTRAS: &[&str] = &["detail", "filename"];

/// The conversation part of a Messages request.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct AnthropicRequest {
    /// The system prompt: a string, or text blocks; `None` when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<Value>,
    /// The user and assistant messages.
    pub messages: Vec<Value>,
    /// The code execution container the latest assistant message that names one ran in
    /// (`response_metadata.extra.container.id`): files and state of earlier runs live there,
    /// and a turn whose code still waits on a client tool's result must name it. Set it to
    /// `None` to start in a fresh container (once it expired, Anthropic refuses it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
}

impl AnthropicRequest {
    /// Sets `system` (when there is one) and `messages` on a request body that holds the rest
    /// (`model`, `max_tokens`, `tools`…), and `container` unless the body names its own (a
    /// container with skills to load).
    pub fn write_into(self, body: &mut Value) {
        if let Value::Object(body) = body {
            if let Some(system) = self.system {
                body.insert("system".into(), system);
            }
            body.insert("messages".into(), Value::Array(self.messages));
            if let Some(container) = self.container {
                body.entry("container").or_insert(container.into());
            }
        }
    }
}

/// Writes `messages` as a Messages request's `system` and `messages`.
///
/// Fails on a system message after the first user or assistant message
/// ([`WireError::MisplacedSystem`]) and on content Anthropic cannot carry.
pub fn encode(messages: &[Message]) -> Result<AnthropicRequest, WireError> {
    let mut system: Vec<&SystemMessage> = Vec::new();
    let mut out: Vec<Value> = Vec::new();
    let mut tool_results_open = false;
    let mut container = None;
    for (index, message) in messages.iter().enumerate() {
        let at = At {
            format: FORMAT,
            index,
        };
        match message {
            Message::System(message) if out.is_empty() => system.push(message),
            Message::System(_) => {
                return Err(WireError::MisplacedSystem {
                    format: FORMAT,
                    index,
                })
            }
            Message::User(user) => {
                out.push(json!({"role": "user", "content": encode_user(user, at)?}));
                tool_results_open = false;
            }
            Message::Assistant(assistant) => {
                out.push(json!({"role": "assistant", "content": encode_assistant(assistant, at)?}));
                tool_results_open = false;
                container = container_of(assistant).or(container);
            }
            Message::Tool(tool) => {
                let result = encode_tool_result(tool, at)?;
                match out
                    .last_mut()
                    .and_then(|last| last["content"].as_array_mut())
                {
                    Some(results) if tool_results_open => results.push(result),
                    _ => out.push(json!({"role": "user", "content": [result]})),
                }
                tool_results_open = true;
            }
            Message::Chat(chat) => {
                return Err(at.unsupported(format!("a message with the role {:?}", chat.role)))
            }
        }
    }
    Ok(AnthropicRequest {
        system: encode_system(&system)?,
        messages: out,
        container,
    })
}

/// The id of the container an answer's code ran in: `{"id": …, "expires_at": …}` as Anthropic
/// streams it, or the id alone.
fn container_of(message: &AiMessage) -> Option<String> {
    match message.response_metadata.extra.get("container")? {
        Value::String(id) => Some(id.clone()),
        Value::Object(container) => container.get("id")?.as_str().map(str::to_owned),
        _ => None,
    }
}

fn encode_system(messages: &[&SystemMessage]) -> Result<Option<Value>, WireError> {
    if let [only] = messages {
        if let (Content::Text(text), true) = (&only.content, only.extra.is_empty()) {
            return Ok(Some(text.as_str().into()));
        }
    }
    let mut blocks = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let at = At {
            format: FORMAT,
            index,
        };
        let mut own: Vec<Value> = message
            .content
            .blocks()
            .iter()
            .map(|block| match block {
                ContentBlock::Text { text, .. } => Ok(text_block(text)),
                ContentBlock::NonStandard { value } => Ok(value.clone()),
                _ => Err(at.unsupported("anything but text in the system prompt")),
            })
            .collect::<Result<_, _>>()?;
        put_on_last(&mut own, &message.extra);
        blocks.extend(own);
    }
    Ok((!blocks.is_empty()).then_some(Value::Array(blocks)))
}

fn encode_user(user: &UserMessage, at: At) -> Result<Value, WireError> {
    if let (Content::Text(text), true) = (&user.content, user.extra.is_empty()) {
        return Ok(text.as_str().into());
    }
    let mut blocks = encode_blocks(&user.content.blocks(), "a user message", at)?;
    put_on_last(&mut blocks, &user.extra);
    Ok(Value::Array(blocks))
}

/// Merges a message's `extra` into its last block, without overwriting the block's own fields.
fn put_on_last(blocks: &mut [Value], extra: &Map<String, Value>) {
    if let Some(Value::Object(last)) = blocks.last_mut() {
        for (key, value) in extra {
            last.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

/// User and tool-result content: text, images, documents.
fn encode_blocks(blocks: &[ContentBlock], within: &str, at: At) -> Result<Vec<Value>, WireError> {
    blocks
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text, .. } => Ok(text_block(text)),
            ContentBlock::Image(media) => {
                let source = match &media.source {
                    MediaSource::Base64(data) => {
                        let Some(mime_type) = &media.mime_type else {
                            return Err(at.unsupported("a base64 image without a MIME type"));
                        };
                        json!({"type": "base64", "media_type": mime_type, "data": data})
                    }
                    MediaSource::Text(_) => return Err(at.unsupported("an image given as text")),
                    other => reference_source(other),
                };
                Ok(media_block("image", source, media))
            }
            ContentBlock::File(media) | ContentBlock::PlainText(media) => {
                let source = match &media.source {
                    MediaSource::Base64(data) => json!({
                        "type": "base64",
                        "media_type": media.mime_type.as_deref().unwrap_or("application/pdf"),
                        "data": data,
                    }),
                    MediaSource::Text(text) => json!({
                        "type": "text",
                        "media_type": media.mime_type.as_deref().unwrap_or(PLAIN_TEXT),
                        "data": text,
                    }),
                    other => reference_source(other),
                };
                Ok(media_block("document", source, media))
            }
            ContentBlock::NonStandard { value } => Ok(value.clone()),
            other => Err(at.unsupported(format!("{} in {within}", block_name(other)))),
        })
        .collect()
}

/// A `url` or `file` source.
fn reference_source(source: &MediaSource) -> Value {
    match source {
        MediaSource::FileId(id) => json!({"type": "file", "file_id": id}),
        MediaSource::Url(url) | MediaSource::Base64(url) | MediaSource::Text(url) => {
            json!({"type": "url", "url": url})
        }
    }
}

fn media_block(kind: &str, source: Value, media: &MediaBlock) -> Value {
    let mut block = other_fields(&media.extras, OPENAI_ONLY_EXTRAS);
    block.insert("type".into(), kind.into());
    block.insert("source".into(), source);
    Value::Object(block)
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn encode_assistant(message: &AiMessage, at: At) -> Result<Vec<Value>, WireError> {
    let mut blocks = Vec::new();
    for block in &message.content {
        let value = match block {
            ContentBlock::Reasoning {
                text,
                signature,
                data,
                ..
            } => match (signature, data) {
                (Some(signature), _) => {
                    json!({"type": "thinking", "thinking": text, "signature": signature})
                }
                (None, Some(data)) => json!({"type": "redacted_thinking", "data": data}),
                (None, None) => continue,
            },
            ContentBlock::Text { text, .. } | ContentBlock::Refusal { refusal: text, .. }
                if text.is_empty() =>
            {
                continue
            }
            ContentBlock::Text {
                text, annotations, ..
            } => {
                let mut value = text_block(text);
                let citations: Vec<Value> =
                    annotations.iter().filter_map(native::citation).collect();
                if !citations.is_empty() {
                    value["citations"] = json!(citations);
                }
                value
            }
            ContentBlock::Refusal { refusal, .. } => text_block(refusal),
            ContentBlock::ToolCall(call) => {
                let mut block = json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.args});
                for key in CALL_EXTRAS {
                    if let Some(value) = call.extras.get(*key) {
                        block[*key] = value.clone();
                    }
                }
                block
            }
            ContentBlock::InvalidToolCall(call) => {
                json!({"type": "tool_use", "id": call.id, "name": call.name, "input": {}})
            }
            ContentBlock::ServerToolCall(call) => native::server_tool_call(call),
            ContentBlock::File(media) if native::is_container_upload(media) => {
                native::container_upload(media)
            }
            ContentBlock::ServerToolResult(result) => native::server_tool_result(result),
            ContentBlock::NonStandard { value } => value.clone(),
            other => {
                return Err(at.unsupported(format!("{} in an assistant message", block_name(other))))
            }
        };
        blocks.push(value);
    }
    Ok(blocks)
}

fn encode_tool_result(tool: &ToolMessage, at: At) -> Result<Value, WireError> {
    let mut block = tool.extra.clone();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), tool.tool_call_id.clone().into());
    match &tool.content {
        Content::Text(text) if text.is_empty() => {}
        Content::Text(text) => {
            block.insert("content".into(), text.as_str().into());
        }
        Content::Blocks(blocks) => {
            let blocks = encode_blocks(blocks, "a tool result", at)?;
            block.insert("content".into(), blocks.into());
        }
    }
    if tool.status == ToolStatus::Error {
        block.insert("is_error".into(), true.into());
    }
    Ok(Value::Object(block))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_message_after_the_first_turn_is_refused() {
        let error = encode(&[Message::user("hi"), Message::system("late")]).unwrap_err();
        assert_eq!(
            error,
            WireError::MisplacedSystem {
                format: FORMAT,
                index: 1
            }
        );
    }

    #[test]
    fn custom_roles_and_video_are_refused() {
        let error = encode(&[Message::chat("critic", "meh")]).unwrap_err();
        assert!(error.to_string().contains("\"critic\""), "{error}");
        let video = Message::user(ContentBlock::video(MediaBlock::url("https://v")));
        let error = encode(&[video]).unwrap_err();
        assert!(error.to_string().contains("a video"), "{error}");
    }

    #[test]
    fn reasoning_without_signature_is_left_out() {
        let message = Message::Assistant(AiMessage {
            content: vec![ContentBlock::reasoning("hm"), ContentBlock::text("Hi")],
            ..AiMessage::default()
        });
        let request = encode(&[Message::user("x"), message]).unwrap();
        assert_eq!(
            request.messages[1]["content"],
            json!([{"type": "text", "text": "Hi"}])
        );
    }
}
