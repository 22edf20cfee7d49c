//! Reading a Gemini request's `systemInstruction` and `contents` back into messages.

use std::collections::VecDeque;

use serde_json::{Map, Value};

use super::server_parts::{mark, ServerParts};
use super::{FORMAT, GENERATED_CALL_ID};
use crate::message::{
    AiMessage, Content, ContentBlock, InvalidToolCall, MediaBlock, MediaSource, Message,
    SystemMessage, ToolCall, ToolMessage, ToolStatus, UserMessage,
};
use crate::wire::{as_object, optional_string, other_fields, required_string, At, WireError};

/// Reads a request (its `systemInstruction` and `contents`; other fields are ignored).
///
/// Each text part of `systemInstruction` is a system message. A `user` content's
/// `functionResponse` parts become tool messages, in place, answering the call of that name
/// the model made last (by `id` when the response has one); its other parts a user message.
/// A `model` content is an assistant message whose `model_provider` is `google_genai`, read as
/// the Gemini dialect reads a stream: adjacent thought text is one reasoning block, a signature
/// on a text part is the reasoning's (an empty reasoning block when none precedes it), a
/// `functionCall` a tool call (its signature in `extras`), `executableCode` /
/// `codeExecutionResult` a `code_interpreter` call and its result, `toolCall` / `toolResponse` a
/// built-in tool's call (named by its `toolType`) and result; calls and code without an id
/// get one (`call_df_…`, `srvtoolu_df_…`), which [`encode`](super::encode) does not send.
/// A model's `inlineData` / `fileData` part (an image it made) is a media block with its `thought`
/// and `thoughtSignature` in `extras`; other parts are non-standard blocks, sent back as they came.
pub fn decode(request: &Value) -> Result<Vec<Message>, WireError> {
    let at = At {
        format: FORMAT,
        index: 0,
    };
    let request = as_object(request, "the request", at)?;
    let system = request
        .get("systemInstruction")
        .or_else(|| request.get("system_instruction"));
    let mut messages = match system {
        None | Some(Value::Null) => Vec::new(),
        Some(system) => decode_system(system, at)?,
    };
    let Some(Value::Array(contents)) = request.get("contents") else {
        return Err(at.malformed("the request has no `contents` array"));
    };
    let mut reader = Reader::default();
    for (index, content) in contents.iter().enumerate() {
        let at = At {
            format: FORMAT,
            index,
        };
        let object = as_object(content, "the content", at)?;
        let parts = match object.get("parts") {
            Some(Value::Array(parts)) => parts,
            _ => return Err(at.malformed("the content has no `parts` array")),
        };
        match optional_string(object, "role", at)?.as_deref() {
            None | Some("user") | Some("function") => reader.user(parts, &mut messages, at)?,
            Some("model") => {
                let message = reader.model(parts, at)?;
                messages.push(Message::Assistant(message));
            }
            Some(other) => {
                return Err(at.malformed(format!("the role {other:?} is neither user nor model")))
            }
        }
    }
    Ok(messages)
}

fn decode_system(system: &Value, at: At) -> Result<Vec<Message>, WireError> {
    let system = as_object(system, "`systemInstruction`", at)?;
    let Some(Value::Array(parts)) = system.get("parts") else {
        return Err(at.malformed("`systemInstruction` has no `parts` array"));
    };
    parts
        .iter()
        .map(|part| {
            let part = as_object(part, "a system part", at)?;
            Ok(Message::System(SystemMessage {
                content: Content::Text(required_string(part, "text", at)?),
                extra: other_fields(part, &["text"]),
                ..SystemMessage::default()
            }))
        })
        .collect()
}

/// What reading remembers across contents: the calls not answered yet, and the ids it made.
#[derive(Default)]
struct Reader {
    /// `(id, name)` of the last model turn's calls that no response answered yet.
    open_calls: VecDeque<(String, String)>,
    next_call: usize,
    /// Code runs and built-in tool runs, and the ids made for them.
    server: ServerParts,
}

impl Reader {
    fn user(
        &mut self,
        parts: &[Value],
        messages: &mut Vec<Message>,
        at: At,
    ) -> Result<(), WireError> {
        let mut user = UserMessage::default();
        let mut blocks = Vec::new();
        for part in parts {
            let object = as_object(part, "a part", at)?;
            if let Some(response) = object.get("functionResponse") {
                flush_user(&mut user, &mut blocks, messages);
                let response = as_object(response, "`functionResponse`", at)?;
                messages.push(Message::Tool(self.function_response(response, at)?));
                continue;
            }
            let (block, extra) = user_block(object, at)?;
            user.extra = extra;
            blocks.push(block);
        }
        flush_user(&mut user, &mut blocks, messages);
        Ok(())
    }

