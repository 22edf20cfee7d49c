//! The serde types of Cohere's v2 chat events, borrowed from the payload; fields the dialect
//! does not need are read leniently, so that a change of their type never fails the event.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dialect::lenient::LenientText;
use crate::dialect::text::Text;

/// One event: its `type`, the index of the content, tool call or citation it is about, and its
/// `delta`.
#[derive(Deserialize)]
pub(super) struct Event<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Text<'a>,
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(default)]
    pub(super) index: Option<u32>,
    #[serde(borrow, default)]
    pub(super) delta: Option<EventDelta<'a>>,
}

/// The `delta` of an event: a piece of the message, or (`message-end`) how it ended.
#[derive(Deserialize, Default)]
pub(super) struct EventDelta<'a> {
    #[serde(borrow, default)]
    pub(super) message: Option<MessageDelta<'a>>,
    #[serde(borrow, default)]
    pub(super) finish_reason: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) error: LenientText<'a>,
}

/// `delta.message`. `message-start` sends `content` and `tool_calls` as empty arrays, the other
/// events as one object: only an object is read.
#[derive(Deserialize, Default)]
pub(super) struct MessageDelta<'a> {
    #[serde(borrow, default)]
    pub(super) content: ObjectOnly<ContentDelta<'a>>,
    #[serde(borrow, default)]
    pub(super) tool_plan: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) tool_calls: ObjectOnly<ToolCallPiece<'a>>,
    #[serde(borrow, default)]
    pub(super) citations: Option<&'a RawValue>,
}

/// One content piece: text or thinking (`type` only on `content-start`).
#[derive(Deserialize, Default)]
pub(super) struct ContentDelta<'a> {
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) thinking: LenientText<'a>,
}

/// One tool call piece: its id and name on `tool-call-start`, argument fragments after.
#[derive(Deserialize, Default)]
pub(super) struct ToolCallPiece<'a> {
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) function: Option<FunctionPiece<'a>>,
}

#[derive(Deserialize, Default)]
pub(super) struct FunctionPiece<'a> {
    #[serde(borrow, default)]
    pub(super) name: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) arguments: LenientText<'a>,
}

/// A member read when it is an object; `None` for any other JSON value, which is skipped.
pub(super) struct ObjectOnly<T>(pub(super) Option<T>);

impl<T> Default for ObjectOnly<T> {
    fn default() -> Self {
        ObjectOnly(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = ObjectOnly<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|value| ObjectOnly(Some(value)))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ObjectOnly(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ObjectOnly(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(ObjectOnly(None))
            }
        }
        deserializer.deserialize_any(ObjectVisitor(PhantomData))
    }
}
