//! `Logprobs`: a response's log probabilities, kept as compact JSON text rather than parsed
//! values. A stream may send millions of entries, and a parsed `serde_json::Value` costs 32 to
//! 80 bytes each plus its map slots (an empty `{}` entry, three bytes in, held 27–53 times
//! that); the text costs what came. Entries are parsed when asked for.

use std::fmt::Write as _;

use serde::de::Deserializer;
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Log probabilities, as `{"content": [...], "refusal": [...]}` with every streamed entry
/// appended in order; it serialises to that object. Read a list with [`get`](Self::get) or the
/// whole object with [`to_map`](Self::to_map).
#[derive(Debug, Clone, Default)]
pub struct Logprobs {
    /// Each key in the order first sent, with its value's JSON text.
    members: Vec<(String, Member)>,
}

/// The JSON text of one member's value.
#[derive(Debug, Clone)]
enum Member {
    /// A list, held as its elements' text joined by commas, without the brackets, so that
    /// appending is pushing text.
    List(String),
    /// Any other value, as sent.
    Other(String),
}

impl Member {
    fn of(value: &Value) -> Member {
        match value {
            Value::Array(items) => {
                let mut text = String::new();
                push_items(&mut text, items);
                Member::List(text)
            }
            other => Member::Other(other.to_string()),
        }
    }

    /// The value's JSON text.
    fn json(&self) -> String {
        match self {
            Member::List(items) => format!("[{items}]"),
            Member::Other(text) => text.clone(),
        }
    }
}

/// Appends the items' compact JSON text, comma-separated, to `text` (written in place: no
/// string per item).
fn push_items(text: &mut String, items: &[Value]) {
    for item in items {
        push_item(text, item);
    }
}

/// Appends one item's compact JSON text to a list's `text`, after a comma unless it is the first.
pub(crate) fn push_item(text: &mut String, item: &Value) {
    if !text.is_empty() {
        text.push(',');
    }
    // Writing to a `String` cannot fail.
    let _ = write!(text, "{item}");
}

impl Logprobs {
    /// The value under `key` (`content`, `refusal`…), parsed.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.members
            .iter()
            .find(|(name, _)| name == key)
            .and_then(|(_, member)| serde_json::from_str(&member.json()).ok())
    }

    /// The keys, in the order first sent.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|(name, _)| name.as_str())
    }

    /// The whole object, parsed.
    pub fn to_map(&self) -> Map<String, Value> {
        self.members
            .iter()
            .filter_map(|(name, member)| {
                let value = serde_json::from_str(&member.json()).ok()?;
                Some((name.clone(), value))
            })
            .collect()
    }

    /// Merges one chunk's member: a list appends to the list already under `key`, a key seen
    /// first is taken as sent (unless null); anything else is left out. Whether it was kept.
    pub(crate) fn merge(&mut self, key: String, value: &Value) -> bool {
        match self.members.iter_mut().find(|(name, _)| *name == key) {
            Some((_, Member::List(text))) => match value {
                Value::Array(items) => {
                    push_items(text, items);
                    true
                }
                _ => false,
            },
            Some(_) => false,
            None if value.is_null() => false,
            None => {
                self.members.push((key, Member::of(value)));
                true
            }
        }
    }

    /// Merges a list given as its entries' compact text joined by commas (`items`): appended
    /// to the list under `key`, or kept as that key's list if it is new. False, keeping nothing,
    /// when `key` holds something else.
    pub(crate) fn merge_list(&mut self, key: String, items: &str) -> bool {
        match self.members.iter_mut().find(|(name, _)| *name == key) {
            Some((_, Member::List(text))) => {
                if !text.is_empty() && !items.is_empty() {
                    text.push(',');
                }
                text.push_str(items);
                true
            }
            Some(_) => false,
            None => {
                self.members.push((key, Member::List(items.to_owned())));
                true
            }
        }
    }

    /// Frees the spare capacity the lists grew by, once nothing more is appended.
    pub(crate) fn shrink(&mut self) {
        for (_, member) in &mut self.members {
            match member {
                Member::List(text) | Member::Other(text) => text.shrink_to_fit(),
            }
        }
    }
}

/// Equal when the parsed objects are (the text of the same entries may differ in spacing).
impl PartialEq for Logprobs {
    fn eq(&self, other: &Self) -> bool {
        self.to_map() == other.to_map()
    }
}

impl Serialize for Logprobs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.members.len()))?;
        for (name, member) in &self.members {
            let raw = RawValue::from_string(member.json()).map_err(S::Error::custom)?;
            map.serialize_entry(name, &raw)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Logprobs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(deserializer)?;
        Ok(Logprobs::from(map))
    }
}

impl From<Map<String, Value>> for Logprobs {
    fn from(map: Map<String, Value>) -> Self {
        Logprobs {
            members: map
                .iter()
                .map(|(name, value)| (name.clone(), Member::of(value)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_append_and_the_object_round_trips() {
        let mut logprobs = Logprobs::default();
        assert!(logprobs.merge("content".into(), &json!([{"token": "a"}, {}])));
        assert!(logprobs.merge("content".into(), &json!([{"token": "b"}])));
        assert!(logprobs.merge("refusal".into(), &json!([])));
        assert!(!logprobs.merge("seed".into(), &Value::Null));
        assert!(logprobs.merge("seed".into(), &json!(7)));
        assert!(!logprobs.merge("seed".into(), &json!([1])));
        assert!(!logprobs.merge("content".into(), &json!({"token": "c"})));
        let whole =
            json!({"content": [{"token": "a"}, {}, {"token": "b"}], "refusal": [], "seed": 7});
        assert_eq!(serde_json::to_value(&logprobs).unwrap(), whole);
        assert_eq!(Value::Object(logprobs.to_map()), whole);
        assert_eq!(logprobs.get("refusal"), Some(json!([])));
        assert_eq!(
            logprobs.keys().collect::<Vec<_>>(),
            ["content", "refusal", "seed"]
        );
        let back: Logprobs = serde_json::from_value(whole).unwrap();
        assert_eq!(back, logprobs);
    }
}
