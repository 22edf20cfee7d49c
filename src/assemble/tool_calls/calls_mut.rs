//! Changing a message's tool calls: [`ToolCallsMut`] borrows the call table and the blocks the
//! calls live among together, so an id is set once and indexed, a call is opened only within
//! the limit, more argument text reopens a finished call, and a finished call always has an id.

use super::{PendingToolCall, ToolCallTable};
use crate::assemble::budget::ContentBudget;
use crate::assemble::partial_message::{PartialBlock, PartialMessage};
use crate::error::Error;

/// A message's tool-call table and its blocks, borrowed together: the calls live among the
/// blocks, the table says where.
/// What finishing the open calls of a choice does, in order (see
/// [`ToolCallsMut::finish_open`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Closing {
    /// The call at `block` adds this byte range of its arguments, held back until now.
    Shown { block: usize, range: (usize, usize) },
    /// The call at `block` is finished.
    Finished { block: usize },
}

pub(crate) struct ToolCallsMut<'m> {
    table: &'m mut ToolCallTable,
    blocks: &'m mut Vec<PartialBlock>,
}

impl<'m> ToolCallsMut<'m> {
    pub(crate) fn new(table: &'m mut ToolCallTable, blocks: &'m mut Vec<PartialBlock>) -> Self {
        ToolCallsMut { table, blocks }
    }

    /// The tool calls of `message`, to change them.
    pub(crate) fn of(message: &'m mut PartialMessage) -> Self {
        let (table, blocks) = message.tool_parts();
        Self::new(table, blocks)
    }

    /// The call a streamed fragment continues, or a new one: its block, and whether it was
    /// opened now. The fragment's id and name are taken if the call has none yet.
    pub(crate) fn fragment(
        &mut self,
        index: Option<u32>,
        id: Option<&str>,
        name: Option<&str>,
        max_tool_calls: usize,
        budget: &mut ContentBudget,
    ) -> Result<(usize, bool), Error> {
        let (position, opened) = match self.find(index, id) {
            Some(position) => (position, false),
            None => {
                self.table.ensure_room(max_tool_calls)?;
                (self.open(index), true)
            }
        };
        self.table.last = Some(position);
        self.absorb_identity(position, id, name, budget)?;
        Ok((self.table.blocks[position], opened))
    }

    /// A call sent whole: opened (its arguments charged first, so a refused call leaves no
    /// trace) with its id, name and arguments; returns its block. Finish it with
    /// [`finish`](Self::finish).
    pub(crate) fn whole(
        &mut self,
        id: Option<&str>,
        name: &str,
        arguments: &str,
        max_tool_calls: usize,
        budget: &mut ContentBudget,
    ) -> Result<usize, Error> {
        self.table.ensure_room(max_tool_calls)?;
        budget.charge(arguments.len())?;
        let position = self.open(None);
        self.table.last = Some(position);
        self.absorb_identity(position, id, Some(name), budget)?;
        let block = self.table.blocks[position];
        call_in(self.blocks, block).push_arguments(arguments);
        Ok(block)
    }

    /// The block of the call the provider keyed `index`, if there is one.
    pub(crate) fn keyed(&mut self, index: u32) -> Option<usize> {
        let position = self.find(Some(index), None)?;
        self.table.last = Some(position);
        Some(self.table.blocks[position])
    }

    /// Appends a streamed fragment of arguments — what it adds, when a host resends the whole
    /// text so far in each — charged to the budget; returns the byte range of the arguments a
    /// delta shows now (see [`PendingToolCall::show`]), `None` when there is none. A fragment
    /// after the call finished reopens it.
    pub(crate) fn append_arguments(
        &mut self,
        block: usize,
        fragment: &str,
        budget: &mut ContentBudget,
    ) -> Result<Option<(usize, usize)>, Error> {
        let call = call_in(self.blocks, block);
        let taken = call.take_fragment(fragment);
        budget.charge(taken.fresh())?;
        Ok(call.show(taken))
    }

    /// Whole arguments the provider repeats at the end of a call win over the fragments; returns
    /// the byte range of them still to show, to be streamed as one more delta.
    pub(crate) fn take_whole_arguments(
        &mut self,
        block: usize,
        full: &str,
        budget: &mut ContentBudget,
    ) -> Result<Option<(usize, usize)>, Error> {
        let call = call_in(self.blocks, block);
        budget.charge(full.len().saturating_sub(call.arguments().len()))?;
        Ok(call.take_whole_arguments(full))
    }

