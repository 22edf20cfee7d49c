//! The general path's first and last word in every dialect: a payload parsed into the dialect's
//! serde types, the error for one that does not parse, and what becomes of one the dialect has
//! no use for — both of which may turn out to be another dialect's payload — and the fields and
//! events it does not know, which are kept rather than dropped.

use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

use super::decoder::DialectDecoder;
use super::detect;
use super::text::Text;
use crate::delta::{Delta, DeltaSink};
use crate::error::Error;
use crate::error::{snippet, ErrorKind};
use crate::framing::Frame;

/// Parses `data` (the trimmed payload of `frame`) as `D`'s dialect reads it. A payload that does
/// not parse is a [`Malformed`](ErrorKind::Malformed) error quoting it — or, if `D` says so and
/// it plainly belongs to another dialect, the mismatch error that names both.
pub(crate) fn parse_payload<'a, D: DialectDecoder, T: Deserialize<'a>>(
    frame: &Frame<'_>,
    data: &'a str,
) -> Result<T, Error> {
    serde_json::from_str(data).map_err(|error| {
        let foreign = D::MALFORMED_MAY_BE_FOREIGN
            .then(|| detect::foreign_payload(D::DIALECT, frame))
            .flatten();
        foreign.unwrap_or_else(|| {
            Error::new(
                ErrorKind::Malformed,
                format!("{error} in {} {}", D::PAYLOAD_NAME, snippet(data)),
            )
            .with_source(error)
        })
    })
}

/// A payload that parsed but that `D`'s dialect has no use for (a `ping`, an event type newer
/// than the decoder): skipped, unless it plainly belongs to another dialect.
pub(crate) fn skip_unless_foreign<D: DialectDecoder>(frame: &Frame<'_>) -> Result<(), Error> {
    match detect::foreign_payload(D::DIALECT, frame) {
        Some(mismatch) => Err(mismatch),
        None => Ok(()),
    }
}

/// A payload of a kind `D`'s dialect does not know (an event type newer than the decoder):
/// kept whole as a `non_standard` block of `choice`, unless it plainly belongs to another
/// dialect. Nothing a provider adds vanishes.
pub(crate) fn keep_unknown<D: DialectDecoder>(
    frame: &Frame<'_>,
    data: &str,
    choice: u32,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    skip_unless_foreign::<D>(frame)?;
    match serde_json::from_str::<Value>(data) {
        Ok(value @ Value::Object(_)) => sink.apply(Delta::NonStandard { choice, value }),
        _ => Ok(()),
    }
}

/// The members of a JSON object a dialect reads: `known` ones, and `nested` objects (or arrays of
/// objects) with known members of their own. Any other member is a field the provider added.
pub(crate) struct Members<'k> {
    pub known: &'k [&'k str],
    pub nested: &'k [(&'k str, Members<'k>)],
}

impl Members<'_> {
    /// Members whose values are read whole (or not at all): nothing nested.
    pub(crate) const fn flat<'k>(known: &'k [&'k str]) -> Members<'k> {
        Members { known, nested: &[] }
    }
}

/// Keeps the members of the JSON object `raw` that `members` does not name as extras of
/// `choice` (`None`: of the response, `response_metadata`): fields a provider adds to a payload
/// the dialect reads. For the events that come a few times a stream and the general path, not
/// the fast path's deltas: it reads the object a second time.
pub(crate) fn keep_unknown_members(
    raw: &str,
    members: &Members<'_>,
    choice: Option<u32>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    let mut deserializer = serde_json::Deserializer::from_str(raw);
    let mut unknown = Vec::new();
    let seed = UnknownMembers {
        members,
        into: &mut unknown,
    };
    if seed.deserialize(&mut deserializer).is_err() {
        return Ok(());
    }
    keep_extras(choice, &unknown, sink)
}

/// Keeps members that have no place in the model as extras of `choice` (`None`: of the
/// response); a `null` keeps nothing.
pub(crate) fn keep_extras(
    choice: Option<u32>,
    extra: &[(Text<'_>, &RawValue)],
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    for (key, value) in extra {
        sink.apply(Delta::Extra {
            choice,
            key: key.as_str(),
            value,
        })?;
    }
    Ok(())
}

/// Keeps the members a payload carried that the model has no field for, each under its name, as
/// extras of `choice` (`None`: of the response); one that did not come keeps nothing.
pub(crate) fn keep_members<'a>(
    choice: Option<u32>,
    members: impl IntoIterator<Item = (&'a str, Option<&'a RawValue>)>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    for (key, value) in members {
        if let Some(value) = value {
            sink.apply(Delta::Extra { choice, key, value })?;
        }
    }
    Ok(())
}

/// Reads a value into `into`: an object's unknown members (and, inside the nested objects,
/// theirs), each object of an array; a value of another type holds none.
struct UnknownMembers<'k, 'v, 'de> {
    members: &'k Members<'k>,
    into: &'v mut Vec<(Text<'de>, &'de RawValue)>,
}

impl<'de> DeserializeSeed<'de> for UnknownMembers<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UnknownMembers<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut items: S) -> Result<(), S::Error> {
        while items
            .next_element_seed(UnknownMembers {
                members: self.members,
                into: self.into,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while let Some(key) = map.next_key::<Text<'de>>()? {
            let nested = self
                .members
                .nested
                .iter()
                .find(|(name, _)| *name == key.as_str());
            if let Some((_, members)) = nested {
                map.next_value_seed(UnknownMembers {
                    members,
                    into: self.into,
                })?;
            } else if self.members.known.contains(&key.as_str()) {
                map.next_value::<IgnoredAny>()?;
            } else {
                self.into.push((key, map.next_value::<&'de RawValue>()?));
            }
        }
        Ok(())
    }
}
