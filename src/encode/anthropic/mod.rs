//! Anthropic messages: `message_start` (held back until the first content, so that usage the
//! source sent up front goes in it), one content block per text, thinking or tool-call run
//! (`content_block_start`, deltas, `content_block_stop`; a thinking block's signature as a
//! `signature_delta` just before it stops), `message_delta` with the stop reason and the usage
//! totals (and the code execution `container` and the `context_management` edits an Anthropic
//! source named), `message_stop`; and
//! the non-streamed `message`. Only choice 0 is encoded.
//!
//! One block is open at a time, as Anthropic documents the stream; what arrives while a call's
//! block is open and streaming is held and written in its turn (the rule is in
//! `encode::held`). Holding the text, rather than stopping the call's block where the text
//! comes, is what keeps the re-assembled message equal to the source's: the call keeps every
//! fragment (a stopped block takes none), the text is all there, and it lands after the call,
//! where a source that keys its blocks (Anthropic, Responses) has it too. The cost is latency
//! for that text only: a source that sends text between a call's fragments (few do) has it
//! written when the call ends, and the held copy lives until then.
//!
//! Server-side tools are written as `server_tool_use` blocks (`mcp_tool_use` for a remote MCP
//! tool), their input streamed as `input_json_delta` when the source streams JSON (Responses
//! streams a code interpreter's code as text: its input is written whole when the call ends),
//! and their results as the block the call's tool answers with (`web_search_tool_result`,
//! `code_execution_tool_result`, `mcp_tool_result`…; a tool with no such block, like file
//! search or image generation, has its result left out). From another provider only the tools
//! Anthropic names go out (its SDK refuses any other name in a `server_tool_use`), a code
//! run's output as a `code_execution_result` and an MCP result as its text; a web search or
//! fetch result, which needs Anthropic's own encrypted content, is left out. Compaction blocks
//! go out as Anthropic streams them ([`compaction`]). Citations on text go out as
//! `citations_delta`s, as each is known; approval requests have no place and are left out.

mod callbacks;
mod calls;
mod compaction;
mod response;
mod server;

use std::collections::HashMap;

use serde_json::{json, Value};

use super::cursor::{hidden_reasoning, reasoning_seal, BlockCursor, Want};
use super::held::{CallKey, HeldQueue, Holding};
use super::server_tools::anthropic_upload;
use super::sse::{push_data, push_json_str, push_value};
use super::{cache_read_tokens, finish, reasoning_tokens, Identity};
use crate::assemble::{PartialBlock, PartialMessage};
use crate::message::UsageMetadata;

pub(super) use response::response;

const GENERATED_ID: &str = "msg_df";

/// The block being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::encode) enum OpenKind {
    Text,
    Thinking,
    /// A client or server-side tool call.
    Call(CallKey),
}

#[derive(Debug)]
struct OpenBlock {
    kind: OpenKind,
    index: u32,
    /// The snapshot block it mirrors, for the signature and the citations.
    mirrors: Option<usize>,
    /// How many of the mirrored text block's annotations went out as `citations_delta`s.
    cited: usize,
    /// Whether a server-side call's argument deltas are written as they come (the source
    /// streams JSON), and how many bytes of them went out.
    live_args: bool,
    streamed: usize,
    /// Where a call's argument text stops being a prefix of a JSON object: nothing from there
    /// on goes out (see `calls`).
    cut_at: Option<usize>,
    /// Whether the argument text opens an object, once a byte other than whitespace came.
    object: Option<bool>,
}

/// The event stream's state.
#[derive(Debug, Default)]
pub(super) struct EventRules {
    identity: Option<Identity>,
    started: bool,
    next_index: u32,
    open: Option<OpenBlock>,
    /// What waits for the open call to finish, in arrival order; empty unless a call is open.
    queue: HeldQueue<(OpenKind, Want)>,
    /// The name of every server-side call seen, by id, for the block its result needs.
    server_names: HashMap<String, String>,
    /// The provider of the source (`anthropic` when its extras are native here).
    source: Option<&'static str>,
    cursor: BlockCursor,
    usage: Option<UsageMetadata>,
    stop_reason: Option<String>,
    /// The code execution container the answer ran in, for `message_delta`.
    container: Option<Value>,
    /// The context edits the source applied, for `message_delta`.
    context_management: Option<Value>,
    saw_tool_calls: bool,
}