    /// Sets a provider field on the call keyed `index` (or, with `None`, the call the last
    /// fragment went to); the bytes are charged first. Nothing happens without such a call.
    pub(crate) fn set_extra(
        &mut self,
        index: Option<u32>,
        name: &str,
        value: serde_json::Value,
        budget: &mut ContentBudget,
    ) -> Result<(), Error> {
        let found = match index {
            Some(index) => self.find(Some(index), None),
            None => self.table.last,
        };
        if let Some(position) = found {
            budget.charge(name.len() + value.to_string().len())?;
            call_in(self.blocks, self.table.blocks[position]).set_extra(name, value);
        }
        Ok(())
    }

    pub(crate) fn is_finished(&self, block: usize) -> bool {
        matches!(&self.blocks[block], PartialBlock::ToolCall(call) if call.is_finished())
    }

    /// Finishes a call: gives it an id if the provider sent none, and parses its arguments
    /// (into a tree only if the budget has room for it). Returns the byte range of the
    /// arguments still to show as a delta (see [`PendingToolCall::finish`]).
    pub(crate) fn finish(
        &mut self,
        block: usize,
        budget: &mut ContentBudget,
    ) -> Option<(usize, usize)> {
        let call = call_in(self.blocks, block);
        if call.id().is_empty() {
            let id = self.table.generate_id();
            self.table.remember_id(&id, call.position() as usize);
            call.set_generated_id(id);
        }
        call.finish(budget)
    }

    /// Finishes every call not finished yet, in order, telling `closing` first the argument
    /// text each one held back and adds now, then each one's finish: a reader that writes a
    /// call whole from the snapshot at another's finish has seen every delta by then.
    pub(crate) fn finish_open(
        &mut self,
        budget: &mut ContentBudget,
        mut closing: impl FnMut(Closing),
    ) {
        let open: Vec<usize> = self
            .table
            .blocks
            .iter()
            .copied()
            .filter(|&block| !self.is_finished(block))
            .collect();
        for &block in &open {
            if let Some(range) = call_in(self.blocks, block).conclude(budget) {
                closing(Closing::Shown { block, range });
            }
        }
        for block in open {
            self.finish(block, budget);
            closing(Closing::Finished { block });
        }
    }

    /// Finds the call a fragment continues, or `None` when it starts a new one.
    ///
    /// Keyed by the provider's index; the same index with a different id is a new call (some
    /// providers put every parallel call on index 0). Without an index, a known id continues its
    /// call, a new id starts one, and no id continues the most recent call.
    fn find(&self, index: Option<u32>, id: Option<&str>) -> Option<usize> {
        let id = id.filter(|id| !id.is_empty());
        let found = match index {
            Some(index) => self
                .table
                .last
                .filter(|&position| self.call_at(position).provider_index() == Some(index))
                .or_else(|| self.table.by_index.get(&index).copied()),
            None => match id {
                Some(id) => self.table.by_id.get(id).copied(),
                None => self.table.last,
            },
        };
        found.filter(|&position| {
            id.is_none_or(|id| {
                let known = self.call_at(position).id();
                known.is_empty() || known == id
            })
        })
    }

    /// Opens a new call after the last one; returns its position. Callers check the limit.
    fn open(&mut self, provider_index: Option<u32>) -> usize {
        let position = self.table.blocks.len();
        self.blocks
            .push(PartialBlock::ToolCall(PendingToolCall::new(
                position as u32,
                provider_index,
            )));
        self.table.blocks.push(self.blocks.len() - 1);
        if let Some(index) = provider_index {
            self.table.by_index.insert(index, position);
        }
        position
    }

    /// Takes a fragment's id and name if the call has none yet, charged to the budget: twice
    /// (the streaming call and its finished block each hold them) and once more for an id,
    /// which is also a key of the table's index.
    fn absorb_identity(
        &mut self,
        position: usize,
        id: Option<&str>,
        name: Option<&str>,
        budget: &mut ContentBudget,
    ) -> Result<(), Error> {
        let call = call_in(self.blocks, self.table.blocks[position]);
        let (id_taken, name_taken) = call.absorb_identity(id, name);
        if id_taken > 0 {
            self.table.remember_id(call.id(), position);
        }
        budget.charge(3 * id_taken + 2 * name_taken)
    }

    fn call_at(&self, position: usize) -> &PendingToolCall {
        match &self.blocks[self.table.blocks[position]] {
            PartialBlock::ToolCall(call) => call,
            _ => unreachable!("the table points at tool-call blocks"),
        }
    }
}

