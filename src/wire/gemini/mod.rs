//! The `systemInstruction` and `contents` of a Gemini `generateContent` /
//! `streamGenerateContent` request, both ways.
//!
//! ```
//! use deltafold::message::Message;
//! use deltafold::wire::gemini;
//!
//! let request = gemini::encode(&[Message::system("Be brief."), Message::user("Hi!")])?;
//! let mut body = serde_json::json!({"generationConfig": {"temperature": 0}});
//! request.write_into(&mut body);
//! assert_eq!(body["systemInstruction"], serde_json::json!({"parts": [{"text": "Be brief."}]}));
//! assert_eq!(body["contents"][0], serde_json::json!({"role": "user", "parts": [{"text": "Hi!"}]}));
//! # Ok::<(), deltafold::wire::WireError>(())
//! ```
//!
//! The system messages are lifted into `systemInstruction`; user messages are `user` contents,
//! assistant messages `model` contents, and the tool messages that answer a turn's calls become
//! the `functionResponse` parts of one `user` content, each named after the call it answers
//! (Gemini reads the response by the function's name). Parts: `text`; reasoning as `thought: true`
//! text; tool calls as `functionCall`; images, audio, video and files as `inlineData` (base64)
//! or `fileData` (a URL, or a file id that is a Gemini file's URI); plain text given inline as
//! text; Gemini's own code execution as the `executableCode` / `codeExecutionResult` parts it
//! streamed; a Gemini 3 built-in tool's run (file search…) as the `toolCall` / `toolResponse`
//! parts it streamed; a model's image as `inlineData` with its `thought` and `thoughtSignature`;
//! non-standard blocks (Gemini parts deltafold keeps whole) as they came.
//!
//! Thought signatures go back on the part they came with, as Google's "thought signatures"
//! guide requires: a call's own (`extras.signature`, only the first call of parallel calls
//! has one, and the others go back without), a code part's, a built-in tool part's and an
//! image's; the signature the reasoning
//! block holds (from a text part) goes on the part after the reasoning — where Gemini puts it —
//! or on an empty text part when nothing follows or that part has its own. Ids deltafold
//! generated because Gemini sent none (`call_df_…`, `srvtoolu_df_…`) are not sent.
//!
//! What is not sent: grounding (a `web_search` or `url_context` call and its result, and the
//! citations on the text) is response metadata, not a part; a server-side tool another provider
//! ran (an Anthropic web search, a Responses code interpreter) has no Gemini part, and it and its
//! result are left out (with a file its tool made, Anthropic's `container_upload`, and an approval
//! it asked for a remote MCP call), as the
//! Anthropic and Responses formats leave out tools they have no block for; another provider's reasoning and signatures (an assistant message whose
//! `model_provider` is not Google's) are left out, since Gemini refuses a signature it did not
//! make; names and ids of messages and a tool message's artifact are not carried. Errors: custom
//! roles, a system message after the first turn, a tool result for a call the conversation
//! does not hold (no function name), the app's answer to an approval, a base64 medium without a MIME type, another
//! provider's file id, a non-standard block of another provider (one with a `type`), anything
//! but text in a system message or a tool result.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{block_name, At, WireError, WireFormat};
use crate::message::{
    AiMessage, Content, ContentBlock, Message, SystemMessage, ToolMessage, ToolStatus, UserMessage,
};

mod decode;
pub(crate) mod parts;
mod server_parts;

pub use decode::decode;

const FORMAT: WireFormat = WireFormat::Gemini;

/// The start of the ids the assembler gives calls Gemini sent without one.
const GENERATED_CALL_ID: &str = "call_df_";
/// The start of the ids the Gemini dialect gives code that ran.
const GENERATED_CODE_ID: &str = "srvtoolu_df_";

/// The conversation part of a `generateContent` request.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeminiRequest {
    /// `{parts: [{text}]}`; `None` when there is no system message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Value>,
    /// The `user` and `model` contents.
    pub contents: Vec<Value>,
}

impl GeminiRequest {
    /// Sets `systemInstruction` (when there is one) and `contents` on a request body that holds
    /// the rest (`tools`, `generationConfig`…).
    pub fn write_into(self, body: &mut Value) {
        if let Value::Object(body) = body {
            if let Some(system) = self.system_instruction {
                body.insert("systemInstruction".into(), system);
            }
            body.insert("contents".into(), Value::Array(self.contents));
        }
    }
}