impl EventRules {
    /// Closes what is open, writes the blocks the snapshot holds past the cursor (when there
    /// is one), then `message_delta` and `message_stop`.
    fn close(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.start(out);
        self.close_all(message, out);
        if let Some(message) = message {
            let rest = self.cursor.rest(message);
            self.write_hidden(message, rest, out);
        }
        let reason = self.stop_reason.as_deref().unwrap_or_default();
        let refused = message.is_some_and(|message| !message.refusal().is_empty());
        let stop_reason = finish::anthropic(reason, self.saw_tool_calls, refused);
        let usage = self
            .usage
            .as_ref()
            .map_or_else(|| usage_json(&UsageMetadata::default()), usage_json);
        let mut delta = json!({"stop_reason": stop_reason, "stop_sequence": null});
        if let Some(container) = self.container.take() {
            delta["container"] = container;
        }
        let mut event = json!({"type": "message_delta", "delta": delta, "usage": usage});
        if let Some(edits) = self.context_management.take() {
            event["context_management"] = edits;
        }
        push_value(out, Some("message_delta"), &event);
        push_data(out, Some("message_stop"), "{\"type\":\"message_stop\"}");
    }

    fn start(&mut self, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        let identity = self.identity.clone().unwrap_or_default();
        let mut usage = self
            .usage
            .as_ref()
            .map_or_else(|| usage_json(&UsageMetadata::default()), usage_json);
        if self.stop_reason.is_none() {
            // The output so far; `message_delta` says the total.
            usage["output_tokens"] =
                json!(self.usage.as_ref().map_or(0, |usage| usage.output_tokens));
        }
        push_value(
            out,
            Some("message_start"),
            &json!({
                "type": "message_start",
                "message": {
                    "id": identity.id_or(GENERATED_ID),
                    "type": "message",
                    "role": "assistant",
                    "model": identity.model(),
                    "content": [],
                    "stop_reason": null,
                    "stop_sequence": null,
                    "usage": usage,
                },
            }),
        );
    }

    /// The open text or thinking block of `kind`, opened (after closing the open block, which
    /// is not a streaming call: text is held while one is open) if needed.
    fn open_text(
        &mut self,
        kind: OpenKind,
        want: Want,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) -> u32 {
        if let Some(open) = &self.open {
            // A new text block of the source is a new block here too, for its citations.
            let moved_on =
                kind == OpenKind::Text && self.cursor.moved_on(message, open.mirrors, want);
            if open.kind == kind && !moved_on {
                return open.index;
            }
        }
        self.start(out);
        self.close_open(message, out);
        let mirrors = self.mirror(want, message, out);
        let index = self.take_index();
        let block = match kind {
            OpenKind::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
            OpenKind::Text | OpenKind::Call(_) => json!({"type": "text", "text": ""}),
        };
        block_start(out, index, &block);
        self.open = Some(OpenBlock::new(kind, index, mirrors));
        index
    }

    /// Opens the block of the call at `position` (closing the open block, which is not a call).
    fn start_tool(
        &mut self,
        position: u32,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        self.start(out);
        self.close_open(message, out);
        self.mirror(Want::ToolCall(position), message, out);
        let call = message.and_then(|message| {
            message
                .tool_calls()
                .find(|call| call.position() == position)
        });
        let id = if id.is_empty() {
            call.map_or("", |call| call.id())
        } else {
            id
        };
        let name = if name.is_empty() {
            call.map_or("", |call| call.name())
        } else {
            name
        };
        let index = self.take_index();
        block_start(
            out,
            index,
            &json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
        );
        self.open = Some(OpenBlock::new(
            OpenKind::Call(CallKey::Client(position)),
            index,
            None,
        ));
        self.saw_tool_calls = true;
    }

    /// Moves the cursor to the snapshot block `want` names, writing the hidden reasoning blocks
    /// on the way; the block's position in the snapshot.
    fn mirror(
        &mut self,
        want: Want,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) -> Option<usize> {
        let message = message?;
        let (passed, found) = self.cursor.advance_to(message, want)?;
        self.write_hidden(message, passed, out);
        Some(found)
    }

