//! Anthropic messages: `message_start` (held back until the first content, so that usage the
//! source sent up front goes in it), one content block per text, thinking or tool-call run
//! (`content_block_start`, deltas, `content_block_stop`; a thinking block's signature as a
//! `signature_delta` just before it stops), `message_delta` with the stop reason and the usage
//! totals, `message_stop`; and the non-streamed `message`. Only the first choice is encoded.
//!
//! One block is open at a time, as Anthropic documents the stream (a block's start, its deltas,
//! its stop, then the next start); strict clients reject a start inside another block. A new
//! text or thinking block closes the open one. Tool calls: a call that starts while another
//! call's block is open waits — its fragments are not copied, the snapshot holds them — and is
//! written whole (start, its arguments so far as one delta, and its stop if it has finished)
//! when the open call finishes; it then streams on live. A text or thinking block, or the end
//! of the stream, closes the open call and writes every waiting one whole. A fragment for a
//! call already closed that way (a source that sends text between a call's fragments) is not
//! written: the block was stopped; the assembled message still has it.

mod calls;

use std::collections::{HashSet, VecDeque};

use serde_json::{json, Value};

use super::cursor::{hidden_reasoning, reasoning_seal, BlockCursor, Want};
use super::sse::{push_data, push_json_str, push_value};
use super::{cache_read_tokens, finish, reasoning_tokens, Identity};
use crate::assemble::{Assembler, Event, PartialMessage};
use crate::message::{AiMessage, ContentBlock, UsageMetadata};

const GENERATED_ID: &str = "msg_df";

/// The block being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpenKind {
    Text,
    Thinking,
    /// The tool call at this position.
    Tool(u32),
}

/// A tool call that started while another call's block was open.
#[derive(Debug)]
struct WaitingCall {
    position: u32,
    finished: bool,
}

#[derive(Debug)]
struct OpenBlock {
    kind: OpenKind,
    index: u32,
    /// The snapshot block it mirrors, for the signature.
    mirrors: Option<usize>,
}

/// The event stream's state.
#[derive(Debug, Default)]
pub(super) struct EventEncoder {
    identity: Option<Identity>,
    /// The one choice encoded: the first one seen.
    choice: Option<u32>,
    started: bool,
    next_index: u32,
    open: Option<OpenBlock>,
    /// Calls waiting for the open call to finish, in the order they started.
    waiting: VecDeque<WaitingCall>,
    /// Every call position seen, written or waiting.
    seen_calls: HashSet<u32>,
    cursor: BlockCursor,
    usage: Option<UsageMetadata>,
    stop_reason: Option<String>,
    saw_tool_calls: bool,
    ended: bool,
}

impl EventEncoder {
    pub(super) fn encode(&mut self, event: &Event<'_>, snapshot: &Assembler, out: &mut String) {
        if self.ended {
            return;
        }
        if self.identity.is_none() && Identity::needed_for(event) {
            self.identity = Some(Identity::read(snapshot));
        }
        let choice = match event {
            Event::Started { .. } | Event::Usage { .. } | Event::Done => None,
            // Server-side tool activity is not re-encoded (see the module doc).
            crate::assemble::server_tool_event!() => None,
            Event::TextDelta { choice, .. }
            | Event::ReasoningDelta { choice, .. }
            | Event::RefusalDelta { choice, .. }
            | Event::ToolCallStarted { choice, .. }
            | Event::ToolCallArgumentsDelta { choice, .. }
            | Event::ToolCallFinished { choice, .. }
            | Event::ChoiceFinished { choice, .. } => Some(*choice),
        };
        if let Some(choice) = choice {
            if *self.choice.get_or_insert(choice) != choice {
                return;
            }
        }
        let message = self.choice.and_then(|choice| snapshot.message(choice));
        match event {
            Event::Started { .. } => {}
            // Server-side tool activity is not re-encoded (see the module doc).
            crate::assemble::server_tool_event!() => {}
            Event::Usage { usage } => self.usage = Some(usage.as_ref().clone()),
            Event::TextDelta { text, .. } | Event::RefusalDelta { text, .. } => {
                let want = match event {
                    Event::TextDelta { .. } => Want::Text,
                    _ => Want::Refusal,
                };
                let index = self.open_text(OpenKind::Text, want, message, out);
                delta(out, index, "text_delta", "text", text);
            }
            Event::ReasoningDelta { text, .. } => {
                let index = self.open_text(OpenKind::Thinking, Want::Reasoning, message, out);
                delta(out, index, "thinking_delta", "thinking", text);
            }
            Event::ToolCallStarted {
                index, id, name, ..
            } => {
                if self.seen_calls.insert(*index) {
                    if self.open_call().is_some() {
                        self.waiting.push_back(WaitingCall {
                            position: *index,
                            finished: false,
                        });
                    } else {
                        self.start_tool(*index, id, name, message, out);
                    }
                }
            }
            Event::ToolCallArgumentsDelta {
                index, delta: args, ..
            } => {
                if let Some(open) = self
                    .open
                    .as_ref()
                    .filter(|open| open.kind == OpenKind::Tool(*index))
                {
                    delta(out, open.index, "input_json_delta", "partial_json", args);
                }
            }
            Event::ToolCallFinished { index, call, .. } => {
                self.finish_tool(*index, call, message, out);
            }
            Event::ChoiceFinished { reason, .. } => {
                self.stop_reason = Some(reason.to_string());
            }
            Event::Done => self.finish(message, out),
        }
    }

