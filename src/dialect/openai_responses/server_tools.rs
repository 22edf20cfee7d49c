//! Responses' built-in tool items in LangChain's standard shapes, by the rules of LangChain's
//! OpenAI block translator: each `web_search_call`, `file_search_call`, `code_interpreter_call`,
//! `image_generation_call`, `mcp_call`, `mcp_list_tools` and server-run `tool_search_call` item
//! is a [`ServerToolCall`] (opened
//! at `output_item.added`, its code or MCP arguments streamed by their own delta events) followed
//! by its [`ServerToolResult`] at `output_item.done` — an image generation's result is an image
//! block, a tool search's is the `tool_search_output` item that follows it (the tools it found,
//! under `output.tools`; the output item's own id is the result's `id`) — and an
//! `mcp_approval_request` is a [`ToolApprovalRequest`]. A tool search the app runs
//! (`execution: "client"`) is an action for the app, kept whole. Their progress events
//! (`.in_progress`, `.searching`, `.interpreting`, `.generating`, `.completed`, `.failed`) are
//! live progress of the call, and an image generation's `partial_image` a live partial image.

use serde_json::{Map, Value};

use super::payload::Event;
use super::{key, OpenAiResponsesDecoder, CHOICE};
use crate::delta::{BlockKey, Delta, DeltaSink};
use crate::message::{
    ContentBlock, MediaBlock, ServerToolCall, ServerToolResult, ServerToolStatus,
    ToolApprovalRequest, ToolStatus,
};

/// The item types that are server-side tool calls, with the name LangChain gives each.
const SERVER_ITEMS: &[(&str, &str)] = &[
    ("web_search_call", "web_search"),
    ("file_search_call", "file_search"),
    ("code_interpreter_call", "code_interpreter"),
    ("image_generation_call", "image_generation"),
    ("mcp_call", "remote_mcp"),
    ("mcp_list_tools", "mcp_list_tools"),
    ("tool_search_call", "tool_search"),
];

/// Whether [`live`] reads this event: a partial image, or a progress report of a server-tool
/// item.
pub(super) fn is_live(kind: &str) -> bool {
    kind == "response.image_generation_call.partial_image" || progress(kind).is_some()
}

/// A live event of a server-tool item: a partial image, or a progress report; other events
/// carry nothing.
pub(super) fn live(
    kind: &str,
    event: &Event<'_>,
    key: BlockKey,
    sink: &mut impl DeltaSink,
) -> Result<(), crate::error::Error> {
    if kind == "response.image_generation_call.partial_image" {
        return match event.partial_image_b64.as_str() {
            Some(data) => sink.apply(Delta::ServerToolPartialImage {
                choice: CHOICE,
                key,
                index: event
                    .partial_image_index
                    .0
                    .map_or(0, |index| u32::try_from(index).unwrap_or(u32::MAX)),
                format: event.output_format.as_str(),
                data,
            }),
            None => Ok(()),
        };
    }
    match progress(kind) {
        Some(status) => sink.apply(Delta::ServerToolProgress {
            choice: CHOICE,
            key,
            status,
        }),
        None => Ok(()),
    }
}

/// The status a progress event of a server-tool item reports
/// (`response.web_search_call.searching`, `response.mcp_call.failed`…); `None` for any other
/// event.
fn progress(kind: &str) -> Option<ServerToolStatus> {
    let (item, word) = kind.strip_prefix("response.")?.rsplit_once('.')?;
    tool_name(item)?;
    ServerToolStatus::from_provider(word)
}

/// The name of the server tool an item type calls; `None` for other items.
pub(super) fn tool_name(kind: &str) -> Option<&'static str> {
    SERVER_ITEMS
        .iter()
        .find(|(item, _)| *item == kind)
        .map(|(_, name)| *name)
}

/// The name of the server tool an item calls, given who runs it (`execution`, of a tool
/// search): `None` for other items, and for a tool search the app runs.
pub(super) fn server_tool(kind: &str, execution: Option<&str>) -> Option<&'static str> {
    match (kind, execution) {
        ("tool_search_call", Some("client")) => None,
        _ => tool_name(kind),
    }
}

impl OpenAiResponsesDecoder {
    /// `output_item.added` of a server-tool item: its call opens.
    pub(super) fn server_item_added(
        &mut self,
        output_index: u32,
        name: &str,
        id: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), crate::error::Error> {
        self.server_items.insert(output_index);
        sink.apply(Delta::ServerToolStart {
            choice: CHOICE,
            key: key(output_index, 0),
            call: ServerToolCall {
                id: id.to_owned(),
                name: name.to_owned(),
                ..ServerToolCall::default()
            },
        })
    }

    /// `output_item.done` of a server-tool item (opened here if its `added` never came): the
    /// call finishes with what the item says, and its result follows.
    pub(super) fn server_item_done(
        &mut self,
        output_index: u32,
        kind: &str,
        name: &str,
        item: Map<String, Value>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), crate::error::Error> {
        let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
        if !self.server_items.remove(&output_index) {
            self.server_item_added(output_index, name, id, sink)?;
            self.server_items.remove(&output_index);
        }
        let id = id.to_owned();
        let Finished {
            args,
            extras,
            result,
        } = finished(kind, item);
        sink.apply(Delta::ServerToolEnd {
            choice: CHOICE,
            key: key(output_index, 0),
            args: Some(args),
            extras,
        })?;
        match result {
            Some(block) => sink.apply(Delta::Block {
                choice: CHOICE,
                block,
            }),
            // A tool search's result is the output item that follows.
            None => {
                self.tool_search = Some(id);
                Ok(())
            }
        }
    }

