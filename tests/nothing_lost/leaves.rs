//! The leaf values of a payload, each with its path: `choices[].delta.content` (array
//! positions elided, so that one pattern names every element), `@event` for the frame's event
//! name, `@<field>` for other framing fields. Nulls, empty strings and empty containers carry
//! nothing and are not leaves. A string inside an event-stream payload that is base64 of a JSON
//! object (Bedrock InvokeModel's `chunk.bytes`) is not a leaf: the object inside is walked, its
//! paths as if it were the payload.

use serde_json::{Map, Value};

use super::payloads::{self, Payload};

/// One leaf value.
pub struct Leaf {
    pub path: String,
    pub value: LeafValue,
    /// The `id` (or else `item_id`) of the object that holds the leaf, if it has one: two objects
    /// with the same id are one item sent again, or events about the same item.
    pub owner: Option<String>,
}

impl Leaf {
    /// The member name the leaf is under (the last key of its path).
    pub fn member(&self) -> &str {
        let path = self.path.trim_end_matches("[]");
        let member = path.rsplit('.').next().unwrap_or(path);
        member.trim_end_matches("[]")
    }
}

pub enum LeafValue {
    Str(String),
    /// A number, in the canonical form of [`canonical_number`].
    Num(String),
    /// A boolean, with the key it was sent under: it can only be found as the same key with the
    /// same value.
    Bool {
        key: String,
        value: bool,
    },
}

impl LeafValue {
    /// The value as the rules and reports spell it.
    pub fn text(&self) -> String {
        match self {
            LeafValue::Str(text) | LeafValue::Num(text) => text.clone(),
            LeafValue::Bool { value, .. } => value.to_string(),
        }
    }
}

/// Every leaf of one payload. The frame's event name is a leaf only when the payload does not
/// repeat it as its `type` (then it is that same value).
pub fn of(payload: &Payload, eventstream: bool) -> Vec<Leaf> {
    let mut leaves = Vec::new();
    if let Some(event) = &payload.event {
        if payload.json.get("type").and_then(Value::as_str) != Some(event) {
            leaves.push(Leaf {
                path: "@event".into(),
                value: LeafValue::Str(event.clone()),
                owner: None,
            });
        }
    }
    for (name, value) in &payload.fields {
        if !value.is_empty() {
            leaves.push(Leaf {
                path: format!("@{name}"),
                value: LeafValue::Str(value.clone()),
                owner: None,
            });
        }
    }
    let mut walker = Walker {
        path: String::new(),
        nested: eventstream,
        out: &mut leaves,
    };
    walker.walk(&payload.json, None, None);
    leaves
}

/// Walks a payload, collecting its leaves.
struct Walker<'a> {
    /// The path of the value being walked.
    path: String,
    /// Inside an event-stream payload, where base64 strings may hold JSON.
    nested: bool,
    out: &'a mut Vec<Leaf>,
}

impl Walker<'_> {
    /// Walks `value`, under `key` in an object whose `id` is `owner`.
    fn walk(&mut self, value: &Value, key: Option<&str>, owner: Option<&str>) {
        let leaf = |path: &str, value| Leaf {
            path: path.to_owned(),
            value,
            owner: owner.map(str::to_owned),
        };
        match value {
            Value::Null => {}
            Value::Bool(flag) => self.out.push(leaf(
                &self.path,
                LeafValue::Bool {
                    key: key.unwrap_or_default().to_owned(),
                    value: *flag,
                },
            )),
            Value::Number(number) => self
                .out
                .push(leaf(&self.path, LeafValue::Num(canonical_number(number)))),
            Value::String(text) if text.is_empty() => {}
            Value::String(text) => {
                if let Some(inner) = self.nested.then(|| base64_json(text)).flatten() {
                    let outer = std::mem::take(&mut self.path);
                    self.walk(&inner, None, None);
                    self.path = outer;
                } else {
                    self.out
                        .push(leaf(&self.path, LeafValue::Str(text.clone())));
                }
            }
            Value::Array(items) => {
                let len = self.path.len();
                self.path.push_str("[]");
                for item in items {
                    self.walk(item, key, owner);
                }
                self.path.truncate(len);
            }
            Value::Object(members) => self.walk_members(members),
        }
    }

    fn walk_members(&mut self, members: &Map<String, Value>) {
        let owner = members
            .get("id")
            .or_else(|| members.get("item_id"))
            .and_then(Value::as_str);
        for (name, value) in members {
            let len = self.path.len();
            if len > 0 {
                self.path.push('.');
            }
            self.path.push_str(name);
            self.walk(value, Some(name), owner);
            self.path.truncate(len);
        }
    }
}

fn base64_json(text: &str) -> Option<Value> {
    if text.len() < 8 {
        return None;
    }
    let bytes = payloads::base64(text)?;
    match serde_json::from_slice(&bytes) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}

/// One spelling per number: integers in decimal, other numbers as Rust's shortest `f64` form
/// (`6e-7` and `0.0000006` are one number), an integral `f64` as an integer.
pub fn canonical_number(number: &serde_json::Number) -> String {
    if let Some(int) = number.as_u64() {
        return int.to_string();
    }
    if let Some(int) = number.as_i64() {
        return int.to_string();
    }
    let float = number.as_f64().unwrap_or(f64::NAN);
    if float.fract() == 0.0 && float.abs() < 9.0e15 {
        return (float as i64).to_string();
    }
    format!("{float:?}")
}
