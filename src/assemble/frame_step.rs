//! One frame into the state: the dialect detected from the first payload, the payload decoded
//! (a malformed one skipped with a warning in lenient mode), and errors placed at their frame.

use super::fold::ResponseState;
use super::Options;
use crate::dialect::StreamDecoder;
use crate::error::{Error, ErrorKind, Location};
use crate::framing::{Frame, FramingError};

/// Decodes one frame into the state (detecting the dialect from the first one); in lenient mode
/// a malformed payload becomes a warning.
#[inline]
pub(super) fn apply_frame(
    options: &Options,
    decoder: &mut StreamDecoder,
    state: &mut ResponseState,
    frame: &Frame<'_>,
    ndjson: bool,
) -> Result<(), Error> {
    let detected = decoder.detect(frame, ndjson).is_some();
    let at = Location {
        event: frame.number,
        offset: frame.offset,
    };
    let decoded = decoder.decode(frame, state);
    if detected {
        // After the payload: a tentative dialect is only sure once its parse confirmed it.
        if let Some(dialect) = decoder.dialect() {
            state.set_provider(dialect.provider_name());
        }
    }
    match decoded {
        Err(error) if error.is_malformed() && options.is_lenient() && frame.terminated => state
            .warn(format!(
                "skipped event {} (byte {}): {error}",
                at.event, at.offset
            ))
            .map_err(|error| error.at(at)),
        Err(error) => Err(error.at(at)),
        Ok(()) => Ok(()),
    }
}

pub(super) fn framing_error(framing: FramingError, events: u64) -> Error {
    let (kind, offset) = match framing {
        FramingError::InvalidUtf8 { offset } => (ErrorKind::InvalidUtf8, offset),
        FramingError::EventTooLarge { offset, .. } => (ErrorKind::LimitExceeded, offset),
        FramingError::BadChecksum { offset, .. }
        | FramingError::MalformedMessage { offset, .. } => (ErrorKind::Malformed, offset),
        FramingError::TruncatedMessage { offset } => (ErrorKind::Truncated, offset),
    };
    Error::new(kind, framing.to_string())
        .at(Location {
            event: events + 1,
            offset,
        })
        .with_source(framing)
}
