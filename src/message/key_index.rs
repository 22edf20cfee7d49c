//! `KeyIndex`: a hash index from a key to the positions of a list's items, so that merging many
//! new keys costs one lookup a key, not a scan of those before it. Used by the usage and log
//! probabilities objects, which hold their members in a list (the order first sent) and look
//! them up by key.

use std::hash::{BuildHasher, Hash, RandomState};

/// An open-addressing table of item positions by the hash of their key: 4 bytes a slot, at most
/// three quarters full, keys held and compared by the caller (the index keeps no copy). A
/// `HashMap<u32, u32>` of hashes took 9 bytes a slot at seven eighths, more than the items' own
/// text for short keys.
#[derive(Debug, Clone)]
pub(super) struct KeyIndex {
    hasher: RandomState,
    /// An item's position plus one in the slot its hash leads to, or the next free one after
    /// it; 0 is free. A power of two long.
    slots: Vec<u32>,
    filled: usize,
}

impl KeyIndex {
    /// The index of the first `len` items, whose keys `key_at` gives by position.
    pub(super) fn of<K: Hash>(len: usize, key_at: impl Fn(usize) -> K) -> KeyIndex {
        KeyIndex::keyed(RandomState::new(), len, key_at)
    }

    fn keyed<K: Hash>(hasher: RandomState, len: usize, key_at: impl Fn(usize) -> K) -> KeyIndex {
        let mut index = KeyIndex {
            hasher,
            slots: vec![0; slots_for(len)],
            filled: 0,
        };
        for at in 0..len {
            index.place(&key_at(at), at);
        }
        index
    }

    /// The items that may have `key`, in the order probed: the caller compares their keys and
    /// stops at its own.
    pub(super) fn candidates<K: Hash>(&self, key: K) -> impl Iterator<Item = usize> + '_ {
        let mask = self.slots.len() - 1;
        let start = self.hash(&key) & mask;
        (0..self.slots.len())
            .map(move |step| self.slots[(start + step) & mask])
            .take_while(|slot| *slot != 0)
            .map(|slot| slot as usize - 1)
    }

    /// Adds the item at `at`, the one after those indexed so far, growing the table (from every
    /// key before it, by `key_at`) once it would be more than three quarters full.
    pub(super) fn insert<K: Hash>(&mut self, at: usize, key_at: impl Fn(usize) -> K) {
        if (self.filled + 1) * 4 > self.slots.len() * 3 {
            *self = KeyIndex::keyed(self.hasher.clone(), at, &key_at);
        }
        self.place(&key_at(at), at);
    }

    fn place<K: Hash>(&mut self, key: &K, at: usize) {
        let mask = self.slots.len() - 1;
        let mut slot = self.hash(key) & mask;
        while self.slots[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        // Items are counted in `u32`: their text is bounded by the message budget.
        self.slots[slot] = at as u32 + 1;
        self.filled += 1;
    }

    fn hash<K: Hash>(&self, key: &K) -> usize {
        self.hasher.hash_one(key) as usize
    }
}

/// Slots for `len` items and as many again to come: at most half full when built.
fn slots_for(len: usize) -> usize {
    (len.max(16) * 2).next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key is found among few candidates, however many there are: the probes for all of
    /// them stay a small multiple of their number.
    #[test]
    fn keys_are_found_in_a_few_probes() {
        let keys: Vec<String> = (0..50_000).map(|k| format!("k{k}")).collect();
        let mut index = KeyIndex::of(0, |at| keys[at].as_str());
        for at in 0..keys.len() {
            index.insert(at, |at| keys[at].as_str());
        }
        let mut probes = 0;
        for (at, key) in keys.iter().enumerate() {
            let found = index
                .candidates(key.as_str())
                .inspect(|_| probes += 1)
                .find(|candidate| keys[*candidate] == *key);
            assert_eq!(found, Some(at));
        }
        assert!(
            probes <= 3 * keys.len(),
            "{probes} probes for {} keys",
            keys.len()
        );
    }
}
