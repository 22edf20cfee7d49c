//! Finding a member by its object and key, the merge's one lookup per member sent: a bit per
//! key fingerprint answers "new" without a search, a hint tries the member after the last one
//! found first (running totals repeat their keys in order), a scan serves small objects and a
//! hash index of positions the rest. Apart from the merge rules in `mod.rs`, which only ask it.

use super::{member_key, Member, ProviderUsage};
use crate::message::key_index::KeyIndex;

/// Members looked up by a scan, under which no hash index is kept.
const SCANNED: usize = 16;

impl ProviderUsage {
    /// The member under `key` of object `parent`.
    pub(super) fn find(&mut self, parent: u32, key: &str) -> Option<usize> {
        let matches = |members: &[Member], text: &str, at: usize| {
            let member = &members[at];
            member.parent == parent && member_key(text, member) == key
        };
        if self.fingerprints & fingerprint(parent, key) == 0 {
            return None;
        }
        if self.hint < self.members.len() && matches(&self.members, &self.text, self.hint) {
            self.hint += 1;
            return Some(self.hint - 1);
        }
        let found = match &self.index {
            None => (0..self.members.len()).find(|at| matches(&self.members, &self.text, *at)),
            Some(index) => index
                .candidates((parent, key))
                .find(|at| matches(&self.members, &self.text, *at)),
        }?;
        self.hint = found + 1;
        Some(found)
    }

    pub(super) fn index_member(&mut self, at: u32) {
        match &mut self.index {
            None if self.members.len() > SCANNED => self.rebuild_index(),
            None => {}
            Some(index) => {
                let (text, members) = (&self.text, &self.members);
                index.insert(at as usize, |at| member_id(text, members, at))
            }
        }
    }

    pub(super) fn rebuild_index(&mut self) {
        self.index = Some(Box::new(KeyIndex::of(self.members.len(), |at| {
            member_id(&self.text, &self.members, at)
        })));
    }
}

/// The bit of [`ProviderUsage::fingerprints`] for the member `key` of object `parent`: from its
/// length and its first and last bytes, which tell apart most keys of a usage object.
pub(super) fn fingerprint(parent: u32, key: &str) -> u64 {
    let bytes = key.as_bytes();
    let ends = match bytes {
        [] => 0,
        [first, .., last] => u64::from(*first) << 8 | u64::from(*last),
        [only] => u64::from(*only),
    };
    let mixed = (u64::from(parent) << 24 | (bytes.len() as u64) << 16 | ends)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    1 << (mixed >> 58)
}

/// What the index finds member `at` by: its object and its key.
fn member_id<'t>(text: &'t str, members: &[Member], at: usize) -> (u32, &'t str) {
    let member = &members[at];
    (member.parent, member_key(text, member))
}
