//! Function calls one item at a time: the Responses encoder's side of the held queue (the rule
//! is in `encode::held`): how it writes text, adds a call's item whole or as it starts, and
//! ends it.

use serde_json::Value;

use super::super::items::Item;
use super::EventRules;
use crate::assemble::{FinishedToolCall, PartialMessage};
use crate::encode::held::{CallKey, Finished, HeldQueue, Holding};
use crate::encode::sse::push_json_str;
use crate::message::ContentBlock;

/// The kind of a text delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::encode) enum TextKind {
    Text,
    Refusal,
    Reasoning,
}

impl Holding for EventRules {
    type Kind = TextKind;
    /// A message or reasoning item: added, its part added, the delta, the text's and part's
    /// `.done`, the item's `.done` — about 1.3 KB with short ids — each but the first two
    /// with the text.
    const RUN_BYTES: usize = 1536;
    const TEXT_COPIES: usize = 4;

    fn queue(&mut self) -> &mut HeldQueue<TextKind> {
        &mut self.queue
    }

    fn open_call(&self) -> Option<CallKey> {
        self.open_call
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

    fn start_call(
        &mut self,
        key: CallKey,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        match key {
            CallKey::Client(position) => self.start_function(position, id, name, message, out),
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
                self.start_function(position, call.id(), call.name(), message, out);
            }
            (CallKey::Client(position), Finished::Server(_)) => {
                self.start_function(position, "", "", message, out)
            }
            (CallKey::Server(block), _) => self.start_server(block, false, message, out),
        }
    }

    /// Adds the item of the call at `key` with its arguments so far, read from the snapshot
    /// (the finished call's, when the text is empty).
    fn write_whole(&mut self, key: CallKey, message: Option<&PartialMessage>, out: &mut String) {
        let position = match key {
            CallKey::Client(position) => position,
            CallKey::Server(block) => return self.write_server_whole(block, message, out),
        };
        let call = message.and_then(|message| {
            message
                .tool_calls()
                .find(|call| call.position() == position)
        });
        let (id, name) = call.map_or(("", ""), |call| (call.id(), call.name()));
        self.start_function(position, id, name, message, out);
        let Some(call) = call else {
            return;
        };
        if !call.arguments().is_empty() {
            self.arguments_delta(call.arguments(), out);
        } else if let Some(ContentBlock::ToolCall(finished)) = call.finished() {
            self.arguments_delta(&Value::Object(finished.args.clone()).to_string(), out);
        }
    }

    /// A function call's item takes the parsed arguments when none streamed; a server-side
    /// call's item takes the finished call and waits for its result.
    fn seal_call(&mut self, call: Finished<'_>, message: Option<&PartialMessage>, _: &mut String) {
        match call {
            Finished::Client(FinishedToolCall::ToolCall(call)) => {
                if let Some(Item::Call { arguments, .. }) = &mut self.open {
                    if arguments.is_empty() {
                        *arguments = call.args_json().to_string();
                    }
                }
            }
            Finished::Client(FinishedToolCall::InvalidToolCall(_)) => {}
            Finished::Server(call) => self.seal_server(call, message),
        }
    }

    fn write_block(&mut self, block: u32, message: Option<&PartialMessage>, out: &mut String) {
        self.write_server_block(block, message, out);
    }

    fn close_open(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.close_open_item(message, out);
    }

    fn awaits_result(&self) -> bool {
        self.awaiting.is_some()
    }

    fn answers_open(&self, block: u32, message: Option<&PartialMessage>) -> bool {
        self.awaited_result(block, message).is_some()
    }
}

impl EventRules {
    /// More argument text for the open call.
    pub(super) fn arguments_delta(&mut self, delta: &str, out: &mut String) {
        let at = self.items;
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
