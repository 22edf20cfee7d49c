//! Custom tool calls (`type: "custom"`, `custom: {name, input}`, the input free text streamed in
//! pieces; openai/openai-python#2530): a tool call as LangChain represents one, its arguments
//! `{"__arg1": input}` ([`ToolCall::custom`](crate::message::ToolCall::custom), as for the
//! Responses API's `custom_tool_call`). The dialect writes those arguments as JSON text while the
//! input streams — `{"__arg1":"`, then each piece escaped as a JSON string's content, then `"}`
//! when the choice finishes (or the input ends) — so the streamed text is always a prefix of the
//! final JSON: live argument deltas and a valid `partial()` as for any call, and nothing held in
//! the dialect but which calls are open.

use serde_json::Value;

use super::payload::{CustomChunk, ToolCallChunk};
use crate::delta::{Delta, DeltaSink, ToolCallDelta};
use crate::dialect::text::Text;
use crate::error::Error;

/// Where a custom call's arguments start, before its input.
const OPENING: &str = "{\"__arg1\":\"";
/// Where they end, after the input.
const CLOSING: &str = "\"}";

/// The custom tool calls whose input is still streaming, by choice and the provider's index.
#[derive(Debug, Default)]
pub(crate) struct CustomCalls {
    open: Vec<(u32, Option<u32>)>,
}

impl CustomCalls {
    /// Whether a custom call is open (the fast path, which finishes choices itself, then
    /// steps aside).
    pub(crate) fn any_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// Forgets the stream for a new one.
    pub(crate) fn reset(&mut self) {
        self.open.clear();
    }

    /// A piece of a custom call: the call's arguments open with its first piece.
    pub(super) fn piece(
        &mut self,
        choice: u32,
        call: &ToolCallChunk<'_>,
        custom: &CustomChunk<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let key = (choice, call.index);
        let mut arguments = String::new();
        if !self.open.contains(&key) {
            self.open.push(key);
            arguments.push_str(OPENING);
        }
        if let Some(input) = &custom.input {
            let quoted = Value::String(input.as_str().to_owned()).to_string();
            arguments.push_str(&quoted[1..quoted.len() - 1]);
        }
        sink.apply(Delta::ToolCall(ToolCallDelta {
            choice,
            index: call.index,
            id: call.id.as_ref().map(Text::as_str),
            name: custom.name.as_ref().map(Text::as_str),
            arguments: &arguments,
        }))
    }

    /// Closes the arguments of the choice's open custom calls (`None`: of every choice).
    pub(super) fn close(
        &mut self,
        choice: Option<u32>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let mut result = Ok(());
        self.open.retain(|&(open_choice, index)| {
            if result.is_err() || choice.is_some_and(|choice| choice != open_choice) {
                return true;
            }
            result = sink.apply(Delta::ToolCall(ToolCallDelta {
                choice: open_choice,
                index,
                id: None,
                name: None,
                arguments: CLOSING,
            }));
            false
        });
        result
    }
}
