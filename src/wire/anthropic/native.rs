//! Typed blocks back into Anthropic's own shapes: citations into the citation type they were
//! read from, server-side tool calls into `server_tool_use` / `mcp_tool_use`, their results into
//! the result block named by `block_type` — the rules langchain-anthropic applies, so a
//! conversation echoes what the model streamed, with its ids, as the Messages API requires.

use serde_json::{json, Map, Value};

use crate::message::{
    Annotation, Citation, MediaBlock, MediaSource, ServerToolCall, ServerToolResult, ToolStatus,
};

/// Citation types Anthropic takes back in a text block's `citations`.
const ANTHROPIC_CITATIONS: &[&str] = &[
    "char_location",
    "page_location",
    "content_block_location",
    "web_search_result_location",
    "search_result_location",
];

/// A text block's annotation as an Anthropic citation; `None` for one Anthropic cannot read
/// (another provider's annotation).
pub(super) fn citation(annotation: &Annotation) -> Option<Value> {
    match annotation {
        Annotation::Citation(citation) => typed_citation(citation),
        Annotation::NonStandard { value } => {
            let kind = value.get("type").and_then(Value::as_str)?;
            ANTHROPIC_CITATIONS.contains(&kind).then(|| value.clone())
        }
    }
}

/// The citation type is told by the fields only it has, as langchain-anthropic tells it.
fn typed_citation(citation: &Citation) -> Option<Value> {
    let extras = &citation.extras;
    let has = |key: &str| extras.contains_key(key);
    let (kind, title_key) = if citation.url.is_some() {
        ("web_search_result_location", "title")
    } else if has("start_char_index") {
        ("char_location", "document_title")
    } else if has("search_result_index") {
        ("search_result_location", "title")
    } else if has("start_block_index") {
        ("content_block_location", "document_title")
    } else if has("start_page_number") {
        ("page_location", "document_title")
    } else {
        return None;
    };
    let mut out = Map::new();
    out.insert("type".into(), kind.into());
    if let Some(text) = &citation.cited_text {
        out.insert("cited_text".into(), text.clone().into());
    }
    if let Some(url) = &citation.url {
        out.insert("url".into(), url.clone().into());
    }
    if let Some(title) = &citation.title {
        out.insert(title_key.into(), title.clone().into());
    }
    for (key, value) in extras {
        out.entry(key.clone()).or_insert_with(|| value.clone());
    }
    Some(Value::Object(out))
}

/// A server-side tool call as the block Anthropic streamed.
pub(super) fn server_tool_call(call: &ServerToolCall) -> Value {
    let mut block = call.extras.clone();
    let mcp = call.name == "remote_mcp";
    let name = match call.name.as_str() {
        "code_interpreter" => Value::from("code_execution"),
        "remote_mcp" => block.remove("tool_name").unwrap_or_default(),
        other => other.into(),
    };
    block.insert(
        "type".into(),
        if mcp {
            "mcp_tool_use"
        } else {
            "server_tool_use"
        }
        .into(),
    );
    block.insert("id".into(), call.id.clone().into());
    block.insert("name".into(), name);
    match block.remove("partial_json") {
        // Arguments that never parsed go back as they streamed.
        Some(Value::String(text)) => {
            let input = serde_json::from_str(&text).unwrap_or(json!({}));
            block.insert("input".into(), input);
        }
        _ => {
            block.insert("input".into(), Value::Object(call.args.clone()));
        }
    }
    Value::Object(block)
}

/// A server-side tool's result as the block Anthropic streamed (`block_type` names it).
pub(super) fn server_tool_result(result: &ServerToolResult) -> Value {
    let mut block = result.extras.clone();
    let kind = block
        .remove("block_type")
        .unwrap_or_else(|| "web_search_tool_result".into());
    if kind == "mcp_tool_result" {
        block.insert(
            "is_error".into(),
            (result.status == ToolStatus::Error).into(),
        );
    }
    block.insert("type".into(), kind);
    block.insert("tool_use_id".into(), result.tool_call_id.clone().into());
    if let Some(output) = &result.output {
        block.insert("content".into(), output.clone());
    }
    Value::Object(block)
}

/// True for the file block a `container_upload` was read into.
pub(super) fn is_container_upload(media: &MediaBlock) -> bool {
    matches!(media.source, MediaSource::FileId(_))
        && media.extras.get("block_type") == Some(&Value::from("container_upload"))
}

/// The `container_upload` block a file block was read from.
pub(super) fn container_upload(media: &MediaBlock) -> Value {
    let mut block = media.extras.clone();
    block.remove("block_type");
    block.insert("type".into(), "container_upload".into());
    if let MediaSource::FileId(file_id) = &media.source {
        block.insert("file_id".into(), file_id.clone().into());
    }
    Value::Object(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_go_back_as_the_type_they_came_as() {
        for native in [
            json!({"type": "char_location", "cited_text": "a", "document_index": 0, "document_title": "D", "start_char_index": 0, "end_char_index": 1}),
            json!({"type": "page_location", "cited_text": "a", "document_index": 0, "document_title": "D", "start_page_number": 1, "end_page_number": 2}),
            json!({"type": "content_block_location", "cited_text": "a", "document_index": 0, "start_block_index": 0, "end_block_index": 1}),
            json!({"type": "web_search_result_location", "cited_text": "a", "url": "https://x.test", "title": "X", "encrypted_index": "E"}),
            json!({"type": "search_result_location", "cited_text": "a", "source": "s", "title": "T", "search_result_index": 0, "start_block_index": 0, "end_block_index": 0}),
        ] {
            let annotation = Annotation::from_provider(native.clone());
            assert!(annotation.as_citation().is_some(), "{native}");
            assert_eq!(citation(&annotation), Some(native));
        }
        let openai = Annotation::from_provider(json!({"type": "file_path", "file_id": "f"}));
        assert_eq!(citation(&openai), None);
    }
}
