//! Server-side tool activity and citations in each target's shapes, shared by the live and the
//! non-streamed halves: the inverse of the decoders' mappings (`src/dialect/anthropic/
//! server_tools.rs`, `src/dialect/openai_responses/server_tools.rs`).
//!
//! A call's or result's `extras` go back onto the block only when the message came from the
//! target's own provider (they hold that provider's native fields); a result's `output` is
//! written as the source sent it, so that the same blocks come back when the output is read
//! again, whatever the provider.

use serde_json::{json, Map, Value};

use crate::message::{
    Annotation, Citation, ContentBlock, MediaSource, ServerToolCall, ServerToolResult, ToolStatus,
};

/// The keys the decoders move into `extras` that are not fields of the provider's block.
const DECODER_KEYS: &[&str] = &["tool_name", "partial_json", "block_type"];

fn string<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// Copies `extras` onto `object`, without the decoders' own keys and without overwriting.
fn restore(object: &mut Value, extras: &Map<String, Value>) {
    let Value::Object(object) = object else {
        return;
    };
    for (key, value) in extras {
        if !DECODER_KEYS.contains(&key.as_str()) && !object.contains_key(key) {
            object.insert(key.clone(), value.clone());
        }
    }
}

/// The call's arguments as JSON text (empty when there are none).
pub(super) fn args_text(call: &ServerToolCall) -> String {
    if call.args.is_empty() {
        String::new()
    } else {
        Value::Object(call.args.clone()).to_string()
    }
}

/// True when the source streams this call's arguments as raw text rather than JSON fragments
/// (Responses streams a code interpreter's code itself).
pub(super) fn streams_raw_code(source: Option<&str>, name: &str) -> bool {
    source == Some("openai") && name == "code_interpreter"
}

/// True when the call's start does not yet say what a target needs to open its block: a remote
/// MCP call whose tool name only its end gives (Responses' `mcp_call` items).
pub(super) fn needs_its_end(call: &ServerToolCall) -> bool {
    call.name == "remote_mcp" && string(&call.extras, "tool_name").is_none()
}

// --- Anthropic -------------------------------------------------------------------------------

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
pub(super) fn anthropic_expressible(name: &str) -> bool {
    matches!(name, "remote_mcp" | "code_interpreter") || ANTHROPIC_SERVER_TOOLS.contains(&name)
}

/// The `server_tool_use` (or `mcp_tool_use`) block of `call`, with `input`.
pub(super) fn anthropic_call(call: &ServerToolCall, input: Value, native: bool) -> Value {
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
pub(super) fn anthropic_result(
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
pub(super) fn anthropic_upload(block: &ContentBlock) -> Option<Value> {
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
pub(super) fn anthropic_citation(citation: &Citation) -> Value {
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

// --- OpenAI Responses ------------------------------------------------------------------------

/// The output item type a server tool's call is, as Responses names it; `None` for tools it
/// has no item for (web fetch, bash and text-editor code execution).
pub(super) fn responses_item_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "web_search" => "web_search_call",
        "file_search" => "file_search_call",
        "code_interpreter" | "code_execution" => "code_interpreter_call",
        "image_generation" => "image_generation_call",
        "remote_mcp" => "mcp_call",
        "mcp_list_tools" => "mcp_list_tools",
        _ => return None,
    })
}

/// The events a server item's kind writes as it begins and as it ends (`in_progress`, …).
pub(super) fn responses_progress(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "web_search_call" => "response.web_search_call",
        "file_search_call" => "response.file_search_call",
        "code_interpreter_call" => "response.code_interpreter_call",
        "image_generation_call" => "response.image_generation_call",
        "mcp_call" => "response.mcp_call",
        "mcp_list_tools" => "response.mcp_list_tools",
        _ => return None,
    })
}

