//! Function calls one item at a time: the call that starts while another call's item is open
//! waits, and is written whole from the snapshot in its turn (the rule is in [`super`]).

use serde_json::Value;

use super::super::items::Item;
use super::EventEncoder;
use crate::assemble::PartialMessage;
use crate::encode::sse::push_json_str;
use crate::message::ContentBlock;

impl EventEncoder {
    /// A call finished: its item is done and the next waiting call is written; a waiting call
    /// is marked, to be written whole and done in its turn; a call never announced is written
    /// whole now (or waits, if another call is open).
    pub(super) fn finish_call(
        &mut self,
        position: u32,
        call: &ContentBlock,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.seen_calls.insert(position) {
            if self.open_call.is_some() {
                self.waiting.push_back((position, true));
                return;
            }
            let (id, name) = match call {
                ContentBlock::ToolCall(call) => (call.id.as_str(), call.name.as_str()),
                ContentBlock::InvalidToolCall(call) => (call.id.as_str(), call.name.as_str()),
                _ => ("", ""),
            };
            self.start_call(position, id, name, message, out);
        } else if self.open_call != Some(position) {
            if let Some(waiting) = self.waiting.iter_mut().find(|(at, _)| *at == position) {
                waiting.1 = true;
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
        self.next_waiting(message, out);
    }

    /// Writes waiting calls whole, in order, until one is still streaming: it stays open.
    pub(super) fn next_waiting(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        while let Some((position, finished)) = self.waiting.pop_front() {
            self.write_whole(position, message, out);
            if !finished {
                return;
            }
            self.close_open(message, out);
        }
    }

    /// Ends the open item and writes every waiting call whole.
    pub(super) fn close_all(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.close_open(message, out);
        while let Some((position, _)) = self.waiting.pop_front() {
            self.write_whole(position, message, out);
            self.close_open(message, out);
        }
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
