//! Tool calls one block at a time: the Anthropic encoder's side of the held queue (the rule is
//! in `encode::held`): how it writes text, opens a call's block whole or as it starts, and
//! closes it.

use super::server::cite;
use super::{call_parts, delta, EventEncoder, OpenKind};
use crate::assemble::PartialMessage;
use crate::encode::cursor::Want;
use crate::encode::held::{CallKey, Finished, HeldQueue, Holding};

impl Holding for EventEncoder {
    type Kind = (OpenKind, Want);

    fn queue(&mut self) -> &mut HeldQueue<Self::Kind> {
        &mut self.queue
    }

    fn open_call(&self) -> Option<CallKey> {
        match self.open.as_ref()?.kind {
            OpenKind::Call(key) => Some(key),
            _ => None,
        }
    }

    /// Writes a text, refusal or thinking delta into the open block of its kind.
    fn write_text(
        &mut self,
        (kind, want): Self::Kind,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let index = self.open_text(kind, want, message, out);
        match kind {
            OpenKind::Thinking => delta(out, index, "thinking_delta", "thinking", text),
            OpenKind::Text | OpenKind::Call(_) => {
                if let Some(open) = &mut self.open {
                    cite(open, message, out);
                }
                delta(out, index, "text_delta", "text", text)
            }
        }
    }

    fn start_call(
        &mut self,
        key: CallKey,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        match key {
            CallKey::Client(position) => self.start_tool(position, id, name, message, out),
            CallKey::Server(block) => self.start_server(block, true, message, out),
        }
    }

    fn write_finished(
        &mut self,
        key: CallKey,
        call: Finished<'_>,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        match (key, call) {
            (CallKey::Client(position), Finished::Client(call)) => {
                let (id, name, args) = call_parts(call);
                self.start_tool(position, id, name, message, out);
                self.write_arguments(&args, out);
            }
            (CallKey::Server(block), _) => self.start_server(block, false, message, out),
            (CallKey::Client(position), Finished::Server(_)) => {
                self.start_tool(position, "", "", message, out)
            }
        }
    }

    /// Opens the block of the call at `key` with its arguments so far, read from the snapshot
    /// (the finished call's, when the text is empty).
    fn write_whole(&mut self, key: CallKey, message: Option<&PartialMessage>, out: &mut String) {
        let CallKey::Client(position) = key else {
            if let CallKey::Server(block) = key {
                self.write_server_whole(block, message, out);
            }
            return;
        };
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

    fn seal_call(&mut self, call: Finished<'_>, _: Option<&PartialMessage>, out: &mut String) {
        if let Finished::Server(call) = call {
            self.seal_server(call, out);
        }
    }

    fn write_block(&mut self, block: u32, message: Option<&PartialMessage>, out: &mut String) {
        self.write_result(block, message, out);
    }

    fn close_open(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        EventEncoder::close_open(self, message, out);
    }
}

impl EventEncoder {
    /// One `input_json_delta` into the open call's block.
    pub(super) fn write_arguments(&mut self, args: &str, out: &mut String) {
        if let Some(open) = &mut self.open {
            if !args.is_empty() {
                open.streamed += args.len();
                delta(out, open.index, "input_json_delta", "partial_json", args);
            }
        }
    }
}
