//! The skeleton every dialect's decoder fills in, so that the five read alike and the
//! [`StreamDecoder`](super::StreamDecoder) drives them by one rule.
//!
//! A payload goes through up to three steps, each of which may answer it:
//! 1. [`decode_control`](DialectDecoder::decode_control): what the frame alone decides (`[DONE]`,
//!    an `event:` name), for every frame, empty ones included;
//! 2. an empty payload not answered there is a keep-alive: nothing to decode;
//! 3. [`decode_fast`](DialectDecoder::decode_fast) (in `<name>/fast.rs`): the few shapes that make
//!    up nearly all of a stream, read without serde's generic machinery; it gives up (`None`) on
//!    anything else, before applying a delta, and
//!    [`decode_general`](DialectDecoder::decode_general) reads the payload instead — so both
//!    paths apply the same deltas and every error comes from the general one.

use super::Dialect;
use crate::delta::DeltaSink;
use crate::error::Error;
use crate::framing::Frame;

/// One dialect's per-stream state, and how it turns a payload into deltas.
pub(crate) trait DialectDecoder: Default {
    /// The dialect it decodes.
    const DIALECT: Dialect;

    /// What an error calls one payload.
    const PAYLOAD_NAME: &'static str = "payload";

    /// Whether a payload that does not parse is first checked for another dialect's, so that the
    /// error names both (see [`parse_payload`](super::payload::parse_payload)).
    const MALFORMED_MAY_BE_FOREIGN: bool = true;

    /// Answers a frame from the frame alone, before any parse (`data`: trimmed, maybe empty);
    /// `None` to decode the payload.
    fn decode_control(
        &mut self,
        _frame: &Frame<'_>,
        _data: &str,
        _sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        None
    }

    /// The fast path (`data`: trimmed, not empty); `None`, with nothing applied, for a payload it
    /// does not read.
    fn decode_fast(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>>;

    /// The general path, which reads any payload (`data`: trimmed, not empty).
    fn decode_general(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error>;

    /// The input ended: reports what the dialect deferred until a terminal event that never came.
    fn end(&mut self, _sink: &mut impl DeltaSink) -> Result<(), Error> {
        Ok(())
    }

    /// Decodes one frame, through the steps of the [module docs](self).
    #[inline]
    fn decode(&mut self, frame: &Frame<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
        let data = frame.data.trim_ascii();
        if let Some(decoded) = self.decode_control(frame, data, sink) {
            return decoded;
        }
        if data.is_empty() {
            return Ok(());
        }
        match self.decode_fast(frame, data, sink) {
            Some(decoded) => decoded,
            None => self.decode_general(frame, data, sink),
        }
    }
}
