//! Function calls one item at a time: what arrives while a call's item is open — another call,
//! text, reasoning — is held, and written in its turn (the rule is in [`super`]).

use serde_json::Value;

use super::super::items::Item;
use super::EventEncoder;
use crate::assemble::PartialMessage;
use crate::encode::sse::push_json_str;
use crate::message::ContentBlock;

/// The kind of a text delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    Text,
    Refusal,
    Reasoning,
}

/// What arrived while a call's item was open, to be written when that call finishes.
#[derive(Debug)]
pub(super) enum Held {
    /// A call that started (and perhaps finished) while another call's item was open.
    Call { position: u32, finished: bool },
    /// A run of text, refusal or reasoning deltas, joined.
    Text { kind: TextKind, text: String },
}

impl EventEncoder {
    /// Writes a text, refusal or reasoning delta, or holds it while a call's item is open
    /// (joined to the held run before it when that is of the same kind).
    pub(super) fn text_delta(
        &mut self,
        kind: TextKind,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.open_call.is_none() {
            self.write_text(kind, text, message, out);
            return;
        }
        if let Some(Held::Text {
            kind: last,
            text: run,
        }) = self.held.back_mut()
        {
            if *last == kind {
                run.push_str(text);
                return;
            }
        }
        self.held.push_back(Held::Text {
            kind,
            text: text.to_owned(),
        });
    }

    fn write_text(
        &mut self,
        kind: TextKind,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        match kind {
            TextKind::Text => self.message_delta(false, text, message, out),
            TextKind::Refusal => self.message_delta(true, text, message, out),
            TextKind::Reasoning => self.reasoning_delta(text, message, out),
        }
    }

    /// A call finished: its item is done and what was held behind it is written; a held call
    /// is marked, to be written whole and done in its turn; a call never announced is written
    /// whole now (or is held, if another call is open).
    pub(super) fn finish_call(
        &mut self,
        position: u32,
        call: &ContentBlock,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.seen_calls.insert(position) {
            if self.open_call.is_some() {
                self.held.push_back(Held::Call {
                    position,
                    finished: true,
                });
                return;
            }
            let (id, name) = match call {
                ContentBlock::ToolCall(call) => (call.id.as_str(), call.name.as_str()),
                ContentBlock::InvalidToolCall(call) => (call.id.as_str(), call.name.as_str()),
                _ => ("", ""),
            };
            self.start_call(position, id, name, message, out);
        } else if self.open_call != Some(position) {
            for held in &mut self.held {
                if let Held::Call {
                    position: at,
                    finished,
                } = held
                {
                    if *at == position {
                        *finished = true;
                    }
                }
            }
            return;
        }
        if let (Some(Item::Call { arguments, .. }), ContentBlock::ToolCall(call)) =
            (&mut self.open, call)
        {
            if arguments.is_empty() {
                *arguments = Value::Object(call.args.clone()).to_string();
            }
        }
        self.close_open(message, out);
        self.release(false, message, out);
    }

    /// Writes what was held, in order, until a call that is still streaming: it stays open and
    /// holding goes on behind it — unless `all`, at the end, when every call is done too.
    fn release(&mut self, all: bool, message: Option<&PartialMessage>, out: &mut String) {
        while let Some(held) = self.held.pop_front() {
            match held {
                Held::Text { kind, text } => self.write_text(kind, &text, message, out),
                Held::Call { position, finished } => {
                    self.write_whole(position, message, out);
                    if !finished && !all {
                        return;
                    }
                    self.close_open(message, out);
                }
            }
        }
    }

    /// Ends the open item and writes everything held, each call whole and done.
    pub(super) fn close_all(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.close_open(message, out);
        self.release(true, message, out);
        self.close_open(message, out);
    }

    /// Adds the item of the call at `position` with its arguments so far, read from the
    /// snapshot (the finished call's, when the text is empty).
    pub(super) fn write_whole(
        &mut self,
        position: u32,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let call = message.and_then(|message| {
            message
                .tool_calls()
                .find(|call| call.position() == position)
        });
        let (id, name) = call.map_or(("", ""), |call| (call.id(), call.name()));
        self.start_call(position, id, name, message, out);
        let Some(call) = call else {
            return;
        };
        if !call.arguments().is_empty() {
            self.arguments_delta(call.arguments(), out);
        } else if let Some(ContentBlock::ToolCall(finished)) = call.finished() {
            self.arguments_delta(&Value::Object(finished.args.clone()).to_string(), out);
        }
    }

    /// More argument text for the open call.
    pub(super) fn arguments_delta(&mut self, delta: &str, out: &mut String) {
        let at = self.output.len();
        if let Some(Item::Call { id, arguments, .. }) = &mut self.open {
            arguments.push_str(delta);
            let mut json =
                String::from("{\"type\":\"response.function_call_arguments.delta\",\"item_id\":");
            push_json_str(&mut json, id);
            json.push_str(&format!(",\"output_index\":{at},\"delta\":"));
            push_json_str(&mut json, delta);
            self.push_raw(out, "response.function_call_arguments.delta", json);
        }
    }
}
