//! The tool calls of one message: which block holds each call, how a fragment finds the call it
//! continues, the `max_tool_calls` limit, ids (generated `call_df_<n>` ones too) and finishing.
//!
//! Every change to a call goes through [`ToolCallsMut`] (`calls_mut.rs`), so the invariants hold without the
//! fold's help: an id is set once and indexed, a call is opened only within the limit, more
//! argument text reopens a finished call, and a finished call always has an id.

use std::collections::HashMap;

use crate::error::{Error, ErrorKind};

mod accumulation;
mod calls_mut;
#[cfg(not(feature = "arbitrary_precision"))]
mod exact;
mod pending;

pub(crate) use calls_mut::{Closing, ToolCallsMut};
pub use pending::PendingToolCall;

/// Where a message's tool calls are among its blocks, with the indexes that find them in O(1).
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolCallTable {
    /// Block of each call, by position.
    blocks: Vec<usize>,
    /// Position of the call the last fragment went to.
    last: Option<usize>,
    /// The latest call under each index the provider keyed calls by.
    by_index: HashMap<u32, usize>,
    /// The latest call with each id, generated ones included.
    by_id: HashMap<String, usize>,
    /// Where the search for a free `call_df_<n>` resumes: every lower `n` is taken.
    next_generated: usize,
}

impl ToolCallTable {
    /// The block of each call, in order of first appearance.
    pub(crate) fn blocks(&self) -> &[usize] {
        &self.blocks
    }

    /// The one place `max_tool_calls` is checked.
    fn ensure_room(&self, max_tool_calls: usize) -> Result<(), Error> {
        if self.blocks.len() >= max_tool_calls {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("more than {max_tool_calls} tool calls in one message (max_tool_calls)"),
            ));
        }
        Ok(())
    }

    /// Indexes an id just set; with two calls of one id, the later one is found.
    fn remember_id(&mut self, id: &str, position: usize) {
        match self.by_id.get_mut(id) {
            Some(latest) => *latest = (*latest).max(position),
            None => {
                self.by_id.insert(id.to_owned(), position);
            }
        }
    }

    /// The first `call_df_<n>` no call of the message uses. Ids are never unset, so the search
    /// resumes where the last one stopped.
    fn generate_id(&mut self) -> String {
        loop {
            let candidate = format!("call_df_{}", self.next_generated);
            self.next_generated += 1;
            if !self.by_id.contains_key(&candidate) {
                return candidate;
            }
        }
    }
}