/// Writes `messages` as a request's `systemInstruction` and `contents`.
///
/// Fails on a system message after the first user or assistant message
/// ([`WireError::MisplacedSystem`]) and on content Gemini cannot carry.
pub fn encode(messages: &[Message]) -> Result<GeminiRequest, WireError> {
    let mut system = Vec::new();
    let mut contents: Vec<Value> = Vec::new();
    // The function name of every call so far, by id: a response must name its function.
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut responses_open = false;
    for (index, message) in messages.iter().enumerate() {
        let at = At {
            format: FORMAT,
            index,
        };
        let mut opens_responses = false;
        match message {
            Message::System(message) if contents.is_empty() => {
                system.extend(system_parts(message, at)?)
            }
            Message::System(_) => {
                return Err(WireError::MisplacedSystem {
                    format: FORMAT,
                    index,
                })
            }
            Message::User(user) => contents.push(content("user", user_parts(user, at)?)),
            Message::Assistant(assistant) => {
                for call in assistant.tool_calls() {
                    names.insert(&call.id, &call.name);
                }
                for call in assistant.invalid_tool_calls() {
                    names.insert(&call.id, &call.name);
                }
                contents.push(content("model", model_parts(assistant, at)?));
            }
            Message::Tool(tool) => {
                let part = function_response(tool, &names, at)?;
                match contents
                    .last_mut()
                    .and_then(|last| last["parts"].as_array_mut())
                {
                    Some(parts) if responses_open => parts.push(part),
                    _ => contents.push(content("user", vec![part])),
                }
                opens_responses = true;
            }
            Message::Chat(chat) => {
                return Err(at.unsupported(format!("a message with the role {:?}", chat.role)))
            }
        }
        responses_open = opens_responses;
    }
    Ok(GeminiRequest {
        system_instruction: (!system.is_empty()).then(|| json!({ "parts": system })),
        contents,
    })
}

fn content(role: &str, parts: Vec<Value>) -> Value {
    json!({"role": role, "parts": parts})
}

fn system_parts(message: &SystemMessage, at: At) -> Result<Vec<Value>, WireError> {
    let mut parts = message
        .content
        .blocks()
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text, .. } => Ok(json!({ "text": text })),
            _ => Err(at.unsupported("anything but text in the system instruction")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    put_on_last(&mut parts, &message.extra);
    Ok(parts)
}

fn user_parts(user: &UserMessage, at: At) -> Result<Vec<Value>, WireError> {
    let mut parts = user
        .content
        .blocks()
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text, .. } => Ok(json!({ "text": text })),
            ContentBlock::NonStandard { value } => parts::non_standard(value, at),
            other => parts::media(other, false, at)?
                .ok_or_else(|| at.unsupported(format!("{} in a user message", block_name(other)))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    put_on_last(&mut parts, &user.extra);
    Ok(parts)
}

