//! The fold's tool-call deltas: a streamed fragment, a call sent whole, the end of a keyed
//! call, and finishing every open call of a choice, each queuing its events.

use super::super::event_queue::Queued;
use super::super::tool_calls::{Closing, ToolCallsMut};
use super::ResponseState;
use crate::delta::ToolCallDelta;
use crate::error::Error;

impl ResponseState {
    /// A streamed tool-call fragment: the call it continues (or a new one), then its arguments.
    pub(super) fn tool_call_fragment(&mut self, delta: ToolCallDelta<'_>) -> Result<(), Error> {
        let choice = self.choice(delta.choice)?;
        let mut calls = ToolCallsMut::of(&mut self.choices[choice]);
        let (block, opened) = calls.fragment(
            delta.index,
            delta.id,
            delta.name,
            self.max_tool_calls,
            &mut self.budget,
        )?;
        if opened {
            self.events.push(Queued::ToolStarted { choice, block });
        }
        if delta.arguments.is_empty() {
            return Ok(());
        }
        let Some((start, end)) = ToolCallsMut::of(&mut self.choices[choice]).append_arguments(
            block,
            delta.arguments,
            &mut self.budget,
        )?
        else {
            return Ok(());
        };
        self.events.push(Queued::ToolArguments {
            choice,
            block,
            start,
            end,
        });
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
        let mut calls = ToolCallsMut::of(&mut self.choices[choice]);
        let block = calls.whole(id, name, arguments, self.max_tool_calls, &mut self.budget)?;
        calls.finish(block, &mut self.budget);
        self.events.push(Queued::ToolStarted { choice, block });
        if !arguments.is_empty() {
            self.events.push(Queued::ToolArguments {
                choice,
                block,
                start: 0,
                end: arguments.len(),
            });
        }
        self.events.push(Queued::ToolFinished { choice, block });
        Ok(())
    }

    /// A provider field that must travel with a tool call (keyed `index`, or the last one).
    pub(super) fn tool_call_extra(
        &mut self,
        choice: u32,
        index: Option<u32>,
        name: &str,
        value: serde_json::Value,
    ) -> Result<(), Error> {
        let choice = self.choice(choice)?;
        ToolCallsMut::of(&mut self.choices[choice]).set_extra(index, name, value, &mut self.budget)
    }

    /// The block of the tool call keyed `provider_index` ended: its arguments are parsed now,
    /// after whole arguments repeated by the provider are taken in.
    pub(super) fn end_tool_call(
        &mut self,
        index: u32,
        provider_index: u32,
        arguments: Option<&str>,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        let mut calls = ToolCallsMut::of(&mut self.choices[choice]);
        let Some(block) = calls.keyed(provider_index) else {
            return Ok(());
        };
        if calls.is_finished(block) {
            return Ok(());
        }
        let whole = match arguments {
            Some(full) => calls.take_whole_arguments(block, full, &mut self.budget)?,
            None => None,
        };
        let held = calls.finish(block, &mut self.budget);
        for (start, end) in whole.into_iter().chain(held) {
            self.events.push(Queued::ToolArguments {
                choice,
                block,
                start,
                end,
            });
        }
        self.events.push(Queued::ToolFinished { choice, block });
        Ok(())
    }

    /// Before the next event is read: an argument delta shows its call's arguments completed,
    /// so the text pushed since is scanned now, in place (a read through the snapshot would scan
    /// a copy of the scan state, its container stack, for every delta).
    pub(super) fn catch_up_next_arguments(&mut self) {
        if let Some(Queued::ToolArguments { choice, block, .. }) = self.events.front() {
            self.choices[choice].catch_up_arguments(block);
        }
    }

    /// Parses the arguments of every unfinished tool call of a choice, once.
    pub(super) fn finish_tool_calls(&mut self, choice: usize) {
        let events = &mut self.events;
        ToolCallsMut::of(&mut self.choices[choice]).finish_open(&mut self.budget, |closing| {
            match closing {
                Closing::Shown {
                    block,
                    range: (start, end),
                } => events.push(Queued::ToolArguments {
                    choice,
                    block,
                    start,
                    end,
                }),
                Closing::Finished { block } => events.push(Queued::ToolFinished { choice, block }),
            }
        });
    }
}
