//! The `input` items of an OpenAI Responses request.
//!
//! ```
//! use deltafold::message::Message;
//! use deltafold::wire::openai_responses;
//!
//! let input = openai_responses::encode(&[Message::system("Be brief."), Message::user("Hi!")])?;
//! assert_eq!(input[1], serde_json::json!({"type": "message", "role": "user", "content": "Hi!"}));
//! # Ok::<(), deltafold::wire::WireError>(())
//! ```
//!
//! Messages are `message` items; an assistant message is cut into the items it was streamed as:
//! `reasoning` (with its id, summary and `encrypted_content`), its text and refusal as an
//! assistant `message`, `function_call` / `custom_tool_call`, the built-in tool items rebuilt
//! from their server tool call and result (in `items.rs`), `mcp_approval_request`, and the
//! client-executed actions (`computer_call`, `local_shell_call`…) as they came. A tool message
//! answers the call it quotes with that call's output item (`function_call_output`,
//! `custom_tool_call_output`, `computer_call_output`…); a
//! [`ToolApprovalResponse`](crate::message::ToolApprovalResponse) in a user message is an
//! `mcp_approval_response` item.
//!
//! The output item ids of text (`msg_…`, with the message's `phase`) and of calls (`fc_…`,
//! `ctc_…`) go back after a reasoning item, which the API requires to be followed by the item it
//! led to, with its id (see `message_item`); without reasoning they are left out (an id whose
//! reasoning item is missing is refused).
//!
//! What the format cannot carry: reasoning without a Responses item id (another provider's; left
//! out), the annotations of assistant text (sent back empty), message names and ids, a tool
//! message's artifact, custom roles (an error).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::{block_name, At, WireError, WireFormat};
use crate::message::{
    AiMessage, ClientAction, Content, ContentBlock, MediaBlock, MediaSource, Message, ToolCall,
    ToolMessage, ToolStatus,
};

mod items;
mod message_item;

use message_item::{MessageItem, Part};

const FORMAT: WireFormat = WireFormat::OpenAiResponses;

/// How [`encode_with`] writes the items.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// Mirrors the request's `store`: when false the provider keeps nothing between turns, so
    /// an image generation goes back whole instead of by id, and reasoning without
    /// `encrypted_content` is left out (its id alone cannot be resolved).
    pub store: bool,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions { store: true }
    }
}

impl EncodeOptions {
    /// The defaults: the provider stores responses (`store: true`).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`store`](Self::store).
    pub fn store(mut self, store: bool) -> Self {
        self.store = store;
        self
    }
}

/// Writes `messages` as a Responses request's `input` items, with the default options.
pub fn encode(messages: &[Message]) -> Result<Vec<Value>, WireError> {
    encode_with(messages, &EncodeOptions::default())
}

/// Writes `messages` as a Responses request's `input` items.
pub fn encode_with(messages: &[Message], options: &EncodeOptions) -> Result<Vec<Value>, WireError> {
    let mut out = Vec::new();
    // The output item each call id is answered with, by call id: one lookup per tool message.
    let mut answers: HashMap<&str, &'static str> = HashMap::new();
    for (index, message) in messages.iter().enumerate() {
        let at = At {
            format: FORMAT,
            index,
        };
        match message {
            Message::System(system) => out.push(json!({
                "type": "message",
                "role": "system",
                "content": text_only(&system.content, "a system message", at)?,
            })),
            Message::User(user) => user_items(&user.content, at, &mut out)?,
            Message::Assistant(assistant) => {
                answers.clear();
                assistant_items(assistant, options, &mut answers, &mut out);
            }
            Message::Tool(tool) => {
                let kind = answers
                    .get(tool.tool_call_id.as_str())
                    .copied()
                    .unwrap_or("function_call_output");
                out.push(tool_output(tool, kind, at)?);
            }
            Message::Chat(chat) => {
                return Err(at.unsupported(format!("a message with the role {:?}", chat.role)))
            }
        }
    }
    Ok(out)
}

/// A user message's items: its approval answers, then the message (when it says anything
/// else).
fn user_items(content: &Content, at: At, out: &mut Vec<Value>) -> Result<(), WireError> {
    let blocks = match content {
        Content::Text(text) => {
            out.push(json!({"type": "message", "role": "user", "content": text}));
            return Ok(());
        }
        Content::Blocks(blocks) => blocks,
    };
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::ToolApprovalResponse(answer) => {
                let mut item = json!({
                    "type": "mcp_approval_response",
                    "approval_request_id": answer.approval_request_id,
                    "approve": answer.approve,
                });
                if let Some(reason) = &answer.reason {
                    item["reason"] = reason.clone().into();
                }
                out.push(item);
            }
            other => parts.push(input_part(other, at)?),
        }
    }
    if !parts.is_empty() {
        out.push(json!({"type": "message", "role": "user", "content": parts}));
    }
    Ok(())
}

