//! One frame decoded into the state: the dialect detected from the first payload, the payload
//! decoded, and what it came to placed at its frame (a malformed payload skipped with a warning
//! in lenient mode). Called by the stepping loop (`frame_step.rs`) and by the assembler's own
//! paths (`assembler.rs`), which therefore do not import each other.

use super::fold::ResponseState;
use super::options::Options;
use crate::dialect::StreamDecoder;
use crate::error::{Error, Location};
use crate::framing::Frame;

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
    placed(options, state, decoded, at, frame.terminated)
}

/// What decoding the event at `at` came to: an error placed there, or in lenient mode, for a
/// malformed payload of a whole event, a warning instead.
#[inline]
pub(super) fn placed(
    options: &Options,
    state: &mut ResponseState,
    decoded: Result<(), Error>,
    at: Location,
    terminated: bool,
) -> Result<(), Error> {
    match decoded {
        Err(error) if error.is_malformed() && options.is_lenient() && terminated => state
            .warn(format!(
                "skipped event {} (byte {}): {error}",
                at.event, at.offset
            ))
            .map_err(|error| error.at(at)),
        Err(error) => Err(error.at(at)),
        Ok(()) => Ok(()),
    }
}
