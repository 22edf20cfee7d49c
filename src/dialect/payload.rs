//! The general path's first and last word in every dialect: a payload parsed into the dialect's
//! serde types, the error for one that does not parse, and what becomes of one the dialect has
//! no use for — both of which may turn out to be another dialect's payload.

use serde::Deserialize;

use super::decoder::DialectDecoder;
use super::detect;
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