/// A server item: in progress (no result, `done` false) or whole, with its result.
pub(super) fn responses_item(
    kind: &str,
    id: &str,
    call: &ServerToolCall,
    result: Option<&ContentBlock>,
    done: bool,
    native: bool,
) -> Value {
    let failed = matches!(result, Some(ContentBlock::ServerToolResult(result)) if result.status == ToolStatus::Error);
    let status = match (done, failed) {
        (false, _) => "in_progress",
        (true, true) => "failed",
        (true, false) => "completed",
    };
    let output = match result {
        Some(ContentBlock::ServerToolResult(result)) => result.output.clone(),
        _ => None,
    };
    let mut item = json!({"id": id, "type": kind, "status": status});
    let args = &call.args;
    match kind {
        "web_search_call" => {
            let mut action = args.clone();
            action.entry("type").or_insert_with(|| json!("search"));
            if let Some(sources) = output.as_ref().and_then(web_sources) {
                action.insert("sources".into(), sources);
            }
            item["action"] = Value::Object(action);
        }
        "file_search_call" => {
            item["queries"] = args.get("queries").cloned().unwrap_or_else(|| json!([]));
            item["results"] = output.unwrap_or(Value::Null);
        }
        "code_interpreter_call" => {
            item["code"] = args.get("code").cloned().unwrap_or(Value::Null);
            item["container_id"] = json!(string(&call.extras, "container_id").unwrap_or_default());
            item["outputs"] = match output {
                Some(Value::Array(outputs)) => Value::Array(outputs),
                Some(Value::Object(result)) => code_logs(&result),
                Some(Value::String(logs)) => json!([{"type": "logs", "logs": logs}]),
                _ => Value::Null,
            };
        }
        "image_generation_call" => {
            item["result"] = match result {
                Some(ContentBlock::Image(media)) => match &media.source {
                    MediaSource::Base64(data) => json!(data),
                    _ => Value::Null,
                },
                _ => Value::Null,
            };
            if let Some(ContentBlock::Image(media)) = result {
                restore(&mut item, &media.extras);
                item["status"] = json!(status);
            }
        }
        _ => {
            let label =
                string(&call.extras, "server_label").or(string(&call.extras, "server_name"));
            item["server_label"] = json!(label.unwrap_or_default());
            if kind == "mcp_call" {
                item["name"] = json!(string(&call.extras, "tool_name").unwrap_or_default());
                item["arguments"] = json!(args_text(call));
                item["output"] = match output {
                    None => Value::Null,
                    Some(Value::String(text)) => json!(text),
                    Some(other) => json!(mcp_text(&other)),
                };
            } else {
                item["tools"] = output.unwrap_or_else(|| json!([]));
            }
            if let Some(ContentBlock::ServerToolResult(result)) = result {
                if let Some(error) = result.extras.get("error") {
                    item["error"] = error.clone();
                }
            }
        }
    }
    if !done {
        strip_for_start(&mut item, kind);
    }
    if native {
        restore(&mut item, &call.extras);
    }
    item
}

/// An item as `output_item.added` shows it: the fields known before the tool ran.
fn strip_for_start(item: &mut Value, kind: &str) {
    let Value::Object(object) = item else {
        return;
    };
    match kind {
        "web_search_call" => {
            object.insert("action".into(), json!({"type": "search"}));
        }
        "code_interpreter_call" => {
            object.insert("code".into(), json!(""));
            object.insert("outputs".into(), Value::Null);
        }
        "mcp_call" => {
            object.insert("arguments".into(), json!(""));
            object.remove("output");
            object.remove("error");
        }
        "file_search_call" => {
            object.insert("results".into(), Value::Null);
        }
        _ => {}
    }
}

/// An Anthropic code execution result as Responses' `logs` output.
fn code_logs(result: &Map<String, Value>) -> Value {
    let mut logs = String::new();
    for key in ["stdout", "stderr"] {
        if let Some(text) = string(result, key) {
            logs.push_str(text);
        }
    }
    json!([{"type": "logs", "logs": logs}])
}

