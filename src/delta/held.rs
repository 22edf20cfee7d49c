//! What a JSON value costs to hold: its entries (every value in its tree) and the bytes of its
//! strings, keys and scalars, measured in one walk without allocating. The assembler charges
//! both to its budget; the usage fold reports them for the keys it adds.

use serde_json::Value;

/// The cost of holding some JSON: `entries` values (each charged a fixed overhead) and `bytes`
/// of their text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Held {
    pub entries: usize,
    pub bytes: usize,
}

impl Held {
    /// What a value costs, its whole tree included; no recursion, so any depth is fine.
    pub(crate) fn of(value: &Value) -> Held {
        let mut held = Held::default();
        let mut pending = vec![value];
        while let Some(value) = pending.pop() {
            held.entries += 1;
            held.bytes += match value {
                Value::Null | Value::Bool(_) => 5,
                Value::Number(_) => 8,
                Value::String(text) => text.len() + 2,
                Value::Array(items) => {
                    pending.extend(items);
                    2 + items.len()
                }
                Value::Object(members) => {
                    for (key, member) in members {
                        held.bytes += key.len() + 4;
                        pending.push(member);
                    }
                    2
                }
            };
        }
        held
    }

    /// One map key of `key` bytes holding `value`.
    pub(crate) fn of_member(key: &str, value: &Value) -> Held {
        let held = Held::of(value);
        Held {
            entries: held.entries,
            bytes: held.bytes + key.len(),
        }
    }

    /// Both costs together.
    pub(crate) fn add(&mut self, other: Held) {
        self.entries += other.entries;
        self.bytes += other.bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_of_the_tree_is_an_entry() {
        let value: Value = serde_json::from_str(r#"{"ab":[{},{}],"c":"xyz"}"#).unwrap();
        let held = Held::of(&value);
        assert_eq!(held.entries, 5);
        assert!(held.bytes >= "abcxyz".len(), "{held:?}");
    }
}
