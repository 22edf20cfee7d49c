//! Server-side tools and citations in OpenAI Responses' shapes: the output item of each call,
//! with its result inside it, progress event names, approval requests, annotations.

use serde_json::{json, Map, Value};

use super::{args_text, restore, string};
use crate::message::{Annotation, ContentBlock, MediaSource, ServerToolCall, ToolStatus};

/// The output item type a server tool's call is, as Responses names it; `None` for tools it
/// has no item for (web fetch, bash and text-editor code execution).
pub(in crate::encode) fn responses_item_type(name: &str) -> Option<&'static str> {
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
pub(in crate::encode) fn responses_progress(kind: &str) -> Option<&'static str> {
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
pub(in crate::encode) fn responses_item(
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
pub(in crate::encode) fn responses_approval(
    request: &crate::message::ToolApprovalRequest,
) -> Value {
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
pub(in crate::encode) fn responses_annotation(annotation: &Annotation) -> Option<Value> {
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
