//! The contract every framer keeps — bytes in with `push`, frames out with `next_frame`, the
//! end of input with `finish`, where it stands with `counts` — so a driver frames any stream
//! the same way, whichever framing it has.

use super::error::FramingError;
use super::frame::Frame;

/// Default bound on one frame (an event, a line, a JSON value, a binary message): far above any
/// real chat delta, low enough that a server which never ends a frame cannot exhaust memory.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// A sans-IO decoder that cuts a byte stream into [`Frame`]s: implemented by
/// [`SseDecoder`](super::SseDecoder), [`NdjsonDecoder`](super::NdjsonDecoder),
/// [`JsonArrayDecoder`](super::JsonArrayDecoder) and
/// [`EventStreamDecoder`](super::EventStreamDecoder).
///
/// It follows tokio-util's `codec::Decoder`: [`next_frame`](Self::next_frame) is its `decode`
/// (the next complete frame, or `Ok(None)` when more input is needed) and
/// [`finish`](Self::finish) its `decode_eof` (the input is over: called until it returns
/// `Ok(None)`, it hands out what is still buffered, then a last frame the end of input
/// completes). An error is fatal: the decoder is poisoned and returns it again from every later
/// call, as a `Framed` stream ends at a decoder's error.
///
/// # Buffer handling
///
/// A tokio `Decoder` is handed the caller's `BytesMut` and splits each frame off its front.
/// Here the decoder holds the buffer and the caller [`push`](Self::push)es each read into it,
/// for two reasons. A frame is lent as `&str` slices of that buffer (no allocation per frame),
/// checked as UTF-8 once, when the bytes arrive, however the stream is cut. And the decoder
/// alone knows what a frame still refers to, so it drops consumed input itself, in bulk, before
/// a later push — only once it is at least as large as what is kept, so no byte is moved more
/// than once per push that brings as many. A frame borrows the decoder until the next call;
/// copy out what must outlive it.
///
/// Each byte is searched once however the input is split, and a frame longer than the
/// decoder's limit is an error as soon as it is seen, so what is held stays within one frame
/// plus one push ([`FrameCounts::buffered_bytes`]).
///
/// ```
/// use deltafold::framing::{FrameDecoder, FramingError, NdjsonDecoder, SseDecoder};
///
/// /// Every frame's data, whichever the framing.
/// fn payloads(decoder: &mut dyn FrameDecoder, reads: &[&[u8]]) -> Result<Vec<String>, FramingError> {
///     let mut out = Vec::new();
///     for read in reads {
///         decoder.push(read);
///         while let Some(frame) = decoder.next_frame()? {
///             out.push(frame.data.to_owned());
///         }
///     }
///     while let Some(frame) = decoder.finish()? {
///         out.push(frame.data.to_owned());
///     }
///     Ok(out)
/// }
///
/// let sse = payloads(&mut SseDecoder::new(), &[b"data: {\"a\"", b":1}\n\ndata: 2\n\n"])?;
/// let ndjson = payloads(&mut NdjsonDecoder::new(), &[b"{\"a\":1}\n", b"2"])?;
/// assert_eq!(sse, ndjson);
/// assert_eq!(sse, ["{\"a\":1}", "2"]);
/// # Ok::<(), FramingError>(())
/// ```
pub trait FrameDecoder {
    /// Appends bytes read from the transport. Never fails: errors surface from
    /// [`next_frame`](Self::next_frame). Input after an error or after `finish` is ignored.
    ///
    /// Call `next_frame` until it returns `Ok(None)` after each push: the size limit is
    /// enforced there, so pushing without pulling buffers without bound.
    fn push(&mut self, bytes: &[u8]);

    /// The next complete frame, borrowing the decoder's buffers until the next call into it;
    /// `Ok(None)` means more input is needed.
    ///
    /// # Errors
    ///
    /// A [`FramingError`] for input the framing cannot read (invalid UTF-8, a frame past the
    /// limit, a bad checksum …), which poisons the decoder.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError>;

