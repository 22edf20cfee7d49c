//! Server-side tool items in the live Responses stream (`web_search_call`, `code_interpreter_call`
//! with its code deltas, `mcp_call` with its argument deltas, …, `mcp_approval_request`), and
//! `response.output_text.annotation.added` for the citations of the text being written.
//!
//! A server item's `.in_progress` and `.completed` (or `.failed`) are written as it is added
//! and done; the progress in between (`.searching`, `.interpreting`, `.generating`) and an
//! image generation's `.partial_image` events are written as they come while the call's item
//! is the open one. A call whose item is not open yet (it waits behind another item, or is
//! written whole at its end) gets its latest progress written once its item is added, and no
//! partial images (its final image is its result): an item's events come between its `added`
//! and its `done`, so progress of calls the source ran side by side comes call after call.

use serde_json::json;

use super::super::items::{Item, ServerItem};
use super::EventRules;
use crate::assemble::{PartialBlock, PartialMessage};
use crate::encode::cursor::Want;
use crate::encode::held::{CallKey, Holding};
use crate::encode::server_call_at;
use crate::encode::server_tools::{
    args_text, needs_its_end, responses_annotation, responses_approval, responses_item,
    responses_item_type, responses_progress, streams_raw_code,
};
use crate::encode::skeleton::ImagePart;
use crate::message::{ContentBlock, ServerToolCall, ServerToolStatus};

impl EventRules {
    fn native(&self) -> bool {
        self.source == Some("openai")
    }

    /// A server-side call began: its item is added now, unless its start lacks what the item
    /// needs (it is then written whole at its end).
    pub(super) fn server_started(
        &mut self,
        block: u32,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let deferred =
            server_call_at(message, block).is_some_and(|(call, _, _)| needs_its_end(call));
        if !deferred {
            self.call_started(CallKey::Server(block), id, name, message, out);
        }
    }

    /// Whether the open server item streams this call's deltas: a code interpreter's code when
    /// the source streams the code itself, an MCP call's arguments when it streams JSON.
    fn streams_live(&self, call: &ServerToolCall, live: bool) -> bool {
        let raw = streams_raw_code(self.source, &call.name);
        live && match call.name.as_str() {
            "code_interpreter" => raw,
            "remote_mcp" => !raw,
            _ => false,
        }
    }

    /// More argument text (code, MCP arguments) for the open server item.
    pub(super) fn server_arguments(&mut self, block: u32, fragment: &str, out: &mut String) {
        if self.open_call != Some(CallKey::Server(block)) {
            return;
        }
        let at = self.items;
        let Some(Item::Server(item)) = &mut self.open else {
            return;
        };
        let kind = match item.kind {
            "code_interpreter_call" if self.live_args => {
                "response.code_interpreter_call_code.delta"
            }
            "mcp_call" if self.live_args => "response.mcp_call_arguments.delta",
            _ => return,
        };
        item.streamed = true;
        let id = item.call.id.clone();
        self.push(
            out,
            kind,
            json!({"item_id": id, "output_index": at, "delta": fragment}),
        );
    }

    /// Adds the item of the server-side call at `block` (none for a tool Responses has no item
    /// for); its deltas stream if `live`.
    pub(super) fn start_server(
        &mut self,
        block: u32,
        live: bool,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let waiting = self.waiting_progress.remove(&block);
        let Some((call, _, _)) = server_call_at(message, block) else {
            return;
        };
        let Some(kind) = responses_item_type(&call.name) else {
            return;
        };
        self.close_open_item(message, out);
        self.mirror(Want::Block(block as usize), message, out);
        let call = call.clone();
        let at = self.items;
        let native = self.native();
        let added = responses_item(kind, &call.id, &call, None, false, native);
        self.push(
            out,
            "response.output_item.added",
            json!({"output_index": at, "item": added}),
        );
        if let Some(progress) = responses_progress(kind) {
            self.push(
                out,
                &format!("{progress}.in_progress"),
                json!({"item_id": call.id, "output_index": at}),
            );
        }
        self.live_args = self.streams_live(&call, live);
        self.open = Some(Item::Server(Box::new(ServerItem {
            kind,
            call,
            result: None,
            native,
            streamed: false,
        })));
        self.open_call = Some(CallKey::Server(block));
        if let Some(status) = waiting {
            self.write_progress(status, out);
        }
    }

