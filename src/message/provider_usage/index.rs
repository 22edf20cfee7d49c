//! The hash index of a large usage object: (object, key) to member, so that merging a report
//! of new keys costs one lookup a member, not a scan.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

use super::{member_key, Member};

/// A hash of (object, key) to its member. A hash shared by two keys (one in four billion) keeps
/// the first in `slots`, the others in `shared`, which is scanned when the first does not match.
#[derive(Clone, Default)]
pub(super) struct Index {
    hasher: RandomState,
    slots: HashMap<u32, u32>,
    shared: Vec<u32>,
}

impl Index {
    pub(super) fn with_capacity(members: usize) -> Index {
        Index {
            slots: HashMap::with_capacity(members),
            ..Index::default()
        }
    }

    /// The members that may be `key` of object `parent`: the one in its hash's slot, then,
    /// if there is one, those sharing a hash with another.
    pub(super) fn candidates(&self, parent: u32, key: &str) -> impl Iterator<Item = usize> + '_ {
        let slot = self.slots.get(&self.hash(parent, key)).copied();
        let shared = if slot.is_some() {
            &self.shared[..]
        } else {
            &[]
        };
        slot.into_iter()
            .chain(shared.iter().copied())
            .map(|at| at as usize)
    }

    pub(super) fn insert(&mut self, text: &str, member: &Member, at: u32) {
        let hash = self.hash(member.parent, member_key(text, member));
        match self.slots.entry(hash) {
            Entry::Occupied(_) => self.shared.push(at),
            Entry::Vacant(slot) => {
                slot.insert(at);
            }
        }
    }

    fn hash(&self, parent: u32, key: &str) -> u32 {
        // The low bits of SipHash: a u32 key keeps a slot at 8 bytes.
        self.hasher.hash_one((parent, key)) as u32
    }
}
