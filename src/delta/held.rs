//! What a JSON value costs to hold: its entries (every value in its tree) and the bytes of its
//! strings, keys and scalars, measured in one walk without allocating. The assembler charges
//! both to its budget.

use serde_json::Value;

/// The cost of holding some JSON: `entries` values (each charged a fixed overhead) and `bytes`
/// of their text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Held {
    pub entries: usize,
    pub bytes: usize,
}

impl Held {
    /// What a value costs, its whole tree included; no recursion, so any depth is fine. Scalars
    /// are counted where they are met, so only nested containers wait on the (heap) stack: a
    /// flat object, like most usage reports, costs no allocation.
    pub(crate) fn of(value: &Value) -> Held {
        let mut held = Held::default();
        let mut pending: Vec<&Value> = Vec::new();
        let mut next = Some(value);
        while let Some(value) = next.take().or_else(|| pending.pop()) {
            held.entries += 1;
            held.bytes += match value {
                Value::Array(items) => {
                    for item in items {
                        held.child(item, &mut pending);
                    }
                    2 + items.len()
                }
                Value::Object(members) => {
                    for (key, member) in members {
                        held.bytes += key.len() + 4;
                        held.child(member, &mut pending);
                    }
                    2
                }
                scalar => scalar_bytes(scalar),
            };
        }
        held
    }

    /// Counts a scalar member now; leaves a container for later.
    fn child<'v>(&mut self, value: &'v Value, pending: &mut Vec<&'v Value>) {
        match value {
            Value::Array(_) | Value::Object(_) => pending.push(value),
            scalar => {
                self.entries += 1;
                self.bytes += scalar_bytes(scalar);
            }
        }
    }

    /// How many values a JSON text holds, counted on the text without parsing it (one pass, no
    /// allocation): one, plus one for each comma and for the first member of each container
    /// outside strings. So a value can be judged before `serde_json` builds its tree.
    pub(crate) fn entries_in_text(json: &str) -> usize {
        let bytes = json.as_bytes();
        let mut entries = 1;
        let mut at = 0;
        while at < bytes.len() {
            match bytes[at] {
                b'"' => {
                    at += 1;
                    let rest = |at: usize| bytes.get(at..).unwrap_or_default();
                    while let Some(offset) = memchr::memchr2(b'"', b'\\', rest(at)) {
                        at += offset + 1;
                        if bytes[at - 1] == b'"' {
                            break;
                        }
                        at += 1;
                    }
                    continue;
                }
                b',' => entries += 1,
                b'[' | b'{' => {
                    let next = bytes[at + 1..].iter().find(|b| !b.is_ascii_whitespace());
                    if !matches!(next, Some(b']' | b'}')) {
                        entries += 1;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        entries
    }

    /// One map key of `key` bytes holding `value`.
    pub(crate) fn of_member(key: &str, value: &Value) -> Held {
        let held = Held::of(value);
        Held {
            entries: held.entries,
            bytes: held.bytes + key.len(),
        }
    }
}

/// The bytes a scalar is charged.
fn scalar_bytes(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(text) => text.len() + 2,
        Value::Array(_) | Value::Object(_) => 0,
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
        // ab: 2 + 4, the array: 2 + 2 elements, two objects: 2 each, c: 1 + 4, "xyz": 5.
        assert_eq!(held.bytes, 6 + 4 + 4 + 5 + 5 + 2, "{held:?}");
    }

    #[test]
    fn the_entries_of_a_text_are_those_of_its_value() {
        for json in [
            r#"{"ab":[{},{}],"c":"xyz"}"#,
            r#"[ { } , [ ] , 1, "a,[{\"\\", {"k": [1, 2, {"x": null}]}]"#,
            "{}",
            "[]",
            "3",
            r#""a,b""#,
            "[[[[]]]]",
        ] {
            let value: Value = serde_json::from_str(json).unwrap();
            assert_eq!(
                Held::entries_in_text(json),
                Held::of(&value).entries,
                "{json}"
            );
        }
    }
}