    /// Reasoning blocks without text: `redacted_thinking` for opaque data, an empty `thinking`
    /// block for a signature alone.
    fn write_hidden(
        &mut self,
        message: &PartialMessage,
        blocks: std::ops::Range<usize>,
        out: &mut String,
    ) {
        for at in blocks {
            if let PartialBlock::Content(block) = &message.blocks()[at] {
                if let Some(value) = compaction::compaction(block) {
                    self.write_compaction(value, out);
                    continue;
                }
                if let Some(upload) = anthropic_upload(block) {
                    self.start(out);
                    let index = self.take_index();
                    block_start(out, index, &upload);
                    stop(out, index);
                    continue;
                }
            }
            let Some((signature, data)) = hidden_reasoning(&message.blocks()[at]) else {
                continue;
            };
            self.start(out);
            let index = self.take_index();
            match data {
                Some(data) => block_start(
                    out,
                    index,
                    &json!({"type": "redacted_thinking", "data": data}),
                ),
                None => {
                    block_start(
                        out,
                        index,
                        &json!({"type": "thinking", "thinking": "", "signature": ""}),
                    );
                    delta(
                        out,
                        index,
                        "signature_delta",
                        "signature",
                        signature.unwrap_or_default(),
                    );
                }
            }
            stop(out, index);
        }
    }

    /// Stops the open block; a thinking block gets its signature first.
    fn close_open(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        let Some(mut open) = self.open.take() else {
            return;
        };
        if open.kind == OpenKind::Thinking {
            let seal = message
                .zip(open.mirrors)
                .map(|(message, at)| reasoning_seal(message, at));
            if let Some((Some(signature), _)) = seal {
                delta(out, open.index, "signature_delta", "signature", signature);
            }
            stop(out, open.index);
            // Opaque data beside the text (Responses' encrypted content) goes in a block of
            // its own.
            if let Some((_, Some(data))) = seal {
                let index = self.take_index();
                block_start(
                    out,
                    index,
                    &json!({"type": "redacted_thinking", "data": data}),
                );
                stop(out, index);
            }
            return;
        }
        if open.kind == OpenKind::Text {
            server::cite(&mut open, message, out);
        }
        stop(out, open.index);
    }

    fn take_index(&mut self) -> u32 {
        self.next_index += 1;
        self.next_index - 1
    }
}

impl OpenBlock {
    fn new(kind: OpenKind, index: u32, mirrors: Option<usize>) -> Self {
        OpenBlock {
            kind,
            index,
            mirrors,
            cited: 0,
            live_args: false,
            streamed: 0,
            cut_at: None,
            object: None,
        }
    }
}

fn block_start(out: &mut String, index: u32, block: &Value) {
    push_value(
        out,
        Some("content_block_start"),
        &json!({"type": "content_block_start", "index": index, "content_block": block}),
    );
}

/// A `content_block_delta` with one string field, written without building a value.
fn delta(out: &mut String, index: u32, kind: &str, field: &str, text: &str) {
    out.push_str("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":");
    out.push_str(&index.to_string());
    out.push_str(",\"delta\":{\"type\":\"");
    out.push_str(kind);
    out.push_str("\",\"");
    out.push_str(field);
    out.push_str("\":");
    push_json_str(out, text);
    out.push_str("}}\n\n");
}

fn stop(out: &mut String, index: u32) {
    let json = format!("{{\"type\":\"content_block_stop\",\"index\":{index}}}");
    push_data(out, Some("content_block_stop"), &json);
}

/// Anthropic's usage: `input_tokens` without the cached tokens, which have fields of their own.
fn usage_json(usage: &UsageMetadata) -> Value {
    let details = usage.input_token_details.unwrap_or_default();
    let cached = details.cache_read.unwrap_or(0) + details.cache_creation.unwrap_or(0);
    let mut json = json!({
        "input_tokens": usage.input_tokens.saturating_sub(cached),
        "output_tokens": usage.output_tokens,
    });
    if let Some(read) = cache_read_tokens(usage) {
        json["cache_read_input_tokens"] = json!(read);
    }
    if let Some(creation) = details.cache_creation {
        json["cache_creation_input_tokens"] = json!(creation);
    }
    if let Some(reasoning) = reasoning_tokens(usage) {
        json["output_tokens_details"] = json!({ "thinking_tokens": reasoning });
    }
    json
}