    fn function_response(
        &mut self,
        response: &Map<String, Value>,
        at: At,
    ) -> Result<ToolMessage, WireError> {
        let name = required_string(response, "name", at)?;
        let id = optional_string(response, "id", at)?;
        let position = self
            .open_calls
            .iter()
            .position(|(call_id, call_name)| match &id {
                Some(id) => call_id == id,
                None => *call_name == name,
            });
        let tool_call_id = match (position, id) {
            (Some(position), _) => self.open_calls.remove(position).map(|(id, _)| id),
            (None, id) => id,
        }
        .ok_or_else(|| {
            at.malformed(format!(
                "a `functionResponse` for {name:?}, which no earlier call made"
            ))
        })?;
        let body = response.get("response").cloned().unwrap_or(Value::Null);
        let (text, status) = match body {
            Value::Object(mut object) if object.len() == 1 => {
                match (object.remove("output"), object.remove("error")) {
                    (Some(Value::String(text)), _) => (text, ToolStatus::Success),
                    (Some(other), _) => (other.to_string(), ToolStatus::Success),
                    (None, Some(Value::String(text))) => (text, ToolStatus::Error),
                    (None, Some(other)) => (other.to_string(), ToolStatus::Error),
                    (None, None) => (Value::Object(object).to_string(), ToolStatus::Success),
                }
            }
            Value::Null => (String::new(), ToolStatus::Success),
            other => (other.to_string(), ToolStatus::Success),
        };
        Ok(ToolMessage {
            tool_call_id,
            content: Content::Text(text),
            status,
            name: Some(name),
            extra: other_fields(response, &["name", "id", "response"]),
            ..ToolMessage::default()
        })
    }

    fn model(&mut self, parts: &[Value], at: At) -> Result<AiMessage, WireError> {
        self.open_calls.clear();
        let mut blocks: Vec<ContentBlock> = Vec::new();
        self.server.start_turn();
        for part in parts {
            let object = as_object(part, "a part", at)?;
            let signature = optional_string(object, "thoughtSignature", at)?;
            let thought = object.get("thought") == Some(&Value::Bool(true));
            if let Some(call) = object.get("functionCall") {
                let call = as_object(call, "`functionCall`", at)?;
                blocks.push(self.function_call(call, signature, at)?);
            } else if let Some(block) = self.server.read(object, thought, &signature, at)? {
                blocks.push(block);
            } else if let Some(text) = object.get("text") {
                let Value::String(text) = text else {
                    return Err(at.malformed(format!("a part's `text` is {text}")));
                };
                text_part(&mut blocks, text, thought, signature);
            } else if let Some(block) = model_media(object, thought, signature, at)? {
                blocks.push(block);
            } else {
                blocks.push(ContentBlock::NonStandard {
                    value: part.clone(),
                });
            }
        }
        let mut message = AiMessage {
            content: blocks,
            ..AiMessage::default()
        };
        message.response_metadata.model_provider = Some("google_genai".into());
        Ok(message)
    }

    fn function_call(
        &mut self,
        call: &Map<String, Value>,
        signature: Option<String>,
        at: At,
    ) -> Result<ContentBlock, WireError> {
        let name = required_string(call, "name", at)?;
        let id = optional_string(call, "id", at)?
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| {
                self.next_call += 1;
                format!("{GENERATED_CALL_ID}{}", self.next_call - 1)
            });
        self.open_calls.push_back((id.clone(), name.clone()));
        Ok(match call.get("args") {
            None | Some(Value::Null) => tool_call(id, name, Map::new(), signature),
            Some(Value::Object(args)) => tool_call(id, name, args.clone(), signature),
            Some(other) => ContentBlock::InvalidToolCall(InvalidToolCall {
                id,
                name,
                args: other.to_string(),
                error: "the args are not a JSON object".into(),
                extras: signature
                    .map(|signature| {
                        Map::from_iter([(ToolCall::SIGNATURE.to_owned(), Value::String(signature))])
                    })
                    .unwrap_or_default(),
            }),
        })
    }
}

fn tool_call(
    id: String,
    name: String,
    args: Map<String, Value>,
    signature: Option<String>,
) -> ContentBlock {
    let mut call = ToolCall {
        id,
        name,
        args,
        ..ToolCall::default()
    };
    if let Some(signature) = signature {
        call.extras
            .insert(ToolCall::SIGNATURE.into(), signature.into());
    }
    ContentBlock::ToolCall(call)
}