/// Merges a message's `extra` into its last part (where Gemini reads `mediaResolution`…),
/// without overwriting the part's own fields.
fn put_on_last(parts: &mut [Value], extra: &Map<String, Value>) {
    if let Some(Value::Object(last)) = parts.last_mut() {
        for (key, value) in extra {
            last.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

/// True for an assistant message of Gemini's (or of no recorded provider: built by the app, or
/// read from a Gemini request), whose signatures Gemini can read.
fn is_gemini(message: &AiMessage) -> bool {
    message
        .response_metadata
        .model_provider
        .as_deref()
        .is_none_or(|provider| provider.starts_with("google"))
}

/// The parts of a `model` content; see the module doc for where signatures go.
fn model_parts(message: &AiMessage, at: At) -> Result<Vec<Value>, WireError> {
    let gemini = is_gemini(message);
    let sent_code = parts::gemini_code_calls(message, gemini);
    let mut parts: Vec<Value> = Vec::new();
    // The reasoning block's signature, for the next part.
    let mut pending: Option<&str> = None;
    for block in &message.content {
        let part = match block {
            ContentBlock::Reasoning { .. } if !gemini => continue,
            ContentBlock::Reasoning {
                text, signature, ..
            } => {
                flush_signature(&mut parts, pending.take());
                if !text.is_empty() {
                    parts.push(json!({"text": text, "thought": true}));
                }
                pending = signature.as_deref();
                continue;
            }
            ContentBlock::Text { text, .. } | ContentBlock::Refusal { refusal: text, .. } => {
                if text.is_empty() && pending.is_none() {
                    continue;
                }
                json!({ "text": text })
            }
            ContentBlock::ToolCall(call) => {
                let signature = call.signature().filter(|_| gemini);
                signed(
                    json!({ "functionCall": function_call(&call.id, &call.name, &call.args) }),
                    signature,
                )
            }
            ContentBlock::InvalidToolCall(call) => {
                json!({ "functionCall": function_call(&call.id, &call.name, &Map::new()) })
            }
            ContentBlock::ServerToolCall(call) if sent_code.contains(call.id.as_str()) => {
                parts::executable_code(call, true)
            }
            ContentBlock::ServerToolResult(result)
                if sent_code.contains(result.tool_call_id.as_str()) =>
            {
                parts::code_execution_result(result, true)
            }
            ContentBlock::ServerToolCall(call) if gemini && parts::is_tool_call_part(call) => {
                parts::tool_call(call)
            }
            ContentBlock::ServerToolResult(result)
                if gemini && parts::is_tool_response_part(result) =>
            {
                parts::tool_response(result)
            }
            ContentBlock::ServerToolCall(_)
            | ContentBlock::ServerToolResult(_)
            | ContentBlock::ToolApprovalRequest(_) => continue,
            other if !gemini && parts::is_tool_artifact(other) => continue,
            ContentBlock::NonStandard { value } => parts::non_standard(value, at)?,
            other => match parts::media(other, gemini, at)? {
                Some(part) => part,
                None => {
                    return Err(
                        at.unsupported(format!("{} in an assistant message", block_name(other)))
                    )
                }
            },
        };
        match pending.take() {
            Some(signature) if part.get("thoughtSignature").is_none() => {
                parts.push(signed(part, Some(signature)))
            }
            signature => {
                flush_signature(&mut parts, signature);
                parts.push(part);
            }
        }
    }
    flush_signature(&mut parts, pending);
    Ok(parts)
}

/// A reasoning signature with no part of its own to go on: an empty text part, as Gemini
/// streams one.
fn flush_signature(parts: &mut Vec<Value>, signature: Option<&str>) {
    if let Some(signature) = signature {
        parts.push(json!({"text": "", "thoughtSignature": signature}));
    }
}

fn signed(mut part: Value, signature: Option<&str>) -> Value {
    if let (Some(signature), Value::Object(part)) = (signature, &mut part) {
        part.insert("thoughtSignature".into(), signature.into());
    }
    part
}

/// `{name, args, id?}`; a generated id is not sent.
fn function_call(id: &str, name: &str, args: &Map<String, Value>) -> Value {
    let mut call = json!({"name": name, "args": args});
    if !id.is_empty() && !id.starts_with(GENERATED_CALL_ID) {
        call["id"] = id.into();
    }
    call
}

/// A tool message as a `functionResponse` part: `response` is the content when it is a JSON
/// object, else `{"output": text}` (`{"error": text}` for a failed tool), as Gemini reads them.
fn function_response(
    tool: &ToolMessage,
    names: &HashMap<&str, &str>,
    at: At,
) -> Result<Value, WireError> {
    let name = names
        .get(tool.tool_call_id.as_str())
        .copied()
        .or(tool.name.as_deref())
        .ok_or_else(|| {
            at.unsupported(format!(
                "a tool result for {:?}, a call the conversation does not hold (Gemini needs \
                 the function's name)",
                tool.tool_call_id
            ))
        })?;
    let text = match &tool.content {
        Content::Text(text) => text.clone(),
        Content::Blocks(blocks) => {
            let mut text = String::new();
            for block in blocks {
                match block {
                    ContentBlock::Text { text: more, .. } => text.push_str(more),
                    other => {
                        return Err(
                            at.unsupported(format!("{} in a tool result", block_name(other)))
                        )
                    }
                }
            }
            text
        }
    };
    let key = match tool.status {
        ToolStatus::Error => "error",
        ToolStatus::Success => "output",
    };
    let response = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(object)) if tool.status == ToolStatus::Success => Value::Object(object),
        Ok(Value::Object(object)) => json!({ key: object }),
        _ => json!({ key: text }),
    };
    let mut part = tool.extra.clone();
    part.insert("name".into(), name.into());
    part.insert("response".into(), response);
    if !tool.tool_call_id.starts_with(GENERATED_CALL_ID) && !tool.tool_call_id.is_empty() {
        part.insert("id".into(), tool.tool_call_id.clone().into());
    }
    Ok(json!({ "functionResponse": part }))
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
    fn a_tool_result_without_its_call_is_refused() {
        let error = encode(&[Message::tool("nowhere", "18°C")]).unwrap_err();
        assert!(error.to_string().contains("\"nowhere\""), "{error}");
        let named = ToolMessage::new("nowhere", "18°C").with_name("get_weather");
        let request = encode(&[Message::Tool(named)]).unwrap();
        assert_eq!(
            request.contents[0]["parts"][0]["functionResponse"]["name"],
            "get_weather"
        );
    }
}
