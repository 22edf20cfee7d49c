//! Anthropic's server-side tool blocks in LangChain's standard shapes, by the rules of
//! LangChain's Anthropic block translator: `server_tool_use` and `mcp_tool_use` become
//! [`ServerToolCall`]s (`code_execution` named `code_interpreter`, an MCP tool `remote_mcp` with
//! its own name in `extras.tool_name`), every `*_tool_result` block a [`ServerToolResult`]
//! (`extras.block_type` names it; an error object inside, or an MCP `is_error`, makes it an
//! error), and `container_upload` a file block.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::kept::KeptBlock;
use super::{AnthropicDecoder, CHOICE};
use crate::delta::{BlockKey, Delta, DeltaSink, Held};
use crate::message::{
    ContentBlock, MediaBlock, MediaSource, ServerToolCall, ServerToolResult, ToolStatus,
};

impl AnthropicDecoder {
    /// The start of a block that is no text, thinking or client tool call: a server-side tool
    /// call (whose arguments may stream), a block of server-side tool output (whole at its
    /// start), or a block of a newer kind, kept whole until its stop.
    pub(super) fn other_block_start(
        &mut self,
        index: u32,
        key: BlockKey,
        kind: &str,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), crate::error::Error> {
        let Ok(Value::Object(block)) = serde_json::from_str(raw.get()) else {
            return Ok(());
        };
        if kind == "server_tool_use" || kind == "mcp_tool_use" {
            self.server_blocks.insert(index);
            return sink.apply(Delta::ServerToolStart {
                choice: CHOICE,
                key,
                call: server_call(block),
            });
        }
        let block = match whole_block(kind, block) {
            Ok(whole) => {
                return sink.apply(Delta::Block {
                    choice: CHOICE,
                    block: whole,
                })
            }
            Err(block) => block,
        };
        // Its slot among the open blocks, and every value of the block.
        let values = block
            .values()
            .map(|value| Held::of(value).entries)
            .sum::<usize>();
        sink.apply(Delta::Held(Held {
            entries: 2 + values,
            bytes: raw.get().len(),
        }))?;
        self.kept.insert(
            index,
            KeptBlock {
                block,
                input_json: String::new(),
            },
        );
        Ok(())
    }
}

/// A `server_tool_use` or `mcp_tool_use` block as a call; the arguments its start carried (a
/// whole message carries them all) are its `args`.
fn server_call(mut block: Map<String, Value>) -> ServerToolCall {
    let kind = take_string(&mut block, "type");
    let id = take_string(&mut block, "id");
    let tool = take_string(&mut block, "name");
    let args = match block.remove("input") {
        Some(Value::Object(args)) => args,
        _ => Map::new(),
    };
    let name = if kind == "mcp_tool_use" {
        block.insert("tool_name".into(), tool.into());
        "remote_mcp".to_owned()
    } else if tool == "code_execution" {
        "code_interpreter".to_owned()
    } else {
        tool
    };
    ServerToolCall {
        id,
        name,
        args,
        index: None,
        extras: block,
    }
}

/// A block sent whole that is server-side tool output: a `*_tool_result` block, or a
/// `container_upload` (a file the code execution container made). A block of another kind is
/// given back.
fn whole_block(
    kind: &str,
    mut block: Map<String, Value>,
) -> Result<ContentBlock, Map<String, Value>> {
    if kind == "container_upload" {
        block.remove("type");
        let file_id = take_string(&mut block, "file_id");
        let mut media = MediaBlock::from_source(MediaSource::FileId(file_id));
        block.insert("block_type".into(), kind.into());
        media.extras = block;
        return Ok(ContentBlock::File(media));
    }
    if !kind.ends_with("_tool_result") {
        return Err(block);
    }
    block.remove("type");
    let tool_call_id = take_string(&mut block, "tool_use_id");
    let output = block.remove("content");
    let is_error = match block.remove("is_error") {
        Some(Value::Bool(is_error)) => is_error,
        Some(other) => {
            block.insert("is_error".into(), other);
            false
        }
        None => false,
    };
    let status = if is_error || output.as_ref().is_some_and(is_error_object) {
        ToolStatus::Error
    } else {
        ToolStatus::Success
    };
    block.insert("block_type".into(), kind.into());
    Ok(ContentBlock::ServerToolResult(ServerToolResult {
        id: None,
        tool_call_id,
        status,
        output,
        extras: block,
    }))
}

/// The error object a result holds instead of its output (`web_search_tool_result_error`,
/// `code_execution_tool_result_error`, `web_fetch_tool_error`…, each with an `error_code`).
fn is_error_object(output: &Value) -> bool {
    let Some(object) = output.as_object() else {
        return false;
    };
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    kind.ends_with("_error") || object.contains_key("error_code")
}

fn take_string(block: &mut Map<String, Value>, key: &str) -> String {
    match block.remove(key) {
        Some(Value::String(text)) => text,
        Some(other) => {
            block.insert(key.to_owned(), other);
            String::new()
        }
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn mcp_calls_are_remote_mcp_with_their_tool_and_server() {
        let call = server_call(object(json!({"type": "mcp_tool_use", "id": "mcptoolu_1",
            "name": "ask_question", "server_name": "deepwiki", "input": {"q": "?"}})));
        assert_eq!(call.name, "remote_mcp");
        assert_eq!(call.args["q"], "?");
        assert_eq!(
            call.extras,
            object(json!({"tool_name": "ask_question", "server_name": "deepwiki"}))
        );
        let code = server_call(object(json!({"type": "server_tool_use", "id": "s",
            "name": "code_execution", "input": {}})));
        assert_eq!(code.name, "code_interpreter");
    }

    #[test]
    fn errors_inside_results_are_error_status() {
        let result = |value: Value| match whole_block(
            value["type"].as_str().unwrap(),
            object(value.clone()),
        ) {
            Ok(ContentBlock::ServerToolResult(result)) => result,
            other => panic!("{other:?}"),
        };
        let failed = result(json!({"type": "web_search_tool_result", "tool_use_id": "s",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}));
        assert_eq!(failed.status, ToolStatus::Error);
        assert_eq!(failed.extras["block_type"], "web_search_tool_result");
        let mcp = result(json!({"type": "mcp_tool_result", "tool_use_id": "m",
            "is_error": true, "content": [{"type": "text", "text": "boom"}]}));
        assert_eq!(mcp.status, ToolStatus::Error);
        let ok = result(
            json!({"type": "bash_code_execution_tool_result", "tool_use_id": "b",
            "content": {"type": "bash_code_execution_result", "stdout": "4\n", "stderr": "",
                        "return_code": 0, "content": []}}),
        );
        assert_eq!(ok.status, ToolStatus::Success);
        assert_eq!(ok.tool_call_id, "b");
        assert_eq!(whole_block("text", Map::new()), Err(Map::new()));
    }
}
