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
            });
        }
    }
    for (name, value) in &payload.fields {
        if !value.is_empty() {
            leaves.push(Leaf {
                path: format!("@{name}"),
                value: LeafValue::Str(value.clone()),
            });
        }
    }
    walk(
        &payload.json,
        &mut String::new(),
        None,
        eventstream,
        &mut leaves,
    );
    leaves
}

fn walk(value: &Value, path: &mut String, key: Option<&str>, nested: bool, out: &mut Vec<Leaf>) {
    match value {
        Value::Null => {}
        Value::Bool(flag) => out.push(Leaf {
            path: path.clone(),
            value: LeafValue::Bool {
                key: key.unwrap_or_default().to_owned(),
                value: *flag,
            },
        }),
        Value::Number(number) => out.push(Leaf {
            path: path.clone(),
            value: LeafValue::Num(canonical_number(number)),
        }),
        Value::String(text) if text.is_empty() => {}
        Value::String(text) => {
            if let Some(inner) = nested.then(|| base64_json(text)).flatten() {
                let mut inner_path = String::new();
                walk(&inner, &mut inner_path, None, nested, out);
            } else {
                out.push(Leaf {
                    path: path.clone(),
                    value: LeafValue::Str(text.clone()),
                });
            }
        }
        Value::Array(items) => {
            let len = path.len();
            path.push_str("[]");
            for item in items {
                walk(item, path, key, nested, out);
            }
            path.truncate(len);
        }
        Value::Object(members) => walk_members(members, path, nested, out),
    }
}

fn walk_members(
    members: &Map<String, Value>,
    path: &mut String,
    nested: bool,
    out: &mut Vec<Leaf>,
) {
    for (name, value) in members {
        let len = path.len();
        if len > 0 {
            path.push('.');
        }
        path.push_str(name);
        walk(value, path, Some(name), nested, out);
        path.truncate(len);
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
