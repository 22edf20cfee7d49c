//! Custom tool calls (`custom_tool_call` items): a call whose input is free text, not JSON
//! arguments. It is a tool call as LangChain represents one: its arguments are
//! `{"__arg1": input}`, the single-string form LangChain gives a tool of one positional input
//! (langchain-openai's `_convert_responses_chunk_to_generation_chunk`).
//!
//! The input streams as `response.custom_tool_call_input.delta` and comes whole in `.done` and in
//! the finished item. Free text is not a prefix of the JSON the call ends with, so the fragments
//! are kept here (charged to the message budget) and the call gets its arguments at the end.

use super::payload::Item;
use super::{OpenAiResponsesDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, Held, ToolCallDelta};
use crate::error::Error;

impl OpenAiResponsesDecoder {
    /// `response.output_item.added` of a custom tool call: the call starts, without arguments.
    pub(super) fn start_custom_call(
        &mut self,
        output_index: u32,
        item: &Item<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        sink.apply(Delta::ToolCall(ToolCallDelta {
            choice: CHOICE,
            index: Some(output_index),
            id: item.call_id.as_str(),
            name: item.name.as_str(),
            arguments: "",
        }))?;
        let input = item.input.as_str().unwrap_or_default();
        self.custom_input(output_index, input, sink)
    }

    /// A fragment of a custom tool call's input.
    pub(super) fn custom_input(
        &mut self,
        output_index: u32,
        input: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        // A new input takes a map slot; more of one only grows its text.
        let entries = usize::from(!self.custom_inputs.contains_key(&output_index));
        sink.apply(Delta::Held(Held {
            entries,
            bytes: input.len(),
        }))?;
        self.custom_inputs
            .entry(output_index)
            .or_default()
            .push_str(input);
        Ok(())
    }

    /// The call is final: its whole input (`whole`, else the fragments so far) as its arguments.
    /// A call already ended (by `.done`, then again by its item) is left as it is.
    pub(super) fn end_custom_call(
        &mut self,
        output_index: u32,
        whole: Option<&str>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let streamed = self.custom_inputs.remove(&output_index);
        let Some(input) = whole.or(streamed.as_deref()) else {
            return Ok(());
        };
        let arguments = serde_json::json!({ "__arg1": input }).to_string();
        sink.apply(Delta::ToolCallEnd {
            choice: CHOICE,
            index: output_index,
            arguments: Some(&arguments),
        })
    }
}
