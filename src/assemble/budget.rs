//! The byte budget of one response: everything the assembler holds for it — text, reasoning,
//! refusal, tool arguments, ids and names, finish reasons, provider values, warnings — plus a
//! fixed overhead for every item it allocates (a block, a list entry, a map key), checked against
//! `max_message_bytes` so that the limit bounds the memory actually held. The overheads of a
//! block and a choice, which are the sizes of the types that hold them, are in `overhead.rs`.

use std::mem::size_of;

use serde_json::Value;

use crate::delta::Held;
use crate::error::{Error, ErrorKind};

/// What one entry of a list or map costs beyond its bytes (a logprobs entry, a usage key, an
/// extra, a reasoning-details entry, an annotation, a warning): a JSON value, a key and the
/// map's index slots.
pub(crate) const ENTRY_OVERHEAD: usize = size_of::<Value>() + size_of::<String>() + 16;

/// What a tree of `entries` values over `text_bytes` of JSON would hold once parsed into
/// `serde_json::Value`s: each entry's fixed overhead and the text its strings copy.
pub(crate) fn tree_cost(entries: usize, text_bytes: usize) -> usize {
    entries
        .saturating_mul(ENTRY_OVERHEAD)
        .saturating_add(text_bytes)
}

/// How many times everything else the response holds its parsed provider values and tool
/// arguments may hold together, past the [`DENSE_ALLOWANCE`]: a response of many values of tiny
/// members (dense Gemini arguments in every call: `{}` is 3 bytes of text and 72–112 of
/// values) stays within a few times its size.
const DENSE_PER_HELD: usize = 2;

/// What the parsed values of any response may hold, however dense (but never more than its
/// limit): ordinary fields, and tool arguments of tens of thousands of short values (about
/// 110 bytes each parsed: 30,000 numbers, 16,000 strings of 89 bytes), are never judged.
/// At 256 KiB such arguments were refused as an invalid call; 8 MiB is an eighth of the
/// constant the issue-25 bound allows (8 × input + 64 MiB).
const DENSE_ALLOWANCE: usize = 8 * 1024 * 1024;

/// Bytes held so far against the limit.
#[derive(Debug)]
pub(crate) struct ContentBudget {
    used: usize,
    /// The part of `used` that parsed trees hold (provider values, tool arguments).
    parsed: usize,
    max: usize,
}

impl ContentBudget {
    pub(crate) fn new(max_message_bytes: usize) -> Self {
        ContentBudget {
            used: 0,
            parsed: 0,
            max: max_message_bytes,
        }
    }

    /// What is counted so far.
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    /// Counts `bytes` more; an error once the total exceeds the limit.
    #[inline]
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), Error> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.max {
            return Err(self.exceeded());
        }
        Ok(())
    }

    #[cold]
    fn exceeded(&self) -> Error {
        Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the message holds more than {} bytes (max_message_bytes: text, arguments, ids, \
                 names and provider values, plus a fixed overhead per choice, block and entry)",
                self.max
            ),
        )
    }

    /// Counts what holding some JSON costs: its bytes and an overhead per entry.
    pub(crate) fn charge_held(&mut self, held: Held) -> Result<(), Error> {
        self.charge(tree_cost(held.entries, held.bytes))
    }
}

impl ContentBudget {
    /// Whether a tree that would hold `cost` bytes ([`tree_cost`], judged on the text before
    /// anything is built) may be parsed now: within the limit, and with the trees parsed so far
    /// within [`DENSE_ALLOWANCE`] (at most the limit) plus [`DENSE_PER_HELD`] times everything
    /// else held. The room is the response's, not each value's: many dense values, each small,
    /// add up (issue 25: dense Gemini arguments in every call held 27 times their input).
    pub(crate) fn room_to_parse(&self, cost: usize) -> bool {
        let rest = self.used.saturating_sub(self.parsed);
        let room = DENSE_ALLOWANCE
            .min(self.max)
            .saturating_add(rest.saturating_mul(DENSE_PER_HELD));
        self.used.saturating_add(cost) <= self.max && self.parsed.saturating_add(cost) <= room
    }

    /// Counts a parsed tree: charged to the limit (an error past it) and to the parsed trees'
    /// room.
    pub(crate) fn charge_tree(&mut self, held: Held) -> Result<(), Error> {
        let cost = tree_cost(held.entries, held.bytes);
        self.parsed = self.parsed.saturating_add(cost);
        self.charge(cost)
    }
}

/// What holding a provider value costs: its bytes plus the overhead of each of its entries.
pub(crate) fn value_cost(value: &Value) -> usize {
    let held = Held::of(value);
    tree_cost(held.entries, held.bytes)
}