    /// End of input: the frames still buffered, one per call, then a last one the end of input
    /// completes (with `terminated == false` when its framing wanted a closing delimiter),
    /// then `Ok(None)`.
    ///
    /// # Errors
    ///
    /// As [`next_frame`](Self::next_frame); in addition, input that ends inside a frame the
    /// framing cannot close on its own (an unfinished UTF-8 sequence, half a binary message)
    /// is an error.
    fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError>;

    /// Where the decoder stands: bytes pushed, consumed and held, frames handed out.
    fn counts(&self) -> FrameCounts;
}

/// Where a [`FrameDecoder`] stands, in bytes and frames: what a driver reports an error's place
/// with, and what a test bounds memory by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FrameCounts {
    /// Bytes passed to [`push`](FrameDecoder::push), including ignored ones.
    pub bytes_pushed: u64,
    /// Bytes fully processed: up to the end of the last frame, line or comment handled.
    pub bytes_consumed: u64,
    /// Frames handed out so far, including a last one flushed by
    /// [`finish`](FrameDecoder::finish).
    pub frames: u64,
    /// Bytes held now: the frame in progress and input not yet processed (and, for an event
    /// stream, the joined data of an event of several `data:` lines).
    pub buffered_bytes: usize,
}

/// The counter methods the public decoders had before [`FrameDecoder::counts`], kept as
/// deprecated aliases for the callers that use them.
macro_rules! deprecated_counters {
    ($decoder:ty) => {
        impl $decoder {
            /// Total bytes of input fully processed.
            #[deprecated(since = "0.1.0", note = "use `FrameDecoder::counts().bytes_consumed`")]
            pub fn bytes_consumed(&self) -> u64 {
                FrameDecoder::counts(self).bytes_consumed
            }

            /// Total bytes passed to `push`, including ignored ones.
            #[deprecated(since = "0.1.0", note = "use `FrameDecoder::counts().bytes_pushed`")]
            pub fn bytes_pushed(&self) -> u64 {
                FrameDecoder::counts(self).bytes_pushed
            }

            /// Number of frames handed out so far.
            #[deprecated(since = "0.1.0", note = "use `FrameDecoder::counts().frames`")]
            pub fn events_dispatched(&self) -> u64 {
                FrameDecoder::counts(self).frames
            }

            /// Bytes currently held.
            #[deprecated(since = "0.1.0", note = "use `FrameDecoder::counts().buffered_bytes`")]
            pub fn buffered_bytes(&self) -> usize {
                FrameDecoder::counts(self).buffered_bytes
            }
        }
    };
}

pub(super) use deprecated_counters;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::{EventStreamDecoder, NdjsonDecoder, SseDecoder};

    /// The deprecated counters read the same as `counts`.
    #[test]
    #[allow(deprecated)]
    fn the_old_counters_are_the_counts() {
        let mut sse = SseDecoder::new();
        sse.push(b"data: a\n\ndata: b");
        while sse.next_frame().unwrap().is_some() {}
        let counts = sse.counts();
        assert_eq!(
            (
                sse.bytes_pushed(),
                sse.bytes_consumed(),
                sse.events_dispatched(),
                sse.buffered_bytes()
            ),
            (16, 9, 1, 7)
        );
        assert_eq!(
            counts,
            FrameCounts {
                bytes_pushed: 16,
                bytes_consumed: 9,
                frames: 1,
                buffered_bytes: 7
            }
        );
        let mut ndjson = NdjsonDecoder::new();
        ndjson.push(b"{}\n{");
        while ndjson.next_frame().unwrap().is_some() {}
        assert_eq!(
            (ndjson.bytes_consumed(), ndjson.events_dispatched()),
            (3, 1)
        );
        let events = EventStreamDecoder::new();
        assert_eq!(events.buffered_bytes(), 0);
    }
}