    /// Closes what is open, writes the blocks the snapshot holds past the cursor (when there
    /// is one), then `message_delta` and `message_stop`.
    pub(super) fn finish(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        if self.ended {
            return;
        }
        self.start(out);
        self.close_all(message, out);
        if let Some(message) = message {
            let rest = self.cursor.rest(message);
            self.write_hidden(message, rest, out);
        }
        let reason = self.stop_reason.as_deref().unwrap_or("end_turn");
        let stop_reason = finish::anthropic(reason, self.saw_tool_calls);
        let usage = self
            .usage
            .as_ref()
            .map_or_else(|| usage_json(&UsageMetadata::default()), usage_json);
        push_value(
            out,
            Some("message_delta"),
            &json!({
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": usage,
            }),
        );
        push_data(out, Some("message_stop"), "{\"type\":\"message_stop\"}");
        self.ended = true;
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

    /// The open text or thinking block of `kind`, opened (after closing the open block and
    /// writing the waiting calls) if needed.
    fn open_text(
        &mut self,
        kind: OpenKind,
        want: Want,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) -> u32 {
        if let Some(open) = &self.open {
            if open.kind == kind {
                return open.index;
            }
        }
        self.start(out);
        self.close_all(message, out);
        let mirrors = self.mirror(want, message, out);
        let index = self.take_index();
        let block = match kind {
            OpenKind::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
            OpenKind::Text | OpenKind::Tool(_) => json!({"type": "text", "text": ""}),
        };
        block_start(out, index, &block);
        self.open = Some(OpenBlock {
            kind,
            index,
            mirrors,
        });
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
        self.open = Some(OpenBlock {
            kind: OpenKind::Tool(position),
            index,
            mirrors: None,
        });
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
        let Some(open) = self.open.take() else {
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
        stop(out, open.index);
    }

    fn take_index(&mut self) -> u32 {
        self.next_index += 1;
        self.next_index - 1
    }
}

fn call_parts(call: &ContentBlock) -> (&str, &str, String) {
    match call {
        ContentBlock::ToolCall(call) => (
            &call.id,
            &call.name,
            Value::Object(call.args.clone()).to_string(),
        ),
        ContentBlock::InvalidToolCall(call) => (&call.id, &call.name, call.args.clone()),
        _ => ("", "", String::new()),
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

/// The non-streamed `message`.
pub(super) fn response(message: &AiMessage) -> Value {
    let identity = Identity::of_message(message);
    let content: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text, .. } | ContentBlock::Refusal { refusal: text } => {
                Some(json!({"type": "text", "text": text}))
            }
            ContentBlock::Reasoning {
                text,
                data: Some(data),
                ..
            } if text.is_empty() => Some(json!({"type": "redacted_thinking", "data": data})),
            ContentBlock::Reasoning {
                text, signature, ..
            } => Some(json!({
                "type": "thinking",
                "thinking": text,
                "signature": signature.as_deref().unwrap_or_default(),
            })),
            ContentBlock::ToolCall(call) => Some(json!({
                "type": "tool_use", "id": call.id, "name": call.name, "input": call.args,
            })),
            ContentBlock::InvalidToolCall(call) => Some(json!({
                "type": "tool_use", "id": call.id, "name": call.name, "input": {},
            })),
            _ => None,
        })
        .collect();
    let reason = message.response_metadata.finish_reason.as_str();
    let usage = message.usage.clone().unwrap_or_default();
    json!({
        "id": identity.id_or(GENERATED_ID),
        "type": "message",
        "role": "assistant",
        "model": identity.model(),
        "content": content,
        "stop_reason": finish::anthropic(if reason.is_empty() { "end_turn" } else { reason }, message.has_tool_calls()),
        "stop_sequence": null,
        "usage": usage_json(&usage),
    })
}
