//! Borrowed JSON strings: serde's own `Cow<str>` always allocates, and `&str` fails on escapes.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, Visitor};

/// A JSON string borrowed from the payload when it has no escapes, owned otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Text<'a>(pub Cow<'a, str>);

impl Text<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

/// Reads a JSON object whose values `serde_json::Value` may refuse (a number such as `1e400`
/// overflows `f64`; nesting past its depth limit): such a value is kept as its JSON text in a
/// string, so the other members — and the odd one, verbatim — survive.
pub(crate) fn tolerant_object(raw: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    tolerant_object_within(raw, TOLERANT_DEPTH)
}

/// How many levels of refused objects are opened before one is kept as text: bounded, so that
/// hostile nesting cannot recurse without limit.
const TOLERANT_DEPTH: usize = 4;

fn tolerant_object_within(
    raw: &str,
    depth: usize,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    use serde_json::value::RawValue;
    use serde_json::Value;
    if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(raw) {
        return Some(object);
    }
    let depth = depth.checked_sub(1)?;
    let members =
        serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(raw).ok()?;
    Some(
        members
            .into_iter()
            .map(|(key, value)| {
                let value = match serde_json::from_str::<Value>(value.get()) {
                    Ok(value) => value,
                    Err(_) => tolerant_object_within(value.get(), depth)
                        .map_or_else(|| Value::String(value.get().to_owned()), Value::Object),
                };
                (key, value)
            })
            .collect(),
    )
}