    /// Adds a waiting server-side call's item; a finished one is sealed too.
    pub(super) fn write_server_whole(
        &mut self,
        block: u32,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        self.start_server(block, false, message, out);
        if let Some((call, _, true)) = server_call_at(message, block) {
            let call = call.clone();
            self.seal_server(&call, message);
        }
    }

    /// The open server item's call finished: it takes the finished call, and its result — an
    /// image generation's image is in the snapshot already; other results come as blocks, so
    /// the item stays open, awaiting it.
    pub(super) fn seal_server(&mut self, call: &ServerToolCall, message: Option<&PartialMessage>) {
        let Some(Item::Server(item)) = &mut self.open else {
            return;
        };
        if item.call.id != call.id {
            return;
        }
        item.call = call.clone();
        if item.kind == "image_generation_call" {
            item.result = message.and_then(|message| {
                message.blocks().iter().rev().find_map(|block| match block {
                    PartialBlock::Content(ContentBlock::Image(media))
                        if media.id.as_deref() == Some(call.id.as_str()) =>
                    {
                        Some(ContentBlock::Image(media.clone()))
                    }
                    _ => None,
                })
            });
            return;
        }
        self.awaiting = Some(call.id.clone());
    }

    /// The result at `block`, if it is the one the open item awaits.
    pub(super) fn awaited_result<'m>(
        &self,
        block: u32,
        message: Option<&'m PartialMessage>,
    ) -> Option<&'m ContentBlock> {
        let awaiting = self.awaiting.as_deref()?;
        match message?.blocks().get(block as usize)? {
            PartialBlock::Content(content @ ContentBlock::ServerToolResult(result))
                if result.tool_call_id == awaiting =>
            {
                Some(content)
            }
            _ => None,
        }
    }

    /// A block that came whole: a result completes the open item of its call; an approval
    /// request is an item of its own.
    pub(super) fn write_server_block(
        &mut self,
        block: u32,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let Some(content) =
            message.and_then(|message| match message.blocks().get(block as usize) {
                Some(PartialBlock::Content(content)) => Some(content),
                _ => None,
            })
        else {
            return;
        };
        match content {
            ContentBlock::ServerToolResult(result) => {
                if let Some(Item::Server(item)) = &mut self.open {
                    if item.call.id == result.tool_call_id && item.result.is_none() {
                        item.result = Some(content.clone());
                    }
                }
                self.close_open_item(message, out);
                self.mirror(Want::Block(block as usize), message, out);
            }
            ContentBlock::ToolApprovalRequest(request) => {
                self.close_open_item(message, out);
                self.mirror(Want::Block(block as usize), message, out);
                let item = responses_approval(request);
                let at = self.items;
                self.push(
                    out,
                    "response.output_item.added",
                    json!({"output_index": at, "item": item}),
                );
                self.push(
                    out,
                    "response.output_item.done",
                    json!({"output_index": at, "item": item}),
                );
                self.items += 1;
                self.keep(&item, None);
            }
            _ => {}
        }
    }

    /// The events a server item writes before its `output_item.done`: its code or arguments
    /// whole if they did not stream, their `.done`, and the item's `completed` (or `failed`).
    pub(super) fn server_done(&mut self, at: usize, item: &ServerItem, out: &mut String) {
        let id = item.call.id.as_str();
        match item.kind {
            "code_interpreter_call" => {
                let code = item.call.args.get("code").and_then(|code| code.as_str());
                let code = code.unwrap_or_default();
                if !item.streamed && !code.is_empty() {
                    self.push(
                        out,
                        "response.code_interpreter_call_code.delta",
                        json!({"item_id": id, "output_index": at, "delta": code}),
                    );
                }
                self.push(
                    out,
                    "response.code_interpreter_call_code.done",
                    json!({"item_id": id, "output_index": at, "code": code}),
                );
            }
            "mcp_call" => {
                let arguments = args_text(&item.call);
                if !item.streamed && !arguments.is_empty() {
                    self.push(
                        out,
                        "response.mcp_call_arguments.delta",
                        json!({"item_id": id, "output_index": at, "delta": arguments}),
                    );
                }
                self.push(
                    out,
                    "response.mcp_call_arguments.done",
                    json!({"item_id": id, "output_index": at, "arguments": arguments}),
                );
            }
            _ => {}
        }
        let failed = matches!(&item.result, Some(ContentBlock::ServerToolResult(result)) if result.is_error());
        if let Some(progress) = responses_progress(item.kind) {
            let end = if failed && item.kind == "mcp_call" {
                "failed"
            } else {
                "completed"
            };
            self.push(
                out,
                &format!("{progress}.{end}"),
                json!({"item_id": id, "output_index": at}),
            );
        }
    }

    /// A progress report of the server call at `block`: written now as its kind's event
    /// (`response.web_search_call.searching`…) if its item is the open one, else kept until its
    /// item is added. A status the item's `added` and `done` already write is left out.
    pub(super) fn call_progress(
        &mut self,
        block: u32,
        id: &str,
        status: ServerToolStatus,
        out: &mut String,
    ) {
        if !matches!(
            status,
            ServerToolStatus::Searching
                | ServerToolStatus::Interpreting
                | ServerToolStatus::Generating
        ) {
            return;
        }
        match &self.open {
            Some(Item::Server(item)) if item.call.id == id => self.write_progress(status, out),
            _ => {
                self.waiting_progress.insert(block, status);
            }
        }
    }

    /// The open server item's progress event for `status`, if its kind has one.
    fn write_progress(&mut self, status: ServerToolStatus, out: &mut String) {
        let at = self.items;
        let Some(Item::Server(item)) = &self.open else {
            return;
        };
        let word = match (item.kind, status) {
            ("web_search_call" | "file_search_call", ServerToolStatus::Searching) => "searching",
            ("code_interpreter_call", ServerToolStatus::Interpreting) => "interpreting",
            ("image_generation_call", ServerToolStatus::Generating) => "generating",
            _ => return,
        };
        let Some(progress) = responses_progress(item.kind) else {
            return;
        };
        let id = item.call.id.clone();
        self.push(
            out,
            &format!("{progress}.{word}"),
            json!({"item_id": id, "output_index": at}),
        );
    }

    /// A partial image of the open image generation item, as
    /// `response.image_generation_call.partial_image`.
    pub(super) fn partial_image(&mut self, image: ImagePart<'_>, out: &mut String) {
        let ImagePart {
            id,
            index,
            mime_type,
            data,
        } = image;
        let at = self.items;
        let Some(Item::Server(item)) = &self.open else {
            return;
        };
        if item.kind != "image_generation_call" || item.call.id != id {
            return;
        }
        let format = mime_type.strip_prefix("image/").unwrap_or("png");
        self.push(
            out,
            "response.image_generation_call.partial_image",
            json!({"item_id": id, "output_index": at, "partial_image_index": index,
                   "partial_image_b64": data, "output_format": format}),
        );
    }

    /// Writes the citations of the open text part's block that have not gone out yet.
    pub(super) fn annotate(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        let at = self.items;
        let Some(Item::Message {
            id,
            refusal: false,
            parts,
            mirrors: Some(mirrors),
            annotations,
            annotated,
            ..
        }) = &mut self.open
        else {
            return;
        };
        let Some(PartialBlock::Content(ContentBlock::Text {
            annotations: source,
            ..
        })) = message.and_then(|message| message.blocks().get(*mirrors))
        else {
            return;
        };
        let mut events = Vec::new();
        for annotation in source.iter().skip(*annotated) {
            if let Some(value) = responses_annotation(annotation) {
                events.push(json!({
                    "item_id": id, "output_index": at, "content_index": parts.len(),
                    "annotation_index": annotations.len(), "annotation": value,
                }));
                annotations.push(value);
            }
        }
        *annotated = source.len();
        for event in events {
            self.push(out, "response.output_text.annotation.added", event);
        }
    }
}
