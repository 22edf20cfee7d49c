//! The parts of the tools Gemini runs itself, read back from a request as the Gemini dialect
//! reads them from a stream: `executableCode` / `codeExecutionResult` (a `code_interpreter` call
//! and its result) and Gemini 3's `toolCall` / `toolResponse` (a built-in tool's call, named by
//! its `toolType` in lower case, and its result), each with its `thought` and signature.

use serde_json::{Map, Value};

use super::GENERATED_CODE_ID;
use crate::message::{ContentBlock, ServerToolCall, ServerToolResult, ToolStatus};
use crate::wire::{as_object, At, WireError};

/// What reading server-tool parts remembers: the ids it made, and the last code run of the turn
/// (the one a `codeExecutionResult` without an id answers).
#[derive(Default)]
pub(super) struct ServerParts {
    next_id: usize,
    last_code: Option<String>,
}

impl ServerParts {
    /// A new model turn: its results answer only its own code.
    pub(super) fn start_turn(&mut self) {
        self.last_code = None;
    }

    /// The block of a server-tool part; `None` for a part of another kind.
    pub(super) fn read(
        &mut self,
        part: &Map<String, Value>,
        thought: bool,
        signature: &Option<String>,
        at: At,
    ) -> Result<Option<ContentBlock>, WireError> {
        let (key, inner) = match [
            "executableCode",
            "codeExecutionResult",
            "toolCall",
            "toolResponse",
        ]
        .into_iter()
        .find_map(|key| Some((key, part.get(key)?)))
        {
            Some(found) => found,
            None => return Ok(None),
        };
        let mut fields = as_object(inner, &format!("`{key}`"), at)?.clone();
        let id = take_id(&mut fields);
        let block = match key {
            "executableCode" | "toolCall" => {
                let id = id.unwrap_or_else(|| self.generated_id());
                let (name, args) = if key == "executableCode" {
                    self.last_code = Some(id.clone());
                    let args = ["code", "language"]
                        .into_iter()
                        .filter_map(|key| Some((key.to_owned(), fields.remove(key)?)))
                        .collect();
                    ("code_interpreter".to_owned(), args)
                } else {
                    let name = fields.get("toolType").and_then(Value::as_str);
                    let name = name.map_or_else(|| "tool".to_owned(), str::to_ascii_lowercase);
                    (name, object_args(&mut fields))
                };
                mark(&mut fields, thought, signature.clone());
                ContentBlock::ServerToolCall(ServerToolCall {
                    id,
                    name,
                    args,
                    index: None,
                    extras: fields,
                })
            }
            _ => {
                let code = key == "codeExecutionResult";
                let tool_call_id = match id {
                    Some(id) => id,
                    None if code => self.last_code.take().unwrap_or_default(),
                    None => String::new(),
                };
                let status = match fields.get("outcome").and_then(Value::as_str) {
                    Some(outcome) if code && outcome != "OUTCOME_OK" => ToolStatus::Error,
                    _ => ToolStatus::Success,
                };
                let output = fields.remove(if code { "output" } else { "response" });
                mark(&mut fields, thought, signature.clone());
                let block_type = if code {
                    "code_execution_result"
                } else {
                    "tool_response"
                };
                fields.insert("block_type".into(), block_type.into());
                ContentBlock::ServerToolResult(ServerToolResult {
                    id: None,
                    tool_call_id,
                    status,
                    output,
                    extras: fields,
                })
            }
        };
        Ok(Some(block))
    }

    /// An id for a call Gemini gave none (`srvtoolu_df_…`, which `encode` does not send).
    fn generated_id(&mut self) -> String {
        self.next_id += 1;
        format!("{GENERATED_CODE_ID}{}", self.next_id - 1)
    }
}

/// Marks a part run while thinking, and keeps its signature, as the dialect does.
pub(super) fn mark(fields: &mut Map<String, Value>, thought: bool, signature: Option<String>) {
    if thought {
        fields.insert("thought".into(), true.into());
    }
    if let Some(signature) = signature {
        fields.insert("signature".into(), signature.into());
    }
}

/// The part's `id`, when it is a non-empty string (any other stays in the part).
pub(super) fn take_id(fields: &mut Map<String, Value>) -> Option<String> {
    match fields.remove("id") {
        Some(Value::String(id)) if !id.is_empty() => Some(id),
        Some(Value::String(_)) | None => None,
        Some(other) => {
            fields.insert("id".into(), other);
            None
        }
    }
}

/// A built-in tool call's `args` when they are an object (anything else stays in the part).
fn object_args(fields: &mut Map<String, Value>) -> Map<String, Value> {
    match fields.get("args") {
        Some(Value::Object(_)) => match fields.remove("args") {
            Some(Value::Object(args)) => args,
            _ => Map::new(),
        },
        _ => Map::new(),
    }
}
