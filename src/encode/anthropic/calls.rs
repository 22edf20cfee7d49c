//! Tool calls one block at a time: the call that starts while another call's block is open
//! waits, and is written whole from the snapshot in its turn (the rule is in [`super`]).

use super::{call_parts, delta, EventEncoder, OpenKind, WaitingCall};
use crate::assemble::PartialMessage;
use crate::message::ContentBlock;

impl EventEncoder {
    /// The position of the call whose block is open.
    pub(super) fn open_call(&self) -> Option<u32> {
        match self.open.as_ref()?.kind {
            OpenKind::Tool(position) => Some(position),
            _ => None,
        }
    }

    /// A call finished: its block stops and the next waiting call is written; a waiting call
    /// is marked, to be written whole and stopped in its turn; a call never announced is
    /// written whole now (or waits, if another call is open).
    pub(super) fn finish_tool(
        &mut self,
        position: u32,
        call: &ContentBlock,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.seen_calls.insert(position) {
            if self.open_call().is_some() {
                self.waiting.push_back(WaitingCall {
                    position,
                    finished: true,
                });
                return;
            }
            let (id, name, args) = call_parts(call);
            self.start_tool(position, id, name, message, out);
            self.write_arguments(&args, out);
        } else if self.open_call() != Some(position) {
            if let Some(waiting) = self
                .waiting
                .iter_mut()
                .find(|waiting| waiting.position == position)
            {
                waiting.finished = true;
            }
            return;
        }
        self.close_open(message, out);
        self.next_waiting(message, out);
    }

    /// Writes waiting calls whole, in order, until one is still streaming: it stays open.
    pub(super) fn next_waiting(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        while let Some(waiting) = self.waiting.pop_front() {
            self.write_whole(waiting.position, message, out);
            if !waiting.finished {
                return;
            }
            self.close_open(message, out);
        }
    }

    /// Stops the open block and writes every waiting call whole.
    pub(super) fn close_all(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.close_open(message, out);
        while let Some(waiting) = self.waiting.pop_front() {
            self.write_whole(waiting.position, message, out);
            self.close_open(message, out);
        }
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
