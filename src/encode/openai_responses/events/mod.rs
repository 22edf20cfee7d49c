//! The live Responses stream: output items opened, streamed and closed as events arrive, each
//! event numbered, and the terminal `response.completed` / `response.incomplete`.
//!
//! One item is open at a time, as OpenAI documents the stream (`output_item.added`, its
//! events, `output_item.done`, then the next item); strict clients reject an item added inside
//! another, and a function call's item once done takes no more argument deltas. So while a
//! call's item is open and the call has not finished, what else arrives is held in order: a
//! call that starts waits (its fragments are not copied, the snapshot holds them), and text,
//! refusal or reasoning deltas are kept as they came. When the open call finishes, what was
//! held is written in arrival order: text as message or reasoning items, a waiting call whole
//! (added, its arguments so far as one delta, its `.done` events if it has finished; one still
//! streaming stays open, and holding goes on behind it). The end of the stream writes all that
//! is still held. As for Anthropic (see `encode::anthropic`), holding the text rather than
//! ending the call's item keeps the re-assembled message equal to the source's.
//! A server-side call's item takes its result (sources, outputs): once the call finished, the
//! item stays open until the result comes, and what arrives meanwhile is held the same way (a
//! source that never sends the result has it all written at the end of the stream).
//! Server items' live progress and partial images: see `server`; how an item ends: `close`.

mod callbacks;
mod calls;
mod close;
mod completed;
mod hidden;
mod server;

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use self::calls::TextKind;
use self::hidden::reasoning_id;
use super::items::{empty_part, message_item, response_shell, Item, JsonList, Place};
use crate::assemble::{PartialBlock, PartialMessage};
use crate::encode::cursor::{BlockCursor, Want};
use crate::encode::held::{CallKey, HeldQueue};
use crate::encode::sse::{push_json_str, push_value};
use crate::encode::Identity;
use crate::message::{ContentBlock, ServerToolStatus, ToolCall, UsageMetadata};

/// The content block at `at` of the snapshot, if it is one (not a call).
fn content_at(message: &PartialMessage, at: Option<usize>) -> Option<&ContentBlock> {
    match message.blocks().get(at?) {
        Some(PartialBlock::Content(block)) => Some(block),
        _ => None,
    }
}

/// The event stream's state.
#[derive(Debug, Default)]
pub(in crate::encode) struct EventRules {
    identity: Option<Identity>,
    started: bool,
    sequence: u64,
    /// The items given an output index so far (closed, and the one being closed).
    items: usize,
    /// The closed items' final JSON, comma-separated, for `response.completed`: held as text,
    /// about the size of the message it mirrors (as parsed values it was 50 times that).
    output: JsonList,
    /// Where each reasoning item lies in `output`, and the snapshot block it mirrors: a
    /// source's closing event may bring the reasoning's encrypted content anew after the item
    /// was written ([`reseal`](Self::reseal)).
    sealed: Vec<(Place, usize)>,
    /// The item being written; its output index is `items`.
    open: Option<Item>,
    /// The call in `open` while it takes argument deltas.
    open_call: Option<CallKey>,
    /// What waits for the open call to finish, in arrival order; empty unless a call is open.
    queue: HeldQueue<TextKind>,
    /// The provider of the source (`openai` when its extras are native here).
    source: Option<&'static str>,
    /// The id of the finished server-side call whose open item waits for its result.
    awaiting: Option<String>,
    /// The open server item streams its code or arguments as they come.
    live_args: bool,
    /// The latest progress of each server call whose item waits, by block (see `server`).
    waiting_progress: HashMap<u32, ServerToolStatus>,
    cursor: BlockCursor,
    usage: Option<UsageMetadata>,
    reason: Option<String>,
    saw_tool_calls: bool,
}

impl EventRules {
    fn start(&mut self, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        let response = self.response_object("in_progress");
        self.push(out, "response.created", json!({ "response": response }));
        let response = self.response_object("in_progress");
        self.push(out, "response.in_progress", json!({ "response": response }));
    }

    fn response_object(&self, status: &str) -> Value {
        let identity = self.identity.clone().unwrap_or_default();
        response_shell(&identity, status)
    }

