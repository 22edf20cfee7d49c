//! `KeyIndex`: a hash index from a key to the positions of a list's items, so that merging many
//! new keys costs one lookup a key, not a scan of those before it. Used by the usage and log
//! probabilities objects, which hold their members in a list (the order first sent) and look
//! them up by key.

use std::hash::{BuildHasher, Hash, RandomState};

use hashbrown::HashTable;

/// A table of item positions by the hash of their key, keys held and compared by the caller
/// (the index keeps no copy): `hashbrown`'s table for keys held outside it, 4 bytes and a
/// control byte a slot. A `HashMap<u32, u32>` of hashes took 9 bytes a slot, more than the
/// items' own text for short keys.
#[derive(Debug, Clone)]
pub(super) struct KeyIndex {
    hasher: RandomState,
    positions: HashTable<u32>,
}

impl KeyIndex {
    /// The index of the first `len` items, whose keys `key_at` gives by position.
    pub(super) fn of<K: Hash>(len: usize, key_at: impl Fn(usize) -> K) -> KeyIndex {
        let mut index = KeyIndex {
            hasher: RandomState::new(),
            positions: HashTable::with_capacity(len),
        };
        for at in 0..len {
            index.insert(at, &key_at);
        }
        index
    }

    /// The items that may have `key`: the caller compares their keys and stops at its own.
    pub(super) fn candidates<K: Hash>(&self, key: K) -> impl Iterator<Item = usize> + '_ {
        let hash = self.hasher.hash_one(key);
        self.positions.iter_hash(hash).map(|&at| at as usize)
    }

    /// Adds the item at `at`; a growing table rehashes the keys before it, by `key_at`.
    pub(super) fn insert<K: Hash>(&mut self, at: usize, key_at: impl Fn(usize) -> K) {
        let hasher = &self.hasher;
        let hash = hasher.hash_one(key_at(at));
        // Items are counted in `u32`: their text is bounded by the message budget.
        self.positions.insert_unique(hash, at as u32, |&position| {
            hasher.hash_one(key_at(position as usize))
        });
    }
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