    /// A server-run `tool_search_output` item: the result of the tool search before it.
    pub(super) fn tool_search_output(
        &mut self,
        mut item: Map<String, Value>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), crate::error::Error> {
        item.remove("type");
        let id = match item.remove("id") {
            Some(Value::String(id)) => Some(id),
            _ => None,
        };
        let tools = item.remove("tools").unwrap_or(Value::Array(Vec::new()));
        let status = item.remove("status");
        let (status, extras) = result_status(status, None, item);
        sink.apply(Delta::Block {
            choice: CHOICE,
            block: ContentBlock::ServerToolResult(ServerToolResult {
                id,
                tool_call_id: self.tool_search.take().unwrap_or_default(),
                status,
                output: Some(serde_json::json!({ "tools": tools })),
                extras,
            }),
        })
    }
}

/// What a finished item says: the call's arguments and other fields, and the result (`None`
/// when another item brings it).
struct Finished {
    args: Map<String, Value>,
    extras: Map<String, Value>,
    result: Option<ContentBlock>,
}

/// Reads a finished server-tool item (`kind` being one [`tool_name`] knows).
fn finished(kind: &str, mut item: Map<String, Value>) -> Finished {
    item.remove("type");
    let id = match item.remove("id") {
        Some(Value::String(id)) => id,
        _ => String::new(),
    };
    let status = item.remove("status");
    let mut args = Map::new();
    let mut output = None;
    let mut error = None;
    match kind {
        "web_search_call" => {
            if let Some(Value::Object(mut action)) = item.remove("action") {
                if let Some(sources) = action.remove("sources") {
                    output = Some(serde_json::json!({ "sources": sources }));
                }
                args = action;
            }
        }
        "file_search_call" => {
            let queries = item.remove("queries").unwrap_or(Value::Array(Vec::new()));
            args.insert("queries".into(), queries);
            output = item.remove("results").filter(|results| !results.is_null());
        }
        "code_interpreter_call" => {
            if let Some(code) = item.remove("code").filter(|code| !code.is_null()) {
                args.insert("code".into(), code);
            }
            output = item.remove("outputs").filter(|outputs| !outputs.is_null());
        }
        "image_generation_call" => {
            return image(id, status, item);
        }
        "tool_search_call" => {
            match item.remove("arguments") {
                Some(Value::Object(arguments)) => args = arguments,
                Some(other) => {
                    item.insert("arguments".into(), other);
                }
                None => {}
            }
            if let Some(status) = status {
                item.insert("status".into(), status);
            }
            return Finished {
                args,
                extras: item,
                result: None,
            };
        }
        _ => {
            // `mcp_call` and `mcp_list_tools`.
            if let Some(Value::String(name)) = item.remove("name") {
                item.insert("tool_name".into(), name.into());
            }
            match item.remove("arguments") {
                Some(Value::String(text)) => match serde_json::from_str(&text) {
                    Ok(Value::Object(parsed)) => args = parsed,
                    _ => {
                        item.insert("arguments".into(), text.into());
                    }
                },
                Some(other) => {
                    item.insert("arguments".into(), other);
                }
                None => {}
            }
            output = item
                .remove(if kind == "mcp_call" {
                    "output"
                } else {
                    "tools"
                })
                .filter(|output| !output.is_null());
            error = item.remove("error").filter(|error| !error.is_null());
        }
    }
    let (status, result_extras) = result_status(status, error, Map::new());
    Finished {
        args,
        extras: item,
        result: Some(ContentBlock::ServerToolResult(ServerToolResult {
            id: None,
            tool_call_id: id,
            status,
            output,
            extras: result_extras,
        })),
    }
}

/// A result's status from the item's `status` and `error`, which join `extras` when the
/// status says more than success or error.
fn result_status(
    status: Option<Value>,
    error: Option<Value>,
    mut extras: Map<String, Value>,
) -> (ToolStatus, Map<String, Value>) {
    let status = match status.as_ref().and_then(Value::as_str) {
        _ if error.is_some() => ToolStatus::Error,
        Some("failed" | "incomplete") => ToolStatus::Error,
        Some("completed") | None => ToolStatus::Success,
        Some(other) => {
            extras.insert("status".into(), other.into());
            ToolStatus::Success
        }
    };
    if let Some(error) = error {
        extras.insert("error".into(), error);
    }
    (status, extras)
}

/// An image generation's result: the image itself, as LangChain shows it.
fn image(id: String, status: Option<Value>, mut item: Map<String, Value>) -> Finished {
    let data = match item.remove("result") {
        Some(Value::String(data)) => data,
        _ => String::new(),
    };
    let format = item
        .get("output_format")
        .and_then(Value::as_str)
        .unwrap_or("png")
        .to_owned();
    let mut media = MediaBlock::base64(data, format!("image/{format}"));
    media.id = Some(id);
    if let Some(status) = status {
        item.insert("status".into(), status);
    }
    media.extras = item;
    Finished {
        args: Map::new(),
        extras: Map::new(),
        result: Some(ContentBlock::Image(media)),
    }
}

/// An `mcp_approval_request` item.
pub(super) fn approval(mut item: Map<String, Value>) -> ContentBlock {
    item.remove("type");
    let mut take = |key: &str| match item.remove(key) {
        Some(Value::String(text)) => Some(text),
        _ => None,
    };
    let id = take("id").unwrap_or_default();
    let name = take("name").unwrap_or_default();
    let server_label = take("server_label");
    let arguments = take("arguments");
    let args = match arguments.as_deref().map(serde_json::from_str) {
        Some(Ok(Value::Object(args))) => args,
        Some(_) => {
            item.insert("arguments".into(), arguments.unwrap_or_default().into());
            Map::new()
        }
        None => Map::new(),
    };
    ContentBlock::ToolApprovalRequest(ToolApprovalRequest {
        id,
        server_label,
        name,
        args,
        extras: item,
    })
}
