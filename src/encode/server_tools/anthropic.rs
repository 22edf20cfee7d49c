//! Server-side tools and citations in Anthropic's shapes: `server_tool_use` / `mcp_tool_use`
//! blocks, their `*_tool_result` blocks, `container_upload`, citations.

use serde_json::{json, Value};

use super::{restore, string};
use crate::message::{
    Citation, ContentBlock, MediaSource, ServerToolCall, ServerToolResult, ToolStatus,
};

/// The server tools Anthropic names in a `server_tool_use` block (its SDK refuses any other
/// name), after [`anthropic_call`]'s renaming.
const ANTHROPIC_SERVER_TOOLS: &[&str] = &[
    "web_search",
    "web_fetch",
    "code_execution",
    "bash_code_execution",
    "text_editor_code_execution",
    "tool_search_tool_regex",
    "tool_search_tool_bm25",
    "advisor",
];

/// True when a call named `name` has an Anthropic block: one of its server tools, a code
/// interpreter (as `code_execution`) or a remote MCP call (as `mcp_tool_use`). Another
/// provider's tool (file search, image generation, URL context…) is left out, its result too.
pub(in crate::encode) fn anthropic_expressible(name: &str) -> bool {
    matches!(name, "remote_mcp" | "code_interpreter") || ANTHROPIC_SERVER_TOOLS.contains(&name)
}

/// The `server_tool_use` (or `mcp_tool_use`) block of `call`, with `input`.
pub(in crate::encode) fn anthropic_call(
    call: &ServerToolCall,
    input: Value,
    native: bool,
) -> Value {
    let mut block = if call.name == "remote_mcp" {
        let server = string(&call.extras, "server_name").or(string(&call.extras, "server_label"));
        json!({
            "type": "mcp_tool_use",
            "id": call.id,
            "name": string(&call.extras, "tool_name").unwrap_or_default(),
            "server_name": server.unwrap_or_default(),
            "input": input,
        })
    } else {
        let name = match call.name.as_str() {
            "code_interpreter" => "code_execution",
            name => name,
        };
        json!({"type": "server_tool_use", "id": call.id, "name": name, "input": input})
    };
    if native {
        restore(&mut block, &call.extras);
    }
    block
}

/// The Anthropic result block a call named `name` answers with; `None` for tools Anthropic has
/// no result block for (file search, image generation, MCP tool listings).
fn anthropic_result_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "web_search" => "web_search_tool_result",
        "web_fetch" => "web_fetch_tool_result",
        "code_interpreter" | "code_execution" => "code_execution_tool_result",
        "bash_code_execution" => "bash_code_execution_tool_result",
        "text_editor_code_execution" => "text_editor_code_execution_tool_result",
        "remote_mcp" => "mcp_tool_result",
        _ => return None,
    })
}

/// The result block of `result`, whose call was named `call_name` (when the call was seen).
pub(in crate::encode) fn anthropic_result(
    result: &ServerToolResult,
    call_name: Option<&str>,
    native: bool,
) -> Option<Value> {
    let kept = string(&result.extras, "block_type").filter(|kind| kind.ends_with("_tool_result"));
    let kind = match kept {
        Some(kind) => kind,
        None => anthropic_result_type(call_name?)?,
    };
    let content = if native {
        result.output.clone().unwrap_or_else(|| json!([]))
    } else {
        foreign_content(kind, result)?
    };
    let mut block = json!({
        "type": kind,
        "tool_use_id": result.tool_call_id,
        "content": content,
    });
    if kind == "mcp_tool_result" {
        block["is_error"] = json!(result.status == ToolStatus::Error);
    } else if result.status == ToolStatus::Error && result.output.is_none() {
        block["content"] = json!({"type": format!("{kind}_error"), "error_code": "unavailable"});
    }
    if native {
        restore(&mut block, &result.extras);
    }
    Some(block)
}

/// The `content` of a result from another provider, in the shape Anthropic's SDK requires of
/// `kind`: code output as a `code_execution_result` (its text as `stdout`), an MCP result as its
/// text. `None` for the kinds whose content carries what only Anthropic gives (a web search
/// result's `encrypted_content`, a web fetch's document): the block is left out.
fn foreign_content(kind: &str, result: &ServerToolResult) -> Option<Value> {
    let output = result.output.as_ref();
    let text = || match output {
        None => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| {
                ["logs", "text", "output"]
                    .iter()
                    .find_map(|key| part.get(key).and_then(Value::as_str))
            })
            .collect(),
        Some(other) => other.to_string(),
    };
    match kind {
        "code_execution_tool_result" => Some(json!({
            "type": "code_execution_result",
            "stdout": text(),
            "stderr": "",
            "return_code": i32::from(result.status == ToolStatus::Error),
            "content": [],
        })),
        "mcp_tool_result" => Some(Value::String(text())),
        _ => None,
    }
}

/// A `container_upload` block, for a file block the Anthropic decoder read from one.
pub(in crate::encode) fn anthropic_upload(block: &ContentBlock) -> Option<Value> {
    let ContentBlock::File(media) = block else {
        return None;
    };
    if string(&media.extras, "block_type") != Some("container_upload") {
        return None;
    }
    let MediaSource::FileId(file_id) = &media.source else {
        return None;
    };
    Some(json!({"type": "container_upload", "file_id": file_id}))
}

/// A citation in Anthropic's shape: a document location when the source said where in the
/// document (`start_char_index`, page or block numbers, a search result), else a web search
/// result location.
pub(in crate::encode) fn anthropic_citation(citation: &Citation) -> Value {
    let extras = &citation.extras;
    let kind = if extras.contains_key("start_char_index") {
        "char_location"
    } else if extras.contains_key("start_page_number") {
        "page_location"
    } else if extras.contains_key("start_block_index") {
        "content_block_location"
    } else if extras.contains_key("search_result_index") {
        "search_result_location"
    } else {
        "web_search_result_location"
    };
    let mut object =
        json!({"type": kind, "cited_text": citation.cited_text.as_deref().unwrap_or_default()});
    let title_key = match kind {
        "char_location" | "page_location" | "content_block_location" => "document_title",
        _ => "title",
    };
    if let Some(title) = &citation.title {
        object[title_key] = json!(title);
    }
    if let Some(url) = &citation.url {
        object["url"] = json!(url);
    }
    if kind == "web_search_result_location" {
        if citation.url.is_none() {
            object["url"] = json!("");
        }
        object["encrypted_index"] = json!(string(extras, "encrypted_index").unwrap_or_default());
    }
    for (key, value) in [
        ("start_index", citation.start_index),
        ("end_index", citation.end_index),
    ] {
        if let Some(value) = value {
            object[key] = json!(value);
        }
    }
    if let Some(file_id) = &citation.file_id {
        object["file_id"] = json!(file_id);
    }
    if let Some(tool) = citation
        .tool_name
        .as_deref()
        .filter(|tool| *tool != "web_search")
    {
        object["tool_name"] = json!(tool);
    }
    restore(&mut object, extras);
    object
}
