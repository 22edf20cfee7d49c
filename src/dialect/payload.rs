//! The general path's first and last word in every dialect: a payload parsed into the dialect's
//! serde types, the error for one that does not parse, and what becomes of one the dialect has
//! no use for — both of which may turn out to be another dialect's payload — and the fields and
//! events it does not know, which are kept rather than dropped.

use std::fmt;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer as _};
use serde_json::value::RawValue;
use serde_json::Value;

use super::decoder::DialectDecoder;
use super::detect;
use super::text::Text;
use crate::delta::{Delta, DeltaSink};
use crate::error::{snippet, ErrorKind};
use crate::framing::Frame;
use crate::Error;

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

/// Keeps the members of the JSON object `raw` that are not in `known` as response-level extras
/// (`response_metadata`): fields a provider adds to an event the dialect reads. For the events
/// that come a few times a stream, not the deltas: it reads the object a second time.
pub(crate) fn keep_unknown_members(
    raw: &str,
    known: &[&str],
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    let mut deserializer = serde_json::Deserializer::from_str(raw);
    let Ok(members) = deserializer.deserialize_map(UnknownMembers(known)) else {
        return Ok(());
    };
    for (key, value) in &members {
        if value.get() != "null" {
            sink.apply(Delta::Extra {
                choice: None,
                key: key.as_str(),
                value,
            })?;
        }
    }
    Ok(())
}

/// Reads an object's members, keeping those whose key is not in the list.
struct UnknownMembers<'k>(&'k [&'k str]);

impl<'de, 'k> Visitor<'de> for UnknownMembers<'k> {
    type Value = Vec<(Text<'de>, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut unknown = Vec::new();
        while let Some(key) = map.next_key::<Text<'de>>()? {
            if self.0.contains(&key.as_str()) {
                map.next_value::<IgnoredAny>()?;
            } else {
                unknown.push((key, map.next_value::<&'de RawValue>()?));
            }
        }
        Ok(unknown)
    }
}
