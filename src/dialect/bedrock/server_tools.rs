//! Tools Bedrock runs itself (Amazon Nova's system tools), typed as the Anthropic dialect types
//! server tools: a `toolUse` start with `type: "server_tool_use"` (`nova_grounding`,
//! `nova_code_interpreter`) is a server tool call, not a call for the app to run, and its
//! input fragments stream as that call's arguments; a `toolResult` block — its start gives
//! `toolUseId`, `type` (`nova_code_interpreter_result`…) and `status`, its deltas lists of
//! `{text}` / `{json}` items — is that call's result, whole at its stop.
//!
//! Names are LangChain's, as the other dialects give them (`nova_code_interpreter` is
//! `code_interpreter`, `nova_grounding` `web_search`), with Bedrock's own in the call's
//! `extras.tool_name`. A result's items are its output as sent, a text streamed in pieces
//! joined into one `{text}` item; its `type` is `extras.block_type`; `status: "error"` makes
//! it an error.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{block_key, BedrockDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, Held};
use crate::error::Error;
use crate::message::{ContentBlock, ServerToolCall, ServerToolResult, ToolStatus};

/// A server tool's result while its deltas stream: the start's fields and the items so far.
#[derive(Debug, Default)]
pub(super) struct PendingResult {
    start: Map<String, Value>,
    items: Vec<Value>,
}

/// A Nova system tool's name in LangChain's terms; another name is kept.
fn standard_name(name: &str) -> &str {
    match name {
        "nova_code_interpreter" => "code_interpreter",
        "nova_grounding" => "web_search",
        other => other,
    }
}

impl BedrockDecoder {
    /// A `toolUse` start whose `type` is `server_tool_use`: a server tool call keyed by its
    /// block, whose input fragments are its arguments.
    pub(super) fn server_call_start(
        &mut self,
        index: u32,
        id: &str,
        name: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if !self.server_blocks.contains(&index) {
            self.server_blocks.push(index);
        }
        let mut extras = Map::new();
        extras.insert("tool_name".into(), name.into());
        sink.apply(Delta::ServerToolStart {
            choice: CHOICE,
            key: block_key(index),
            call: ServerToolCall {
                id: id.to_owned(),
                name: standard_name(name).to_owned(),
                args: Map::new(),
                index: None,
                extras,
            },
        })
    }

    /// A `toolResult` start: its fields, held until the block stops.
    pub(super) fn result_start(
        &mut self,
        index: u32,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let start = match serde_json::from_str(raw.get()) {
            Ok(Value::Object(start)) => start,
            _ => Map::new(),
        };
        sink.apply(Delta::Held(Held {
            entries: 2 + start.len(),
            bytes: raw.get().len(),
        }))?;
        self.results.insert(
            index,
            PendingResult {
                start,
                items: Vec::new(),
            },
        );
        Ok(())
    }

    /// A `toolResult` delta: its items appended to the block's result (opened here when no
    /// start came), a text item going on in the text item before it.
    pub(super) fn result_delta(
        &mut self,
        index: u32,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let items = match serde_json::from_str(raw.get()) {
            Ok(Value::Array(items)) => items,
            Ok(Value::Null) | Err(_) => return Ok(()),
            Ok(other) => vec![other],
        };
        sink.apply(Delta::Held(Held {
            entries: items.len(),
            bytes: raw.get().len(),
        }))?;
        let result = self.results.entry(index).or_default();
        for item in items {
            let last_text = result
                .items
                .last_mut()
                .and_then(|last| last.get_mut("text"))
                .and_then(|text| match text {
                    Value::String(text) => Some(text),
                    _ => None,
                });
            match (last_text, only_text(&item)) {
                (Some(text), Some(more)) => text.push_str(more),
                _ => result.items.push(item),
            }
        }
        Ok(())
    }

    /// Ends the server tool call or result at `index`, if that block is one.
    pub(super) fn end_server_block(
        &mut self,
        index: u32,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        if let Some(position) = self.server_blocks.iter().position(|&open| open == index) {
            self.server_blocks.swap_remove(position);
            return Some(sink.apply(Delta::ServerToolEnd {
                choice: CHOICE,
                key: block_key(index),
                args: None,
                extras: Map::new(),
            }));
        }
        let result = self.results.remove(&index)?;
        Some(sink.apply(Delta::Block {
            choice: CHOICE,
            block: ContentBlock::ServerToolResult(into_result(result)),
        }))
    }
}

/// The text of an item that is `{"text": …}` and nothing else.
fn only_text(item: &Value) -> Option<&str> {
    match item.as_object()? {
        object if object.len() == 1 => object.get("text")?.as_str(),
        _ => None,
    }
}

fn into_result(PendingResult { mut start, items }: PendingResult) -> ServerToolResult {
    let tool_call_id = match start.remove("toolUseId") {
        Some(Value::String(id)) => id,
        Some(other) => {
            start.insert("toolUseId".into(), other);
            String::new()
        }
        None => String::new(),
    };
    let status = match start.get("status").and_then(Value::as_str) {
        Some("error") => ToolStatus::Error,
        _ => ToolStatus::Success,
    };
    if matches!(start.get("status"), Some(Value::String(_))) {
        start.remove("status");
    }
    if let Some(kind) = start.remove("type") {
        start.insert("block_type".into(), kind);
    }
    ServerToolResult {
        id: None,
        tool_call_id,
        status,
        output: (!items.is_empty()).then_some(Value::Array(items)),
        extras: start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_type_their_status_and_keep_everything_else() {
        let start = json!({"toolUseId": "tooluse_1", "type": "nova_code_interpreter_result",
            "status": "error", "extra": 1});
        let result = into_result(PendingResult {
            start: start.as_object().unwrap().clone(),
            items: vec![json!({"text": "boom"})],
        });
        assert_eq!(result.tool_call_id, "tooluse_1");
        assert_eq!(result.status, ToolStatus::Error);
        assert_eq!(result.output, Some(json!([{"text": "boom"}])));
        assert_eq!(
            Value::Object(result.extras),
            json!({"block_type": "nova_code_interpreter_result", "extra": 1})
        );
        assert_eq!(standard_name("nova_grounding"), "web_search");
        assert_eq!(standard_name("other_tool"), "other_tool");
    }
}