    /// A delta of the open message (opening one, after ending the open item, which is not a
    /// streaming call: text is held while one is open).
    pub(super) fn message_delta(
        &mut self,
        refusal: bool,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let want = if refusal { Want::Refusal } else { Want::Text };
        let moved_on = match &self.open {
            Some(Item::Message { mirrors, .. }) => self.cursor.moved_on(message, *mirrors, want),
            _ => false,
        };
        // A new block of the source's open message item (the same `msg_…` id) is a new part.
        let same_item = moved_on
            && match (&self.open, message) {
                (Some(Item::Message { id, .. }), Some(message)) => {
                    let last = message.blocks().len().checked_sub(1);
                    message_item(content_at(message, last)).0 == Some(id.as_str())
                }
                _ => false,
            };
        let continues = !moved_on
            && matches!(&self.open, Some(Item::Message { refusal: open, .. }) if *open == refusal);
        if !continues {
            if (moved_on && !same_item) || !matches!(self.open, Some(Item::Message { .. })) {
                self.close_open_item(message, out);
                let mirrors = self.mirror(want, message, out);
                let (source_id, phase) =
                    message_item(message.and_then(|message| content_at(message, mirrors)));
                let id = source_id.map_or_else(|| format!("msg_df_{}", self.items), str::to_owned);
                let phase = phase.map(str::to_owned);
                let mut item = json!({"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []});
                if let Some(phase) = &phase {
                    item["phase"] = phase.as_str().into();
                }
                self.push(
                    out,
                    "response.output_item.added",
                    json!({"output_index": self.items, "item": item}),
                );
                self.open = Some(Item::Message {
                    id,
                    phase,
                    refusal,
                    parts: JsonList::default(),
                    text: String::new(),
                    mirrors,
                    annotations: Vec::new(),
                    annotated: 0,
                });
            } else {
                self.close_part(message, out);
                if same_item {
                    let next = self.mirror(want, message, out);
                    if let Some(Item::Message { mirrors, .. }) = &mut self.open {
                        *mirrors = next;
                    }
                }
            }
            let at = self.items;
            if let Some(Item::Message {
                id,
                refusal: kind,
                parts,
                ..
            }) = &mut self.open
            {
                *kind = refusal;
                let part = empty_part(refusal);
                let event = json!({"item_id": id, "output_index": at, "content_index": parts.len(), "part": part});
                self.push(out, "response.content_part.added", event);
            }
        }
        let at = self.items;
        if let Some(Item::Message {
            id,
            parts,
            text: all,
            ..
        }) = &mut self.open
        {
            all.push_str(text);
            let kind = if refusal {
                "response.refusal.delta"
            } else {
                "response.output_text.delta"
            };
            let mut json = format!("{{\"type\":\"{kind}\",\"item_id\":");
            push_json_str(&mut json, id);
            json.push_str(&format!(
                ",\"output_index\":{at},\"content_index\":{},\"delta\":",
                parts.len()
            ));
            push_json_str(&mut json, text);
            if !refusal {
                json.push_str(",\"logprobs\":[]");
            }
            self.push_raw(out, kind, json);
        }
        if !refusal {
            self.annotate(message, out);
        }
    }

    /// A delta of the open reasoning item, opened as a message is.
    pub(super) fn reasoning_delta(
        &mut self,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if !matches!(self.open, Some(Item::Reasoning { .. })) {
            self.close_open_item(message, out);
            let mirrors = self.mirror(Want::Reasoning, message, out);
            let id = reasoning_id(message, mirrors, self.items);
            let at = self.items;
            let item = json!({"id": id, "type": "reasoning", "summary": []});
            self.push(
                out,
                "response.output_item.added",
                json!({"output_index": at, "item": item}),
            );
            let part = json!({"type": "summary_text", "text": ""});
            self.push(
                out,
                "response.reasoning_summary_part.added",
                json!({"item_id": id, "output_index": at, "summary_index": 0, "part": part}),
            );
            self.open = Some(Item::Reasoning {
                id,
                text: String::new(),
                mirrors,
                data: None,
            });
        }
        let at = self.items;
        if let Some(Item::Reasoning { id, text: all, .. }) = &mut self.open {
            all.push_str(text);
            let mut json =
                String::from("{\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":");
            push_json_str(&mut json, id);
            json.push_str(&format!(
                ",\"output_index\":{at},\"summary_index\":0,\"delta\":"
            ));
            push_json_str(&mut json, text);
            self.push_raw(out, "response.reasoning_summary_text.delta", json);
        }
    }

    /// Adds the item of the function call at `position` (ending the open item, which is not a
    /// call).
    pub(super) fn start_function(
        &mut self,
        position: u32,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        self.close_open_item(message, out);
        let block = self.mirror(Want::ToolCall(position), message, out);
        let at = self.items;
        let item_id = message
            .zip(block)
            .and_then(|(message, block)| match message.blocks().get(block) {
                Some(PartialBlock::ToolCall(call)) => call.extras()?.get(ToolCall::ITEM_ID),
                _ => None,
            })
            .and_then(Value::as_str)
            .map_or_else(|| format!("fc_df_{at}"), str::to_owned);
        let item = json!({"id": item_id, "type": "function_call", "call_id": id, "name": name, "arguments": "", "status": "in_progress"});
        self.push(
            out,
            "response.output_item.added",
            json!({"output_index": at, "item": item}),
        );
        let call = Item::Call {
            id: item_id,
            call_id: id.to_owned(),
            name: name.to_owned(),
            arguments: String::new(),
        };
        self.open = Some(call);
        self.open_call = Some(CallKey::Client(position));
        self.saw_tool_calls = true;
    }

    pub(super) fn mirror(
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

    /// Writes one event: `fields` gets its `type` and `sequence_number`.
    pub(super) fn push(&mut self, out: &mut String, kind: &str, mut fields: Value) {
        fields["type"] = json!(kind);
        fields["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        push_value(out, Some(kind), &fields);
    }

    /// Writes one event from JSON built by hand, missing only its closing brace.
    pub(super) fn push_raw(&mut self, out: &mut String, kind: &str, json: String) {
        self.open_raw(out, kind);
        out.push_str(&json);
        self.close_raw(out);
    }

    /// Starts an event built by hand in `out`: its JSON follows, missing its closing brace.
    pub(super) fn open_raw(&self, out: &mut String, kind: &str) {
        out.push_str("event: ");
        out.push_str(kind);
        out.push_str("\ndata: ");
    }

    /// Ends an event built by hand with its `sequence_number`.
    pub(super) fn close_raw(&mut self, out: &mut String) {
        let _ = write!(out, ",\"sequence_number\":{}}}\n\n", self.sequence);
        self.sequence += 1;
    }
}