/// A search's sources as Responses lists them (`{"type": "url", "url"}`), from its own
/// `{"sources": [...]}` or another provider's list of results: Anthropic's `web_search_result`s
/// (`url`) or Gemini's grounding chunks (`web.uri`). `None` when no source has a URL.
fn web_sources(output: &Value) -> Option<Value> {
    if let Some(sources) = output.get("sources") {
        return Some(sources.clone());
    }
    let sources: Vec<Value> = output
        .as_array()?
        .iter()
        .filter_map(|result| {
            let url = result
                .get("url")
                .or_else(|| result.get("web").and_then(|web| web.get("uri")))?;
            Some(json!({"type": "url", "url": url.as_str()?}))
        })
        .collect();
    (!sources.is_empty()).then_some(Value::Array(sources))
}

/// An MCP result's text blocks (Anthropic's `content`) as the one string Responses carries.
fn mcp_text(output: &Value) -> String {
    match output {
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect(),
        other => other.to_string(),
    }
}

/// An `mcp_approval_request` item.
pub(super) fn responses_approval(request: &crate::message::ToolApprovalRequest) -> Value {
    let mut item = json!({
        "id": request.id,
        "type": "mcp_approval_request",
        "server_label": request.server_label.as_deref().unwrap_or_default(),
        "name": request.name,
        "arguments": Value::Object(request.args.clone()).to_string(),
    });
    restore(&mut item, &request.extras);
    item
}

/// An annotation as Responses writes it on `output_text`: a citation as `url_citation`,
/// `file_citation` or `container_file_citation`, another provider annotation as sent (when it
/// has a type).
pub(super) fn responses_annotation(annotation: &Annotation) -> Option<Value> {
    let citation = match annotation {
        Annotation::Citation(citation) => citation,
        Annotation::NonStandard { value } => {
            return value.get("type").is_some().then(|| value.clone());
        }
    };
    let extras = &citation.extras;
    let mut object = match &citation.file_id {
        Some(file_id) if extras.contains_key("container_id") => json!({
            "type": "container_file_citation", "file_id": file_id,
            "filename": citation.title.as_deref().unwrap_or_default(),
            "start_index": citation.start_index.unwrap_or(0),
            "end_index": citation.end_index.unwrap_or(0),
        }),
        Some(file_id) => json!({
            "type": "file_citation", "file_id": file_id,
            "filename": citation.title.as_deref().unwrap_or_default(),
            "index": extras.get("index").cloned().unwrap_or(json!(0)),
        }),
        None => json!({
            "type": "url_citation",
            "url": citation.url.as_deref().unwrap_or_default(),
            "title": citation.title.as_deref().unwrap_or_default(),
            "start_index": citation.start_index.unwrap_or(0),
            "end_index": citation.end_index.unwrap_or(0),
        }),
    };
    if let Some(text) = &citation.cited_text {
        object["cited_text"] = json!(text);
    }
    if let Some(tool) = &citation.tool_name {
        object["tool_name"] = json!(tool);
    }
    restore(&mut object, extras);
    Some(object)
}

// --- OpenAI chat -----------------------------------------------------------------------------

/// The `url_citation` annotations of a message's text, as chat completions carry them: only
/// citations with a URL have a place there, and their spans move by the text of the blocks
/// before theirs (chat has one text).
pub(super) fn chat_annotations<'a>(
    blocks: impl IntoIterator<Item = &'a ContentBlock>,
) -> Vec<Value> {
    let mut offset = 0;
    let mut annotations = Vec::new();
    for block in blocks {
        let ContentBlock::Text { text, .. } = block else {
            continue;
        };
        for citation in block.citations() {
            let Some(url) = citation.url.as_deref() else {
                continue;
            };
            annotations.push(json!({
                "type": "url_citation",
                "url_citation": {
                    "url": url,
                    "title": citation.title.as_deref().unwrap_or_default(),
                    "start_index": citation.start_index.unwrap_or(0) + offset,
                    "end_index": citation.end_index.unwrap_or(0) + offset,
                },
            }));
        }
        offset += text.chars().count() as u64;
    }
    annotations
}