/// A text part of a model turn: thought text joins the reasoning before it, answer text the text
/// before it; a signature belongs to the reasoning before the part (a new, empty one when there
/// is none or it is signed), so that encoding puts it back on this part.
fn text_part(blocks: &mut Vec<ContentBlock>, text: &str, thought: bool, signature: Option<String>) {
    if thought {
        if let Some(ContentBlock::Reasoning {
            text: before,
            signature: None,
            data: None,
            ..
        }) = blocks.last_mut()
        {
            before.push_str(text);
        } else {
            blocks.push(ContentBlock::reasoning(text));
        }
        if let (
            Some(signature),
            Some(ContentBlock::Reasoning {
                signature: slot, ..
            }),
        ) = (signature, blocks.last_mut())
        {
            // A signature on the thought part itself: encoding puts it on the part after.
            *slot = Some(signature);
        }
        return;
    }
    if let Some(signature) = signature {
        match blocks.last_mut() {
            Some(ContentBlock::Reasoning {
                signature: slot @ None,
                ..
            }) => *slot = Some(signature),
            _ => blocks.push(ContentBlock::Reasoning {
                text: String::new(),
                signature: Some(signature),
                data: None,
                extras: Map::new(),
            }),
        }
        if !text.is_empty() {
            blocks.push(ContentBlock::text(text));
        }
        return;
    }
    match blocks.last_mut() {
        Some(ContentBlock::Text { text: before, .. }) => before.push_str(text),
        _ if text.is_empty() => {}
        _ => blocks.push(ContentBlock::text(text)),
    }
}

/// A part of a user content, and the fields of a text part beyond its text.
fn user_block(
    object: &Map<String, Value>,
    at: At,
) -> Result<(ContentBlock, Map<String, Value>), WireError> {
    if let Some(text) = object.get("text") {
        let Value::String(text) = text else {
            return Err(at.malformed(format!("a part's `text` is {text}")));
        };
        return Ok((
            ContentBlock::text(text.as_str()),
            other_fields(object, &["text"]),
        ));
    }
    let media = if let Some(inline) = object.get("inlineData") {
        let inline = as_object(inline, "`inlineData`", at)?;
        let mime_type = required_string(inline, "mimeType", at)?;
        Some((
            MediaSource::Base64(required_string(inline, "data", at)?),
            Some(mime_type),
        ))
    } else if let Some(file) = object.get("fileData") {
        let file = as_object(file, "`fileData`", at)?;
        let mime_type = optional_string(file, "mimeType", at)?;
        Some((
            MediaSource::Url(required_string(file, "fileUri", at)?),
            mime_type,
        ))
    } else {
        None
    };
    let block = match media.filter(|_| only_media_fields(object)) {
        Some((source, mime_type)) => ContentBlock::by_mime_type(MediaBlock {
            source,
            mime_type,
            id: None,
            extras: object
                .iter()
                .filter(|(key, _)| super::parts::PART_OPTIONS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        }),
        None => ContentBlock::NonStandard {
            value: Value::Object(object.clone()),
        },
    };
    Ok((block, Map::new()))
}

/// A model's media part (an image it made): a media block with the part's `thought` and
/// `thoughtSignature` in its extras (`thought`, `signature`), so it goes back signed; `None` for
/// another part, or one with fields a media block does not keep.
fn model_media(
    object: &Map<String, Value>,
    thought: bool,
    signature: Option<String>,
    at: At,
) -> Result<Option<ContentBlock>, WireError> {
    if !object.contains_key("inlineData") && !object.contains_key("fileData") {
        return Ok(None);
    }
    let mut fields = object.clone();
    fields.remove("thought");
    fields.remove("thoughtSignature");
    let (mut block, _) = user_block(&fields, at)?;
    let Some(media) = block.media_mut() else {
        return Ok(None);
    };
    mark(&mut media.extras, thought, signature);
    Ok(Some(block))
}

/// True when a media part has no field beyond its data and the options a media block keeps
/// (else it is kept whole, as a non-standard block).
fn only_media_fields(object: &Map<String, Value>) -> bool {
    object.keys().all(|key| {
        matches!(key.as_str(), "inlineData" | "fileData")
            || super::parts::PART_OPTIONS.contains(&key.as_str())
    })
}

fn flush_user(user: &mut UserMessage, blocks: &mut Vec<ContentBlock>, messages: &mut Vec<Message>) {
    if blocks.is_empty() {
        return;
    }
    let mut message = std::mem::take(user);
    message.content = match blocks.as_slice() {
        [ContentBlock::Text {
            text, annotations, ..
        }] if annotations.is_empty() => Content::Text(text.clone()),
        _ => Content::Blocks(blocks.clone()),
    };
    blocks.clear();
    messages.push(Message::User(message));
}
