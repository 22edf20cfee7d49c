//! The members of a JSON object read without building it: each key (borrowed unless it has
//! escapes) with its value's text, for usage objects that may hold a million members.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The members of a JSON object's text, borrowed from it (a key with escapes is decoded): `None`
/// when the text is not an object. A repeated key is listed each time; the last one counts.
pub(crate) fn object_members(text: &str) -> Option<Vec<(Cow<'_, str>, &RawValue)>> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(Cow<'de, str>, &'de RawValue)>;
        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8).min(64));
            while let Some(key) = map.next_key::<Key<'de>>()? {
                members.push((key.0, map.next_value()?));
            }
            Ok(members)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let members = deserializer.deserialize_map(Members).ok()?;
    deserializer.end().ok()?;
    Some(members)
}

/// A key borrowed from the text unless it has escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}
