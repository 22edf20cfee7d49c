//! The deltas of block-structured and whole-call dialects: keyed blocks, signatures, opaque
//! reasoning, annotations, and tool calls that are final before their choice finishes.

use serde_json::Value;

use super::{Pending, ResponseState};
use crate::delta::{BlockKey, TextKind};
use crate::error::{Error, ErrorKind};

impl ResponseState {
    pub(super) fn append_keyed_text(
        &mut self,
        index: u32,
        key: BlockKey,
        kind: TextKind,
        text: &str,
    ) -> Result<(), Error> {
        self.append_with(kind, index, text, |message| {
            message.append_keyed(kind, key, text)
        })
    }

    pub(super) fn set_signature(
        &mut self,
        index: u32,
        key: Option<BlockKey>,
        signature: &str,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        if signature.is_empty() {
            return Ok(());
        }
        self.count_bytes(signature.len())?;
        self.choices[choice].set_signature(key, signature);
        Ok(())
    }

    pub(super) fn set_reasoning_data(
        &mut self,
        index: u32,
        key: Option<BlockKey>,
        data: &str,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        if data.is_empty() {
            return Ok(());
        }
        self.count_bytes(data.len())?;
        self.choices[choice].set_reasoning_data(key, data);
        Ok(())
    }

    pub(super) fn set_reasoning_extra(
        &mut self,
        index: u32,
        key: Option<BlockKey>,
        name: &str,
        value: Value,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        self.count_bytes(name.len() + json_size(&value))?;
        self.choices[choice].set_reasoning_extra(key, name, value);
        Ok(())
    }

    pub(super) fn annotate(
        &mut self,
        index: u32,
        key: Option<BlockKey>,
        value: Value,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        self.count_bytes(json_size(&value))?;
        self.choices[choice].annotate(key, value);
        Ok(())
    }

    /// A tool call sent whole: a new call, given an id if it has none, and final at once.
    pub(super) fn whole_tool_call(
        &mut self,
        index: u32,
        id: Option<&str>,
        name: &str,
        arguments: &str,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        if self.choices[choice].tool_call_count() >= self.limits.max_tool_calls {
            return Err(too_many_tool_calls(self.limits.max_tool_calls));
        }
        self.count_bytes(arguments.len())?;
        let message = &mut self.choices[choice];
        let block = message.start_tool_call(None);
        message.touch_tool_call(message.tool_call_count() - 1);
        if let Some(call) = message.tool_call_mut(block) {
            call.absorb_identity(id, Some(name));
            call.arguments.push_str(arguments);
        }
        message.assign_missing_id(block);
        self.queue(Pending::ToolStarted { choice, block });
        if !arguments.is_empty() {
            self.queue(Pending::ToolArguments {
                choice,
                block,
                start: 0,
                end: arguments.len(),
            });
        }
        self.finish_tool_call(choice, block);
        Ok(())
    }

    /// The block of the tool call keyed `index` ended: its arguments are parsed now. Whole
    /// arguments repeated by the provider win over the fragments; when they extend them, the
    /// missing end is streamed as one more delta.
    pub(super) fn end_tool_call(
        &mut self,
        index: u32,
        provider_index: u32,
        arguments: Option<&str>,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        let message = &mut self.choices[choice];
        let Some(position) = message.find_tool_call(Some(provider_index), None) else {
            return Ok(());
        };
        let block = message.touch_tool_call(position);
        if message
            .tool_call(block)
            .is_none_or(|call| call.finished.is_some())
        {
            return Ok(());
        }
        if let Some(full) = arguments {
            let streamed = message
                .tool_call(block)
                .map_or(0, |call| call.arguments().len());
            let current = message.tool_call(block).map_or("", |call| call.arguments());
            if full != current {
                let extends = full.starts_with(current);
                self.count_bytes(full.len().saturating_sub(streamed))?;
                if let Some(call) = self.choices[choice].tool_call_mut(block) {
                    if extends {
                        call.arguments.push_str(&full[streamed..]);
                    } else {
                        call.arguments = crate::assemble::PartialJson::new();
                        call.arguments.push_str(full);
                    }
                }
                if extends {
                    self.queue(Pending::ToolArguments {
                        choice,
                        block,
                        start: streamed,
                        end: full.len(),
                    });
                }
            }
        }
        self.choices[choice].assign_missing_id(block);
        self.finish_tool_call(choice, block);
        Ok(())
    }

    fn finish_tool_call(&mut self, choice: usize, block: usize) {
        if let Some(call) = self.choices[choice].tool_call_mut(block) {
            call.finish();
            self.queue(Pending::ToolFinished { choice, block });
        }
    }
}

/// The size of a provider value as JSON text, counted against `max_message_bytes` like text.
pub(super) fn json_size(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |text| text.len())
}

fn too_many_tool_calls(max: usize) -> Error {
    Error::new(
        ErrorKind::LimitExceeded,
        format!("more than {max} tool calls in one message (max_tool_calls)"),
    )
}
