//! Server-side tool activity and citations in the Anthropic stream: `server_tool_use` /
//! `mcp_tool_use` blocks (their input streamed or written whole), result blocks, and
//! `citations_delta`s on text blocks.

use serde_json::{json, Value};

use super::{block_start, delta, stop, EventRules, OpenBlock, OpenKind};
use crate::assemble::PartialMessage;
use crate::encode::cursor::Want;
use crate::encode::held::{CallKey, Holding};
use crate::encode::server_tools::{
    anthropic_call, anthropic_citation, anthropic_expressible, anthropic_result, args_text,
    needs_its_end, streams_raw_code,
};
use crate::encode::{server_call_at, sse::push_value};
use crate::message::{Annotation, ContentBlock, ServerToolCall};

impl EventRules {
    fn native(&self) -> bool {
        self.source == Some("anthropic")
    }

    /// A server-side call began: its block opens now, unless its start lacks what the block
    /// needs (it is then written whole at its end).
    pub(super) fn server_started(
        &mut self,
        block: u32,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let deferred = !anthropic_expressible(name)
            || server_call_at(message, block).is_some_and(|(call, _, _)| needs_its_end(call));
        if !deferred {
            self.call_started(CallKey::Server(block), id, name, message, out);
        }
    }

    /// More argument text: written when the block is open and the source streams JSON.
    pub(super) fn server_arguments(&mut self, block: u32, fragment: &str, out: &mut String) {
        if let Some(open) = self
            .open
            .as_mut()
            .filter(|open| open.kind == OpenKind::Call(CallKey::Server(block)) && open.live_args)
        {
            open.streamed += fragment.len();
            delta(
                out,
                open.index,
                "input_json_delta",
                "partial_json",
                fragment,
            );
        }
    }

    /// Opens the block of the server-side call at `block`; its deltas stream if `live` and the
    /// source streams JSON.
    pub(super) fn start_server(
        &mut self,
        block: u32,
        live: bool,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        self.start(out);
        self.close_open(message, out);
        let mirrors = self.mirror(Want::Block(block as usize), message, out);
        let call = server_call_at(message, block).map(|(call, _, _)| call);
        let empty = ServerToolCall::default();
        let call = call.unwrap_or(&empty);
        let index = self.take_index();
        block_start(out, index, &anthropic_call(call, json!({}), self.native()));
        let mut open = OpenBlock::new(OpenKind::Call(CallKey::Server(block)), index, mirrors);
        open.live_args = live && !streams_raw_code(self.source, &call.name);
        self.open = Some(open);
    }

    /// Opens a waiting server-side call's block with its arguments so far: the streamed text
    /// when it is JSON, the parsed arguments once it has finished.
    pub(super) fn write_server_whole(
        &mut self,
        block: u32,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        self.start_server(block, true, message, out);
        let Some((call, arguments, finished)) = server_call_at(message, block) else {
            return;
        };
        if finished {
            let args = args_text(call);
            self.write_arguments(&args, out);
        } else if self.open.as_ref().is_some_and(|open| open.live_args) {
            self.write_arguments(arguments, out);
        }
    }

    /// The open server-side call finished: its input goes out whole if none streamed.
    pub(super) fn seal_server(&mut self, call: &ServerToolCall, out: &mut String) {
        if self.open.as_ref().is_some_and(|open| open.streamed == 0) {
            let args = args_text(call);
            self.write_arguments(&args, out);
        }
    }

    /// A block that came whole at `block`: a server tool's result as the block its tool
    /// answers with (none for tools Anthropic has no result block for).
    pub(super) fn write_result(
        &mut self,
        block: u32,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        self.close_open(message, out);
        if self
            .mirror(Want::Block(block as usize), message, out)
            .is_none()
        {
            return;
        }
        let result = message.and_then(|message| match message.blocks().get(block as usize) {
            Some(crate::assemble::PartialBlock::Content(ContentBlock::ServerToolResult(
                result,
            ))) => Some(result),
            _ => None,
        });
        let Some(result) = result else {
            return;
        };
        let name = self
            .server_names
            .get(&result.tool_call_id)
            .map(String::as_str);
        if let Some(value) = anthropic_result(result, name, self.native()) {
            self.start(out);
            let index = self.take_index();
            block_start(out, index, &value);
            stop(out, index);
        }
    }
}

/// Writes the citations of the text block `open` mirrors that have not gone out yet.
pub(super) fn cite(open: &mut OpenBlock, message: Option<&PartialMessage>, out: &mut String) {
    let Some(block) = message
        .zip(open.mirrors)
        .and_then(|(message, at)| message.blocks().get(at))
    else {
        return;
    };
    let crate::assemble::PartialBlock::Content(ContentBlock::Text { annotations, .. }) = block
    else {
        return;
    };
    for annotation in annotations.iter().skip(open.cited) {
        if let Annotation::Citation(citation) = annotation {
            citation_delta(out, open.index, anthropic_citation(citation));
        }
    }
    open.cited = annotations.len();
}

fn citation_delta(out: &mut String, index: u32, citation: Value) {
    push_value(
        out,
        Some("content_block_delta"),
        &json!({
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "citations_delta", "citation": citation},
        }),
    );
}
