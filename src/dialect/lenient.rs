//! Fields read only when they have the expected JSON type, so that a provider changing the
//! type of a field the dialect does not need never fails the whole payload.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::text::Text;

/// A JSON string, borrowed where possible; `None` for any other JSON value.
#[derive(Debug, Default)]
pub(crate) struct LenientText<'a>(pub Option<Text<'a>>);

impl LenientText<'_> {
    pub fn as_str(&self) -> Option<&str> {
        self.0.as_ref().map(Text::as_str)
    }
}

/// A JSON unsigned integer; `None` for any other JSON value.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LenientCount(pub Option<u64>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = LenientText<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(LenientText(Some(Text(text.into()))))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(LenientText(Some(Text(text.to_owned().into()))))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(LenientText(Some(Text(text.into()))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LenientText(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(LenientText(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(LenientText(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LenientText(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(LenientText(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(LenientText(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
                LenientText::deserialize(inner)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientText(None))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientText(None))
            }
        }
        deserializer.deserialize_any(TextVisitor)
    }
}

impl<'de> Deserialize<'de> for LenientCount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor;
        impl<'de> Visitor<'de> for CountVisitor {
            type Value = LenientCount;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E>(self, count: u64) -> Result<Self::Value, E> {
                Ok(LenientCount(Some(count)))
            }
            fn visit_i64<E>(self, count: i64) -> Result<Self::Value, E> {
                Ok(LenientCount(u64::try_from(count).ok()))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LenientCount(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LenientCount(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LenientCount(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(LenientCount(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(LenientCount(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
                LenientCount::deserialize(inner)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientCount(None))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientCount(None))
            }
        }
        deserializer.deserialize_any(CountVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Sample<'a> {
        #[serde(borrow, default)]
        text: LenientText<'a>,
        #[serde(default)]
        count: LenientCount,
    }

    #[test]
    fn other_types_read_as_none_without_failing() {
        let sample: Sample<'_> = serde_json::from_str(r#"{"text":"hi","count":3}"#).unwrap();
        assert_eq!(
            (sample.text.as_str(), sample.count.0),
            (Some("hi"), Some(3))
        );
        let sample: Sample<'_> = serde_json::from_str(r#"{"text":{"a":[1]},"count":"3"}"#).unwrap();
        assert_eq!((sample.text.as_str(), sample.count.0), (None, None));
        let sample: Sample<'_> = serde_json::from_str(r#"{"text":null,"count":-1}"#).unwrap();
        assert_eq!((sample.text.as_str(), sample.count.0), (None, None));
    }
}
