//! The hash index of a large usage object: (object, key) to member, so that merging a report
//! of new keys costs one lookup a member, not a scan.

use std::hash::{BuildHasher, RandomState};

use super::{member_key, Member};

/// An open-addressing table of member positions by the hash of (object, key): 4 bytes a slot,
/// at most three quarters full, keys compared by the caller. A `HashMap<u32, u32>` of hashes
/// took 9 bytes a slot at seven eighths, more than the members' own text for short keys.
#[derive(Clone)]
pub(super) struct Index {
    hasher: RandomState,
    /// A member's position plus one in the slot its hash leads to, or the next free one after
    /// it; 0 is free. A power of two long.
    slots: Vec<u32>,
    filled: usize,
}

impl Index {
    /// The index of every member of `members`.
    pub(super) fn of(text: &str, members: &[Member]) -> Index {
        Index::keyed(RandomState::new(), text, members)
    }

    fn keyed(hasher: RandomState, text: &str, members: &[Member]) -> Index {
        let mut index = Index {
            hasher,
            slots: vec![0; slots_for(members.len())],
            filled: 0,
        };
        for (at, member) in members.iter().enumerate() {
            index.place(text, member, at as u32);
        }
        index
    }

    /// The members that may be `key` of object `parent`, in the order probed: the caller
    /// compares their keys and stops at its own.
    pub(super) fn candidates(&self, parent: u32, key: &str) -> impl Iterator<Item = usize> + '_ {
        let mask = self.slots.len() - 1;
        let start = self.hash(parent, key) & mask;
        (0..self.slots.len())
            .map(move |step| self.slots[(start + step) & mask])
            .take_while(|slot| *slot != 0)
            .map(|slot| slot as usize - 1)
    }

    /// Adds the member at `at` (the last of `members`), growing the table once it would be
    /// more than three quarters full.
    pub(super) fn insert(&mut self, text: &str, members: &[Member], at: u32) {
        if (self.filled + 1) * 4 > self.slots.len() * 3 {
            *self = Index::keyed(self.hasher.clone(), text, &members[..at as usize]);
        }
        self.place(text, &members[at as usize], at);
    }

    fn place(&mut self, text: &str, member: &Member, at: u32) {
        let mask = self.slots.len() - 1;
        let mut slot = self.hash(member.parent, member_key(text, member)) & mask;
        while self.slots[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = at + 1;
        self.filled += 1;
    }

    fn hash(&self, parent: u32, key: &str) -> usize {
        self.hasher.hash_one((parent, key)) as usize
    }
}

/// Slots for `members` members and as many again to come: at most half full when built.
fn slots_for(members: usize) -> usize {
    (members.max(16) * 2).next_power_of_two()
}