/// One part of user content: `input_text`, `input_image`, `input_file`, or a provider part.
fn input_part(block: &ContentBlock, at: At) -> Result<Value, WireError> {
    Ok(match block {
        ContentBlock::Text { text, .. } => json!({"type": "input_text", "text": text}),
        ContentBlock::Image(media) => {
            let mut part = json!({"type": "input_image", "detail": media.extras.get("detail").cloned().unwrap_or("auto".into())});
            match &media.source {
                MediaSource::Url(url) => part["image_url"] = url.clone().into(),
                MediaSource::Base64(_) => part["image_url"] = media.data_url().into(),
                MediaSource::FileId(id) => part["file_id"] = id.clone().into(),
                MediaSource::Text(_) => return Err(at.unsupported("an image given as text")),
            }
            part
        }
        ContentBlock::File(media) => input_file(media, at)?,
        ContentBlock::NonStandard { value } => value.clone(),
        other => return Err(at.unsupported(format!("{} in a user message", block_name(other)))),
    })
}

fn input_file(media: &MediaBlock, at: At) -> Result<Value, WireError> {
    let mut part = json!({"type": "input_file"});
    match &media.source {
        MediaSource::FileId(id) => part["file_id"] = id.clone().into(),
        MediaSource::Url(url) => part["file_url"] = url.clone().into(),
        MediaSource::Base64(_) => part["file_data"] = media.data_url().into(),
        MediaSource::Text(_) => return Err(at.unsupported("a file given as text")),
    }
    if let Some(filename) = media.filename() {
        part["filename"] = filename.into();
    }
    Ok(part)
}

/// Content that may hold text only (system and tool messages), as one string.
fn text_only(content: &Content, what: &str, at: At) -> Result<String, WireError> {
    match content {
        Content::Text(text) => Ok(text.clone()),
        Content::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text { text, .. } => Ok(text.as_str()),
                other => Err(at.unsupported(format!("{} in {what}", block_name(other)))),
            })
            .collect(),
    }
}

/// An assistant message's items, in block order; `answers` learns which output item answers
/// each of its calls.
fn assistant_items<'m>(
    message: &'m AiMessage,
    options: &EncodeOptions,
    answers: &mut HashMap<&'m str, &'static str>,
    out: &mut Vec<Value>,
) {
    let results = items::results_by_call(&message.content);
    // The assistant message being gathered, and the reasoning item being filled.
    let mut text = MessageItem::default();
    let mut reasoning: Option<Map<String, Value>> = None;
    // Item ids go back once a reasoning item did, which they must follow; without one they are
    // not needed, and an id whose reasoning item is missing is refused.
    let mut with_ids = false;
    for block in &message.content {
        if !matches!(block, ContentBlock::Reasoning { .. }) {
            with_ids |= flush_reasoning(&mut reasoning, options, out);
        }
        if !matches!(
            block,
            ContentBlock::Text { .. } | ContentBlock::Refusal { .. }
        ) {
            text.flush(out);
        }
        match block {
            ContentBlock::Text {
                text: part,
                id,
                phase,
                ..
            } => {
                let id = id.as_deref().filter(|_| with_ids);
                text.push(Part::Text(part), id, phase.as_deref(), out)
            }
            ContentBlock::Refusal { refusal, id, phase } => {
                let id = id.as_deref().filter(|_| with_ids);
                text.push(Part::Refusal(refusal), id, phase.as_deref(), out)
            }
            ContentBlock::Reasoning {
                text: summary,
                data,
                extras,
                ..
            } => {
                if let Some(id) = extras.get("id") {
                    flush_reasoning(&mut reasoning, options, out);
                    let mut item = Map::new();
                    item.insert("type".into(), "reasoning".into());
                    item.insert("id".into(), id.clone());
                    item.insert("summary".into(), Value::Array(Vec::new()));
                    if let Some(data) = data {
                        item.insert("encrypted_content".into(), data.clone().into());
                    }
                    reasoning = Some(item);
                }
                // Reasoning without an item id (another provider's) has nowhere to go.
                if let (Some(item), false) = (reasoning.as_mut(), summary.is_empty()) {
                    if let Some(Value::Array(parts)) = item.get_mut("summary") {
                        parts.push(json!({"type": "summary_text", "text": summary}));
                    }
                }
            }
            ContentBlock::ToolCall(call) => {
                let (mut item, answer) = tool_call(call);
                if let Some(id) = call.item_id().filter(|_| with_ids) {
                    item["id"] = id.into();
                }
                answers.insert(&call.id, answer);
                out.push(item);
            }
            ContentBlock::InvalidToolCall(call) => {
                answers.insert(&call.id, "function_call_output");
                let mut item = json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.args});
                if let Some(id) = call.item_id().filter(|_| with_ids) {
                    item["id"] = id.into();
                }
                out.push(item);
            }
            ContentBlock::ServerToolCall(call) if call.name == "tool_search" => {
                out.extend(items::tool_search_items(
                    call,
                    results.get(call.id.as_str()).copied(),
                ));
            }
            ContentBlock::ServerToolCall(call) => {
                out.extend(items::server_item(
                    call,
                    results.get(call.id.as_str()).copied(),
                ));
            }
            ContentBlock::Image(media) => out.extend(items::image_item(media, options.store)),
            ContentBlock::ToolApprovalRequest(request) => {
                out.push(items::approval_request(request))
            }
            ContentBlock::NonStandard { value } => {
                if let Some(action) = ClientAction::from_block(block) {
                    answers.insert(action.call_id, items::output_type(action.kind));
                }
                if value.get("type").is_some() {
                    out.push(value.clone());
                }
            }
            // Results go back inside the items of their calls; other blocks have no item.
            _ => {}
        }
    }
    flush_reasoning(&mut reasoning, options, out);
    text.flush(out);
}