fn call_in(blocks: &mut [PartialBlock], block: usize) -> &mut PendingToolCall {
    match &mut blocks[block] {
        PartialBlock::ToolCall(call) => call,
        _ => unreachable!("the table points at tool-call blocks"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn started(calls: &mut ToolCallsMut<'_>, index: Option<u32>, id: &str) -> usize {
        let position = calls.open(index);
        calls.table.last = Some(position);
        let mut budget = ContentBudget::new(usize::MAX);
        calls
            .absorb_identity(position, Some(id), None, &mut budget)
            .unwrap();
        position
    }

    #[test]
    fn same_index_with_a_new_id_is_a_new_call() {
        let (mut table, mut blocks) = (ToolCallTable::default(), Vec::new());
        let mut calls = ToolCallsMut::new(&mut table, &mut blocks);
        let first = started(&mut calls, Some(0), "a");
        assert_eq!(calls.find(Some(0), None), Some(first));
        assert_eq!(calls.find(Some(0), Some("a")), Some(first));
        assert_eq!(calls.find(Some(0), Some("b")), None);
        assert_eq!(calls.find(Some(1), None), None);
    }

    #[test]
    fn without_index_ids_decide_and_no_id_continues_the_latest() {
        let (mut table, mut blocks) = (ToolCallTable::default(), Vec::new());
        let mut calls = ToolCallsMut::new(&mut table, &mut blocks);
        let first = started(&mut calls, None, "a");
        let second = started(&mut calls, None, "b");
        assert_eq!(calls.find(None, None), Some(second));
        assert_eq!(calls.find(None, Some("a")), Some(first));
        assert_eq!(calls.find(None, Some("c")), None);
    }

    #[test]
    fn generated_ids_are_unique_within_the_message() {
        let (mut table, mut blocks) = (ToolCallTable::default(), Vec::new());
        let mut calls = ToolCallsMut::new(&mut table, &mut blocks);
        started(&mut calls, Some(0), "call_df_0");
        let position = calls.open(Some(1));
        calls.finish_open(&mut ContentBudget::new(usize::MAX), |_| {});
        assert_eq!(calls.call_at(position).id(), "call_df_1");
    }

    #[test]
    fn generated_ids_skip_ids_the_provider_sent_later() {
        let (mut table, mut blocks) = (ToolCallTable::default(), Vec::new());
        let mut calls = ToolCallsMut::new(&mut table, &mut blocks);
        let first = calls.open(Some(0));
        let mut budget = ContentBudget::new(usize::MAX);
        calls.finish(calls.table.blocks[first], &mut budget);
        started(&mut calls, Some(1), "call_df_1");
        let third = calls.open(Some(2));
        let mut finished = Vec::new();
        calls.finish_open(&mut budget, |closing| {
            if let Closing::Finished { block } = closing {
                finished.push(block);
            }
        });
        assert_eq!(calls.call_at(first).id(), "call_df_0");
        assert_eq!(calls.call_at(third).id(), "call_df_2");
        assert_eq!(finished, [1, 2], "only the calls still open, in order");
    }

    #[test]
    fn a_fragment_after_the_finish_reopens_the_call() {
        let (mut table, mut blocks) = (ToolCallTable::default(), Vec::new());
        let mut calls = ToolCallsMut::new(&mut table, &mut blocks);
        let mut budget = ContentBudget::new(usize::MAX);
        let (block, opened) = calls
            .fragment(Some(0), Some("a"), Some("f"), 8, &mut budget)
            .unwrap();
        assert!(opened);
        calls.append_arguments(block, "{}", &mut budget).unwrap();
        calls.finish(block, &mut budget);
        assert!(calls.is_finished(block));
        assert_eq!(
            calls.fragment(Some(0), None, None, 8, &mut budget).unwrap(),
            (block, false)
        );
        assert_eq!(
            calls.append_arguments(block, " ", &mut budget).unwrap(),
            Some((2, 3))
        );
        assert!(!calls.is_finished(block));
    }

    #[test]
    fn the_limit_holds_for_streamed_and_whole_calls_alike() {
        let (mut table, mut blocks) = (ToolCallTable::default(), Vec::new());
        let mut calls = ToolCallsMut::new(&mut table, &mut blocks);
        let mut budget = ContentBudget::new(usize::MAX);
        calls
            .fragment(Some(0), Some("a"), None, 1, &mut budget)
            .unwrap();
        let streamed = calls
            .fragment(Some(1), Some("b"), None, 1, &mut budget)
            .unwrap_err();
        let whole = calls.whole(None, "f", "{}", 1, &mut budget).unwrap_err();
        assert_eq!(streamed.to_string(), whole.to_string());
        assert_eq!(whole.kind(), ErrorKind::LimitExceeded);
        assert_eq!(calls.table.blocks().len(), 1);
    }
}
