//! `Logprobs`: a response's log probabilities, kept as compact JSON text rather than parsed
//! values. A stream may send millions of entries, and a parsed `serde_json::Value` costs 32 to
//! 80 bytes each plus its map slots (an empty `{}` entry, three bytes in, held 27–53 times
//! that); the text costs what came. Entries are parsed when asked for.

use std::fmt::{self, Write as _};

use serde::de::Deserializer;
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::key_index::KeyIndex;

/// Keys looked up by a scan, under which no hash index is kept (a provider sends one or two).
const SCANNED: usize = 16;

/// Log probabilities, as `{"content": [...], "refusal": [...]}` with every streamed entry
/// appended in order; it serialises to that object. Read a list with [`get`](Self::get) or the
/// whole object with [`to_map`](Self::to_map).
#[derive(Clone, Default)]
pub struct Logprobs {
    /// Every member's key followed by its value's text while that is as first sent; a list
    /// appended to moves to [`lists`](Self::lists). Keys that never repeat cost their text and
    /// 16 bytes, not a string each.
    text: String,
    /// The members in the order first sent.
    members: Vec<Member>,
    /// The lists appended to since first sent, each its entries' text joined by commas.
    lists: Vec<String>,
    /// Finds a key once there are more than [`SCANNED`]: an object of many new keys in every
    /// chunk would otherwise cost a scan of all those before it for each.
    index: Option<Box<KeyIndex>>,
}

/// One member: its key at `start` in the text, then its value.
#[derive(Debug, Clone, Copy)]
struct Member {
    start: u32,
    key_len: u32,
    value: Stored,
}

/// Where a member's value is held.
#[derive(Debug, Clone, Copy)]
enum Stored {
    /// A list's entries joined by commas, without the brackets, this long after the key.
    List(u32),
    /// Any other value as sent, this long after the key.
    Other(u32),
    /// A list appended to: [`Logprobs::lists`] at this position.
    Appended(u32),
}

impl Member {
    fn key<'t>(&self, text: &'t str) -> &'t str {
        let start = self.start as usize;
        &text[start..start + self.key_len as usize]
    }

    /// The value's text as first sent, after the key.
    fn sent<'t>(&self, text: &'t str, len: u32) -> &'t str {
        let start = (self.start + self.key_len) as usize;
        &text[start..start + len as usize]
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
        let at = self.find(key)?;
        serde_json::from_str(&self.json(at)).ok()
    }

    /// Whether `key` holds a value.
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.find(key).is_some()
    }

    /// The keys, in the order first sent.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|member| member.key(&self.text))
    }

    /// The whole object, parsed.
    pub fn to_map(&self) -> Map<String, Value> {
        (0..self.members.len())
            .filter_map(|at| {
                let value = serde_json::from_str(&self.json(at)).ok()?;
                Some((self.members[at].key(&self.text).to_owned(), value))
            })
            .collect()
    }

    /// Merges one chunk's member: a list appends to the list already under `key`, a key seen
    /// first is taken as sent (unless null); anything else is left out. Whether it was kept.
    pub(crate) fn merge(&mut self, key: &str, value: &Value) -> bool {
        match (self.find(key), value) {
            (Some(at), Value::Array(items)) => match self.list_mut(at) {
                Some(list) => {
                    push_items(list, items);
                    true
                }
                None => false,
            },
            (Some(_), _) | (None, Value::Null) => false,
            (None, value) => {
                self.add_value(key, value);
                true
            }
        }
    }

    /// Adds `value` under a key not yet held: a list as its entries' text, anything else whole.
    fn add_value(&mut self, key: &str, value: &Value) {
        match value {
            Value::Array(items) => {
                let mut list = String::new();
                push_items(&mut list, items);
                self.add(key, Stored::List, &list);
            }
            other => self.add(key, Stored::Other, &other.to_string()),
        }
    }

    /// Merges a list given as its entries' compact text joined by commas (`items`): appended
    /// to the list under `key`, or kept as that key's list if it is new. False, keeping nothing,
    /// when `key` holds something else.
    pub(crate) fn merge_list(&mut self, key: &str, items: &str) -> bool {
        let Some(at) = self.find(key) else {
            self.add(key, Stored::List, items);
            return true;
        };
        match self.list_mut(at) {
            Some(list) => {
                if !list.is_empty() && !items.is_empty() {
                    list.push(',');
                }
                list.push_str(items);
                true
            }
            None => false,
        }
    }

    /// Frees the spare capacity the lists grew by, once nothing more is appended.
    pub(crate) fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.members.shrink_to_fit();
        for list in &mut self.lists {
            list.shrink_to_fit();
        }
    }

    /// Member `at`'s value as JSON text.
    fn json(&self, at: usize) -> String {
        let member = &self.members[at];
        match member.value {
            Stored::List(len) => format!("[{}]", member.sent(&self.text, len)),
            Stored::Other(len) => member.sent(&self.text, len).to_owned(),
            Stored::Appended(list) => format!("[{}]", self.lists[list as usize]),
        }
    }

    /// The list under member `at`, to append to (moved out of the text the first time), or
    /// `None` when it holds another value.
    fn list_mut(&mut self, at: usize) -> Option<&mut String> {
        let member = &mut self.members[at];
        let list = match member.value {
            Stored::List(len) => {
                // The text it leaves behind was sent once: holding it stays linear.
                self.lists.push(member.sent(&self.text, len).to_owned());
                member.value = Stored::Appended((self.lists.len() - 1) as u32);
                self.lists.len() - 1
            }
            Stored::Appended(list) => list as usize,
            Stored::Other(_) => return None,
        };
        Some(&mut self.lists[list])
    }

    /// Where `key` is among the members.
    fn find(&self, key: &str) -> Option<usize> {
        let is_key = |at: &usize| self.members[*at].key(&self.text) == key;
        match &self.index {
            None => (0..self.members.len()).find(is_key),
            Some(index) => index.candidates(key).find(is_key),
        }
    }

    /// Adds a member under a key not yet held, indexing it once there are many. Its text
    /// counts in `u32`, as the message budget bounds it.
    fn add(&mut self, key: &str, stored: fn(u32) -> Stored, value: &str) {
        self.members.push(Member {
            start: self.text.len() as u32,
            key_len: key.len() as u32,
            value: stored(value.len() as u32),
        });
        self.text.push_str(key);
        self.text.push_str(value);
        let (text, members) = (&self.text, &self.members);
        let key_at = |at: usize| members[at].key(text);
        match &mut self.index {
            None if members.len() > SCANNED => {
                self.index = Some(Box::new(KeyIndex::of(members.len(), key_at)));
            }
            None => {}
            Some(index) => index.insert(members.len() - 1, key_at),
        }
    }
}

