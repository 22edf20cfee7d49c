//! The fold of server-side tool activity: calls that open, stream their arguments and finish
//! under the provider's block key, and blocks that come whole (results, approval requests), each
//! charged to the budget and queued as its event.

use serde_json::{Map, Value};

use super::ResponseState;
use crate::assemble::budget::value_cost;
use crate::assemble::event_queue::Queued;
use crate::delta::BlockKey;
use crate::error::Error;
use crate::message::{ContentBlock, ServerToolCall, ServerToolStatus};

impl ResponseState {
    pub(super) fn server_tool_start(
        &mut self,
        index: u32,
        key: BlockKey,
        call: ServerToolCall,
    ) -> Result<(), Error> {
        let bytes = call.id.len() + call.name.len() + map_cost(&call.args) + map_cost(&call.extras);
        let block = self.charged(index, bytes)?.start_server_call(key, call);
        let choice = self.touched_choice();
        self.events
            .push(Queued::ServerToolStarted { choice, block });
        Ok(())
    }

    pub(super) fn server_tool_arguments(
        &mut self,
        index: u32,
        key: BlockKey,
        fragment: &str,
    ) -> Result<(), Error> {
        let message = self.charged(index, fragment.len())?;
        let Some((block, call)) = message.open_server_call(key) else {
            return Ok(());
        };
        let (start, end) = call.push_arguments(fragment);
        let choice = self.touched_choice();
        if start < end {
            self.events.push(Queued::ServerToolArguments {
                choice,
                block,
                start,
                end,
            });
        }
        Ok(())
    }

    pub(super) fn server_tool_end(
        &mut self,
        index: u32,
        key: BlockKey,
        args: Option<Map<String, Value>>,
        extras: Map<String, Value>,
    ) -> Result<(), Error> {
        let bytes = args.as_ref().map_or(0, map_cost) + map_cost(&extras);
        let message = self.charged(index, bytes)?;
        let Some((block, call)) = message.open_server_call(key) else {
            return Ok(());
        };
        call.finish(args, extras);
        message.close_server_call(key);
        let choice = self.touched_choice();
        self.events
            .push(Queued::ServerToolFinished { choice, block });
        Ok(())
    }

    /// A progress report of an open call: queued as its event, nothing held (a report for a
    /// call not open, or finished, is dropped).
    pub(super) fn server_tool_progress(
        &mut self,
        index: u32,
        key: BlockKey,
        status: ServerToolStatus,
    ) -> Result<(), Error> {
        let message = self.charged(index, 0)?;
        let Some((block, _)) = message.open_server_call(key) else {
            return Ok(());
        };
        let choice = self.touched_choice();
        self.events.push(Queued::ServerToolProgress {
            choice,
            block,
            status,
        });
        Ok(())
    }

    /// A partial image of an open call: it replaces the one before in place, so only the growth
    /// of the largest partial so far is charged, and the call holds one image however many come.
    pub(super) fn server_tool_partial_image(
        &mut self,
        index: u32,
        key: BlockKey,
        image: u32,
        format: Option<&str>,
        data: &str,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        let Some((block, call)) = self.choices[choice].open_server_call(key) else {
            return Ok(());
        };
        let growth = call.partial_image_growth(format, data);
        self.budget.charge(growth)?;
        call.set_partial_image(image, format, data);
        self.events
            .push(Queued::ServerToolPartialImage { choice, block });
        Ok(())
    }

    /// A block sent whole; results and approval requests are queued as their events.
    pub(super) fn whole_block(&mut self, index: u32, block: ContentBlock) -> Result<(), Error> {
        let queued = matches!(
            block,
            ContentBlock::ServerToolResult(_) | ContentBlock::ToolApprovalRequest(_)
        );
        let bytes = block_cost(&block);
        let block = self.charged(index, bytes)?.push_content(block);
        let choice = self.touched_choice();
        if queued {
            self.events.push(Queued::WholeBlock { choice, block });
        }
        Ok(())
    }

    /// The choice the delta being applied opened or found.
    pub(super) fn touched_choice(&self) -> usize {
        self.touched.unwrap_or(0)
    }
}

/// What holding a map costs: its keys and values, and an entry overhead per member.
fn map_cost(map: &Map<String, Value>) -> usize {
    map.iter()
        .map(|(key, value)| key.len() + value_cost(value))
        .sum::<usize>()
        + map.len() * crate::assemble::budget::ENTRY_OVERHEAD
}

/// What holding a whole block costs: its strings and provider values (the block's own slot is
/// charged as every block's is).
fn block_cost(block: &ContentBlock) -> usize {
    let text = |text: &Option<String>| text.as_ref().map_or(0, String::len);
    match block {
        ContentBlock::ServerToolResult(result) => {
            text(&result.id)
                + result.tool_call_id.len()
                + result.output.as_ref().map_or(0, value_cost)
                + map_cost(&result.extras)
        }
        ContentBlock::ToolApprovalRequest(request) => {
            request.id.len()
                + request.name.len()
                + text(&request.server_label)
                + map_cost(&request.args)
                + map_cost(&request.extras)
        }
        other => serde_json::to_value(other).map_or(0, |value| value_cost(&value)),
    }
}
