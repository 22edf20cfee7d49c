//! Tool calls one block at a time: what arrives while a call's block is open — another call,
//! text, thinking — is held, and written in its turn (the rule is in [`super`]).

use super::{call_parts, delta, EventEncoder, Held, OpenKind};
use crate::assemble::PartialMessage;
use crate::encode::cursor::Want;
use crate::message::ContentBlock;

impl EventEncoder {
    /// Writes a text, refusal or thinking delta, or holds it while a call's block is open.
    pub(super) fn text_delta(
        &mut self,
        kind: OpenKind,
        want: Want,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.open_call().is_some() {
            self.hold_text(kind, want, text);
        } else {
            self.write_text(kind, want, text, message, out);
        }
    }

    /// Writes a text, refusal or thinking delta into the open block of its kind.
    pub(super) fn write_text(
        &mut self,
        kind: OpenKind,
        want: Want,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let index = self.open_text(kind, want, message, out);
        match kind {
            OpenKind::Thinking => delta(out, index, "thinking_delta", "thinking", text),
            OpenKind::Text | OpenKind::Tool(_) => delta(out, index, "text_delta", "text", text),
        }
    }

    /// The position of the call whose block is open.
    pub(super) fn open_call(&self) -> Option<u32> {
        match self.open.as_ref()?.kind {
            OpenKind::Tool(position) => Some(position),
            _ => None,
        }
    }

    /// A call finished: its block stops and what was held behind it is written; a held call
    /// is marked, to be written whole and stopped in its turn; a call never announced is
    /// written whole now (or is held, if another call is open).
    pub(super) fn finish_tool(
        &mut self,
        position: u32,
        call: &ContentBlock,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.seen_calls.insert(position) {
            if self.open_call().is_some() {
                self.held.push_back(Held::Call {
                    position,
                    finished: true,
                });
                return;
            }
            let (id, name, args) = call_parts(call);
            self.start_tool(position, id, name, message, out);
            self.write_arguments(&args, out);
        } else if self.open_call() != Some(position) {
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
        self.close_open(message, out);
        self.release(false, message, out);
    }

    /// Keeps a text, refusal or thinking delta that arrived while a call's block is open,
    /// joined to the run before it when that is of the same kind.
    pub(super) fn hold_text(&mut self, kind: OpenKind, want: Want, more: &str) {
        if let Some(Held::Text {
            kind: last,
            want: wanted,
            text,
        }) = self.held.back_mut()
        {
            if *last == kind && *wanted == want {
                text.push_str(more);
                return;
            }
        }
        self.held.push_back(Held::Text {
            kind,
            want,
            text: more.to_owned(),
        });
    }

    /// Writes what was held, in order, until a call that is still streaming: it stays open and
    /// holding goes on behind it — unless `all`, at the end, when every call is stopped too.
    pub(super) fn release(
        &mut self,
        all: bool,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        while let Some(held) = self.held.pop_front() {
            match held {
                Held::Text { kind, want, text } => self.write_text(kind, want, &text, message, out),
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

    /// Stops the open block and writes everything held, each call whole and stopped.
    pub(super) fn close_all(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.close_open(message, out);
        self.release(true, message, out);
        self.close_open(message, out);
    }

    /// Opens the block of the call at `position` with its arguments so far, read from the
    /// snapshot (the finished call's, when the text is empty).
    pub(super) fn write_whole(
        &mut self,
        position: u32,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        self.start_tool(position, "", "", message, out);
        let call = message.and_then(|message| {
            message
                .tool_calls()
                .find(|call| call.position() == position)
        });
        match call {
            Some(call) if !call.arguments().is_empty() => {
                self.write_arguments(call.arguments(), out)
            }
            Some(call) => {
                if let Some(finished) = call.finished() {
                    self.write_arguments(&call_parts(finished).2, out);
                }
            }
            None => {}
        }
    }

    /// One `input_json_delta` into the open call's block.
    pub(super) fn write_arguments(&mut self, args: &str, out: &mut String) {
        if let Some(open) = &self.open {
            if !args.is_empty() {
                delta(out, open.index, "input_json_delta", "partial_json", args);
            }
        }
    }
}