/// The object, each value as its JSON text.
impl fmt::Debug for Logprobs {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_map()
            .entries(
                (0..self.members.len()).map(|at| (self.members[at].key(&self.text), self.json(at))),
            )
            .finish()
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
        for (at, member) in self.members.iter().enumerate() {
            let raw = RawValue::from_string(self.json(at)).map_err(S::Error::custom)?;
            map.serialize_entry(member.key(&self.text), &raw)?;
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
        let mut logprobs = Logprobs::default();
        for (name, value) in &map {
            logprobs.add_value(name, value);
        }
        logprobs
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_append_and_the_object_round_trips() {
        let mut logprobs = Logprobs::default();
        assert!(logprobs.merge("content", &json!([{"token": "a"}, {}])));
        assert!(logprobs.merge("content", &json!([{"token": "b"}])));
        assert!(logprobs.merge("refusal", &json!([])));
        assert!(!logprobs.merge("seed", &Value::Null));
        assert!(logprobs.merge("seed", &json!(7)));
        assert!(!logprobs.merge("seed", &json!([1])));
        assert!(!logprobs.merge("content", &json!({"token": "c"})));
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

    /// An object of many new keys in every chunk: each is found through the index, not by a
    /// scan of those before it, and the keys keep the order first sent.
    #[test]
    fn many_keys_are_found_through_the_index() {
        let mut logprobs = Logprobs::default();
        for key in 0..1_000 {
            assert!(logprobs.merge(&format!("k{key}"), &json!([key])));
            assert_eq!(logprobs.index.is_some(), key >= SCANNED);
        }
        for key in (0..1_000).rev() {
            assert!(logprobs.merge_list(&format!("k{key}"), "0"));
        }
        assert_eq!(logprobs.get("k999"), Some(json!([999, 0])));
        assert_eq!(logprobs.get("k1000"), None);
        let keys: Vec<String> = (0..1_000).map(|key| format!("k{key}")).collect();
        assert!(logprobs.keys().eq(keys.iter().map(String::as_str)));
        let back = Logprobs::from(logprobs.to_map());
        assert!(back.index.is_some());
        assert_eq!(back.get("k17"), Some(json!([17, 0])));
    }
}
