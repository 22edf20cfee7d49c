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

/// Whether a provider value or tool arguments of `entries` values in `text_bytes` of JSON would hold too much as
/// a tree of `serde_json::Value`s (more than [`DENSE_PER_BYTE`] times its text, past a
/// [`DENSE_ALLOWANCE`]): a value of tiny members (two million `{}` in 6 MB would be about 160 MB
/// of values) is kept as its text instead, so what one event holds stays a few times its size.
pub(crate) fn too_dense_to_parse(entries: usize, text_bytes: usize) -> bool {
    entries.saturating_mul(ENTRY_OVERHEAD)
        > text_bytes
            .saturating_mul(DENSE_PER_BYTE)
            .saturating_add(DENSE_ALLOWANCE)
}

/// How many times its text a provider value may hold once parsed.
const DENSE_PER_BYTE: usize = 8;

/// What any provider value may hold once parsed, however dense: an ordinary field, or tool
/// arguments of a few thousand numbers, is never judged; small enough that what a stream of
/// small events holds stays within a few times its size.
const DENSE_ALLOWANCE: usize = 256 * 1024;

/// Bytes held so far against the limit.
#[derive(Debug)]
pub(crate) struct ContentBudget {
    used: usize,
    max: usize,
}

impl ContentBudget {
    pub(crate) fn new(max_message_bytes: usize) -> Self {
        ContentBudget {
            used: 0,
            max: max_message_bytes,
        }
    }

    /// Counts `bytes` more; an error once the total exceeds the limit.
    #[inline]
    /// What is counted so far.
    pub(crate) fn used(&self) -> usize {
        self.used
    }

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
        self.charge(
            held.entries
                .saturating_mul(ENTRY_OVERHEAD)
                .saturating_add(held.bytes),
        )
    }
}

/// What holding a provider value costs: its bytes plus the overhead of each of its entries.
pub(crate) fn value_cost(value: &Value) -> usize {
    let held = Held::of(value);
    held.bytes
        .saturating_add(held.entries.saturating_mul(ENTRY_OVERHEAD))
}