/// Ends the reasoning item being filled; without `store`, one without encrypted content is
/// left out. True when an item was written.
fn flush_reasoning(
    reasoning: &mut Option<Map<String, Value>>,
    options: &EncodeOptions,
    out: &mut Vec<Value>,
) -> bool {
    match reasoning.take() {
        Some(item) if options.store || item.contains_key("encrypted_content") => {
            out.push(Value::Object(item));
            true
        }
        _ => false,
    }
}

/// A tool call's item (without its item id) and the output item that answers it: a custom tool call (its one
/// free-text input in LangChain's `__arg1`) or a function call.
fn tool_call(call: &ToolCall) -> (Value, &'static str) {
    match (call.args.len(), call.args.get("__arg1")) {
        (1, Some(Value::String(input))) => (
            json!({"type": "custom_tool_call", "call_id": call.id, "name": call.name, "input": input}),
            "custom_tool_call_output",
        ),
        _ => (
            json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": Value::Object(call.args.clone()).to_string()}),
            "function_call_output",
        ),
    }
}

/// A tool message as the output item of the call it answers: its one provider block when it
/// holds the item itself, else built from its content.
fn tool_output(tool: &ToolMessage, kind: &str, at: At) -> Result<Value, WireError> {
    if let Content::Blocks(blocks) = &tool.content {
        if let [ContentBlock::NonStandard {
            value: Value::Object(item),
        }] = blocks.as_slice()
        {
            if item.get("type").and_then(Value::as_str) == Some(kind) {
                let mut item = item.clone();
                item.entry("call_id")
                    .or_insert_with(|| tool.tool_call_id.clone().into());
                return Ok(Value::Object(item));
            }
        }
    }
    let call_id = tool.tool_call_id.as_str();
    let failed = tool.status == ToolStatus::Error;
    Ok(match kind {
        "computer_call_output" => {
            let screenshot = screenshot(&tool.content, at)?;
            let mut item = json!({"type": kind, "call_id": call_id, "output": screenshot});
            if let Some(checks) = tool.extra.get("acknowledged_safety_checks") {
                item["acknowledged_safety_checks"] = checks.clone();
            }
            item
        }
        "local_shell_call_output" => {
            let output = text_only(&tool.content, "a tool message", at)?;
            json!({"type": kind, "id": call_id, "output": output})
        }
        "shell_call_output" => {
            let output = text_only(&tool.content, "a tool message", at)?;
            let (stdout, stderr, exit_code) = if failed {
                (String::new(), output, 1)
            } else {
                (output, String::new(), 0)
            };
            json!({"type": kind, "call_id": call_id, "output": [{"stdout": stdout, "stderr": stderr, "outcome": {"type": "exit", "exit_code": exit_code}}]})
        }
        "tool_search_output" => {
            // The tools the app's search found: the tool message's text, a JSON array of tools.
            let output = text_only(&tool.content, "a tool message", at)?;
            let Ok(Value::Array(tools)) = serde_json::from_str::<Value>(&output) else {
                return Err(
                    at.unsupported("a tool search's answer that is not a JSON array of tools")
                );
            };
            json!({"type": kind, "call_id": call_id, "execution": "client", "tools": tools})
        }
        "apply_patch_call_output" => {
            let output = text_only(&tool.content, "a tool message", at)?;
            let status = if failed { "failed" } else { "completed" };
            json!({"type": kind, "call_id": call_id, "status": status, "output": output})
        }
        kind => {
            let output = text_only(&tool.content, "a tool message", at)?;
            json!({"type": kind, "call_id": call_id, "output": output})
        }
    })
}

/// The screenshot a computer action's answer carries: the tool message's image.
fn screenshot(content: &Content, at: At) -> Result<Value, WireError> {
    let image = match content {
        Content::Blocks(blocks) => blocks.iter().find_map(|block| match block {
            ContentBlock::Image(media) => Some(media),
            _ => None,
        }),
        Content::Text(_) => None,
    };
    let Some(media) = image else {
        return Err(at.unsupported("a computer action's answer without a screenshot image"));
    };
    Ok(match &media.source {
        MediaSource::FileId(id) => json!({"type": "computer_screenshot", "file_id": id}),
        MediaSource::Url(url) => json!({"type": "computer_screenshot", "image_url": url}),
        MediaSource::Base64(_) => {
            json!({"type": "computer_screenshot", "image_url": media.data_url()})
        }
        MediaSource::Text(_) => return Err(at.unsupported("a screenshot given as text")),
    })
}
