//! Built-in tool items rebuilt from the blocks they were read into — the inverse of the
//! Responses dialect's reading (`dialect/openai_responses/server_tools.rs`): a server tool call
//! and its result become one `web_search_call`, `file_search_call`, `code_interpreter_call`,
//! `mcp_call` or `mcp_list_tools` item with the provider's id, a tool search a
//! `tool_search_call` followed by its `tool_search_output`, an image block with an `ig_…` id an
//! `image_generation_call`, an approval request an `mcp_approval_request`.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::message::{
    ContentBlock, MediaBlock, MediaSource, ServerToolCall, ServerToolResult, ToolApprovalRequest,
    ToolStatus,
};

/// The results of a message's server tool calls, by call id (one lookup per call).
pub(super) fn results_by_call(blocks: &[ContentBlock]) -> HashMap<&str, &ServerToolResult> {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ServerToolResult(result) => Some((result.tool_call_id.as_str(), result)),
            _ => None,
        })
        .collect()
}

/// The output item type that answers a client action item (`computer_call` →
/// `computer_call_output`).
pub(super) fn output_type(kind: &str) -> &'static str {
    match kind {
        "computer_call" => "computer_call_output",
        "local_shell_call" => "local_shell_call_output",
        "shell_call" => "shell_call_output",
        "apply_patch_call" => "apply_patch_call_output",
        "tool_search_call" => "tool_search_output",
        _ => "function_call_output",
    }
}

/// A server tool call (and its result) as the item it was read from; `None` for a tool no
/// Responses item names (another provider's).
pub(super) fn server_item(
    call: &ServerToolCall,
    result: Option<&ServerToolResult>,
) -> Option<Value> {
    let mut item = call.extras.clone();
    item.remove("partial_json");
    let output = result.and_then(|result| result.output.clone());
    let status = match result {
        Some(result) => match result.extras.get("status") {
            Some(status) => status.clone(),
            None if result.status == ToolStatus::Error => "failed".into(),
            None => "completed".into(),
        },
        None => "in_progress".into(),
    };
    let args = Value::Object(call.args.clone());
    let kind = match call.name.as_str() {
        "web_search" => {
            let mut action = call.args.clone();
            if let Some(sources) = output.as_ref().and_then(|output| output.get("sources")) {
                action.insert("sources".into(), sources.clone());
            }
            action.entry("type").or_insert_with(|| "search".into());
            item.insert("action".into(), Value::Object(action));
            "web_search_call"
        }
        "file_search" => {
            let queries = call.args.get("queries").cloned().unwrap_or(json!([]));
            item.insert("queries".into(), queries);
            item.insert("results".into(), output.unwrap_or(Value::Null));
            "file_search_call"
        }
        "code_interpreter" => {
            let code = call.args.get("code").cloned().unwrap_or(Value::Null);
            item.insert("code".into(), code);
            item.insert("outputs".into(), output.unwrap_or(Value::Null));
            item.entry("container_id").or_insert_with(|| "".into());
            "code_interpreter_call"
        }
        "remote_mcp" => {
            mcp_fields(&mut item, &args);
            item.insert("output".into(), output.unwrap_or(Value::Null));
            if let Some(error) = result.and_then(|result| result.extras.get("error")) {
                item.insert("error".into(), error.clone());
            }
            "mcp_call"
        }
        "mcp_list_tools" => {
            item.insert("tools".into(), output.unwrap_or(json!([])));
            if let Some(error) = result.and_then(|result| result.extras.get("error")) {
                item.insert("error".into(), error.clone());
            }
            // The list carries no status.
            return Some(finish(item, "mcp_list_tools", &call.id, None));
        }
        _ => return None,
    };
    Some(finish(item, kind, &call.id, Some(status)))
}

/// A server-run tool search and its result as the two items they were read from: the call,
/// then the output that lists the tools it found.
pub(super) fn tool_search_items(
    call: &ServerToolCall,
    result: Option<&ServerToolResult>,
) -> impl Iterator<Item = Value> {
    let mut item = call.extras.clone();
    item.remove("partial_json");
    item.entry("arguments")
        .or_insert_with(|| Value::Object(call.args.clone()));
    item.entry("execution").or_insert_with(|| "server".into());
    let call_item = finish(item, "tool_search_call", &call.id, None);
    let output_item = result.map(|result| {
        let mut item = result.extras.clone();
        let tools = result
            .output
            .as_ref()
            .and_then(|output| output.get("tools"))
            .cloned()
            .unwrap_or(json!([]));
        item.insert("tools".into(), tools);
        item.entry("execution").or_insert_with(|| "server".into());
        let status = match result.status {
            ToolStatus::Error => "incomplete",
            ToolStatus::Success => "completed",
        };
        item.entry("status").or_insert_with(|| status.into());
        item.insert("type".into(), "tool_search_output".into());
        if let Some(id) = &result.id {
            item.insert("id".into(), id.clone().into());
        }
        Value::Object(item)
    });
    std::iter::once(call_item).chain(output_item)
}

/// An MCP tool's name and arguments as the item spells them: `name`, and `arguments` as JSON
/// text (the text as streamed when it never parsed).
fn mcp_fields(item: &mut Map<String, Value>, args: &Value) {
    if let Some(name) = item.remove("tool_name") {
        item.insert("name".into(), name);
    }
    if !matches!(item.get("arguments"), Some(Value::String(_))) {
        item.insert("arguments".into(), args.to_string().into());
    }
}

fn finish(mut item: Map<String, Value>, kind: &str, id: &str, status: Option<Value>) -> Value {
    item.insert("type".into(), kind.into());
    item.insert("id".into(), id.into());
    if let Some(status) = status {
        item.insert("status".into(), status);
    }
    Value::Object(item)
}

/// An image generation's result as its item: an `item_reference` to it by id when the provider
/// stores responses (the SDK's types require the whole image on an `image_generation_call`),
/// the whole item otherwise; `None` for an image that came from no image generation call.
pub(super) fn image_item(media: &MediaBlock, store: bool) -> Option<Value> {
    let id = media.id.as_deref().filter(|id| id.starts_with("ig_"))?;
    if store {
        return Some(json!({"type": "item_reference", "id": id}));
    }
    let mut item = media.extras.clone();
    let result = match &media.source {
        MediaSource::Base64(data) => Value::from(data.as_str()),
        _ => Value::Null,
    };
    item.insert("result".into(), result);
    item.entry("status").or_insert_with(|| "completed".into());
    Some(finish(item, "image_generation_call", id, None))
}

/// An approval request as the `mcp_approval_request` item it was read from.
pub(super) fn approval_request(request: &ToolApprovalRequest) -> Value {
    let mut item = request.extras.clone();
    item.insert("name".into(), request.name.clone().into());
    item.insert(
        "server_label".into(),
        request.server_label.clone().unwrap_or_default().into(),
    );
    if !matches!(item.get("arguments"), Some(Value::String(_))) {
        item.insert(
            "arguments".into(),
            Value::Object(request.args.clone()).to_string().into(),
        );
    }
    finish(item, "mcp_approval_request", &request.id, None)
}
