//! The AWS event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock's
//! `ConverseStream` and `InvokeModelWithResponseStream` send it: binary, length-prefixed
//! messages, each checked by two CRC-32s (`message.rs`), framed under the [`FrameDecoder`]
//! contract from a buffer of bytes that are not text.

use std::fmt;

mod message;

pub(crate) use message::starts_with_prelude;

use super::decoder::{deprecated_counters, FrameCounts, FrameDecoder, DEFAULT_MAX_EVENT_BYTES};
use super::error::FramingError;
use super::frame::Frame;

/// Incremental, sans-IO decoder of an AWS event stream into messages.
///
/// Each message is lent out as a [`Frame`] whose `data` is its payload (JSON for Bedrock) and
/// whose `event` is its `:event-type` header — or its `:exception-type` for a message whose
/// `:message-type` is `exception`, and its `:error-code` for one whose type is `error` (whose
/// `data` is then `{"code": …, "message": <the :error-message header>}`). A message is checked once, when
/// its last byte has come, however the input was split; a total length above the limit is an
/// error as soon as the prelude is read. After a [`FramingError`] the decoder is poisoned.
///
/// ```
/// use deltafold::framing::{EventStreamDecoder, FrameDecoder};
///
/// // One `messageStop` message, as Bedrock's ConverseStream sends it.
/// let message = b"\x00\x00\x00\x59\x00\x00\x00\x30\x76\xf8\x42\x7f\
/// \x0b:event-type\x07\x00\x0bmessageStop\x0d:message-type\x07\x00\x05event\
/// {\"stopReason\":\"end_turn\"}\x46\xf7\x49\xbc";
/// let mut decoder = EventStreamDecoder::new();
/// decoder.push(&message[..20]);
/// assert!(decoder.next_frame()?.is_none());
/// decoder.push(&message[20..]);
/// let frame = decoder.next_frame()?.expect("one message");
/// assert_eq!(frame.event, Some("messageStop"));
/// assert_eq!(frame.data, r#"{"stopReason":"end_turn"}"#);
/// # Ok::<(), deltafold::framing::FramingError>(())
/// ```
pub struct EventStreamDecoder {
    /// Bytes held; `buf[0]` is at stream offset `base`.
    buf: Vec<u8>,
    base: u64,
    /// Index in `buf` of the next message's first byte.
    pos: usize,
    max: usize,
    error: Option<FramingError>,
    eof: bool,
    messages: u64,
    pushed: u64,
    /// The `{"message": …}` payload of the last `error` message.
    error_payload: String,
    /// Work done, counted for the tests that prove it linear.
    #[cfg(test)]
    work: Work,
}

/// Bytes moved by compaction and bytes covered by message CRCs.
#[cfg(test)]
#[derive(Debug, Default)]
struct Work {
    moved: u64,
    checked: u64,
}

impl Default for EventStreamDecoder {
    fn default() -> Self {
        Self::new()
    }
}

deprecated_counters!(EventStreamDecoder);

impl fmt::Debug for EventStreamDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStreamDecoder")
            .field("max_message_bytes", &self.max)
            .field("counts", &self.counts())
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl EventStreamDecoder {
    /// A decoder that allows messages of up to [`DEFAULT_MAX_EVENT_BYTES`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_message_bytes(DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder that fails with [`FramingError::EventTooLarge`] as soon as a prelude announces
    /// a message of more than `max` bytes (prelude and CRCs included).
    #[must_use]
    pub fn with_max_message_bytes(max: usize) -> Self {
        EventStreamDecoder {
            buf: Vec::new(),
            base: 0,
            pos: 0,
            max,
            error: None,
            eof: false,
            messages: 0,
            pushed: 0,
            error_payload: String::new(),
            #[cfg(test)]
            work: Work::default(),
        }
    }

    fn fail(&mut self, error: FramingError) -> Result<Option<Frame<'_>>, FramingError> {
        self.error = Some(error.clone());
        self.buf = Vec::new();
        self.base += self.pos as u64;
        self.pos = 0;
        Err(error)
    }

    fn offset_of(&self, index: usize) -> u64 {
        self.base + index as u64
    }
}

impl FrameDecoder for EventStreamDecoder {
    fn push(&mut self, bytes: &[u8]) {
        self.pushed += bytes.len() as u64;
        if self.eof || self.error.is_some() {
            return;
        }
        // Consumed bytes go in bulk once they are at least what is kept, so a push moves at most
        // as many bytes as it brings or frees.
        if self.pos > 0 && self.pos >= self.buf.len() - self.pos {
            #[cfg(test)]
            {
                self.work.moved += (self.buf.len() - self.pos) as u64;
            }
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete message.
    ///
    /// # Errors
    ///
    /// [`FramingError::BadChecksum`] for a prelude or message whose CRC does not match,
    /// [`FramingError::EventTooLarge`] for a message longer than the limit,
    /// [`FramingError::MalformedMessage`] for lengths or headers that do not add up, and
    /// [`FramingError::InvalidUtf8`] for a payload or string header that is not UTF-8.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        match self.take_message() {
            Ok(Some(message)) => Ok(Some(self.frame(message))),
            Ok(None) if !self.eof || self.pos == self.buf.len() => Ok(None),
            // Bytes that do not make a whole message, and no more to come.
            Ok(None) => self.fail(FramingError::TruncatedMessage {
                offset: self.offset_of(self.pos),
            }),
            Err(error) => self.fail(error),
        }
    }

    /// End of input: the messages still buffered, one per call, then `Ok(None)`.
    ///
    /// # Errors
    ///
    /// As [`next_frame`](Self::next_frame); in addition, bytes left that do not make a whole
    /// message are [`FramingError::TruncatedMessage`].
    fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        self.eof = true;
        self.next_frame()
    }

    /// Held are at most one partial message and input not yet processed.
    fn counts(&self) -> FrameCounts {
        FrameCounts {
            bytes_pushed: self.pushed,
            bytes_consumed: self.offset_of(self.pos),
            frames: self.messages,
            buffered_bytes: self.buf.len() - self.pos,
        }
    }
}

#[cfg(test)]
mod tests {
    use crc32fast::hash as crc32;
    use proptest::prelude::*;

    use super::message::{OVERHEAD, PRELUDE_LEN};
    use super::*;

    /// A header of any type: its name, type byte and value bytes (a length prefix is added for
    /// the bytes and string types).
    type Header<'a> = (&'a str, u8, &'a [u8]);

    fn encode(headers: &[Header<'_>], payload: &[u8]) -> Vec<u8> {
        let mut head = Vec::new();
        for (name, kind, value) in headers {
            head.push(name.len() as u8);
            head.extend_from_slice(name.as_bytes());
            head.push(*kind);
            if matches!(kind, 6 | 7) {
                head.extend_from_slice(&(value.len() as u16).to_be_bytes());
            }
            head.extend_from_slice(value);
        }
        let total = (OVERHEAD + head.len() + payload.len()) as u32;
        let mut message = total.to_be_bytes().to_vec();
        message.extend_from_slice(&(head.len() as u32).to_be_bytes());
        message.extend_from_slice(&crc32(&message).to_be_bytes());
        message.extend_from_slice(&head);
        message.extend_from_slice(payload);
        message.extend_from_slice(&crc32(&message).to_be_bytes());
        message
    }

    fn event(kind: &str, payload: &str) -> Vec<u8> {
        encode(
            &[
                (":event-type", 7, kind.as_bytes()),
                (":content-type", 7, b"application/json"),
                (":message-type", 7, b"event"),
            ],
            payload.as_bytes(),
        )
    }

    type Decoded = (Option<String>, String, u64);

    fn decode(pieces: &[&[u8]], max: usize) -> (Vec<Decoded>, Option<FramingError>) {
        let mut decoder = EventStreamDecoder::with_max_message_bytes(max);
        let mut frames = Vec::new();
        let mut keep = |frame: Frame<'_>| {
            frames.push((
                frame.event.map(str::to_owned),
                frame.data.to_owned(),
                frame.offset,
            ))
        };
        for piece in pieces {
            decoder.push(piece);
            loop {
                match decoder.next_frame() {
                    Ok(Some(frame)) => keep(frame),
                    Ok(None) => break,
                    Err(error) => return (frames, Some(error)),
                }
            }
        }
        loop {
            match decoder.finish() {
                Ok(Some(frame)) => keep(frame),
                Ok(None) => return (frames, None),
                Err(error) => return (frames, Some(error)),
            }
        }
    }

    #[test]
    fn every_header_type_is_stepped_over() {
        let message = encode(
            &[
                ("t", 0, b""),
                ("f", 1, b""),
                ("byte", 2, b"\x7f"),
                ("short", 3, b"\x00\x01"),
                ("int", 4, b"\x00\x00\x00\x02"),
                ("long", 5, &[0, 0, 0, 0, 0, 0, 0, 3]),
                ("bytes", 6, b"\xff\x00"),
                (":event-type", 7, b"contentBlockDelta"),
                ("timestamp", 8, &[0, 0, 1, 0, 0, 0, 0, 0]),
                ("uuid", 9, &[7; 16]),
                (":message-type", 7, b"event"),
            ],
            br#"{"delta":{"text":"hi"}}"#,
        );
        let (frames, error) = decode(&[&message], 1024);
        assert_eq!(error, None);
        assert_eq!(
            frames,
            [(
                Some("contentBlockDelta".to_owned()),
                r#"{"delta":{"text":"hi"}}"#.to_owned(),
                0
            )]
        );
    }

    #[test]
    fn exceptions_and_errors_are_named_by_their_type() {
        let exception = encode(
            &[
                (":message-type", 7, b"exception"),
                (":exception-type", 7, b"throttlingException"),
            ],
            br#"{"message":"slow down"}"#,
        );
        let error = encode(
            &[
                (":message-type", 7, b"error"),
                (":error-code", 7, b"InternalFailure"),
                (":error-message", 7, b"it \"broke\""),
            ],
            b"",
        );
        let (frames, failure) = decode(&[&exception, &error], 1024);
        assert_eq!(failure, None);
        assert_eq!(
            frames,
            [
                (
                    Some("throttlingException".to_owned()),
                    r#"{"message":"slow down"}"#.to_owned(),
                    0
                ),
                (
                    Some("InternalFailure".to_owned()),
                    r#"{"code":"InternalFailure","message":"it \"broke\""}"#.to_owned(),
                    exception.len() as u64
                ),
            ]
        );
    }

    #[test]
    fn a_bad_crc_is_an_error_at_its_message() {
        let first = event("messageStart", r#"{"role":"assistant"}"#);
        let mut second = event("messageStop", r#"{"stopReason":"end_turn"}"#);
        let at = first.len() as u64;
        let last = second.len() - 1;
        second[last] ^= 1;
        let (frames, error) = decode(&[&first, &second], 1024);
        assert_eq!(frames.len(), 1);
        assert_eq!(
            error,
            Some(FramingError::BadChecksum {
                offset: at,
                part: "message"
            })
        );
        second[last] ^= 1;
        second[9] ^= 0x10;
        let (_, error) = decode(&[&first, &second], 1024);
        assert_eq!(
            error,
            Some(FramingError::BadChecksum {
                offset: at,
                part: "prelude"
            })
        );
    }

    #[test]
    fn an_oversized_message_fails_at_its_prelude() {
        let message = event("contentBlockDelta", &"x".repeat(200));
        let mut decoder = EventStreamDecoder::with_max_message_bytes(100);
        decoder.push(&message[..PRELUDE_LEN]);
        assert_eq!(
            decoder.next_frame().unwrap_err(),
            FramingError::EventTooLarge {
                offset: 0,
                max: 100
            }
        );
        decoder.push(&message[PRELUDE_LEN..]);
        assert_eq!(
            decoder.counts().buffered_bytes,
            0,
            "nothing held after the error"
        );
    }

    #[test]
    fn lengths_and_headers_that_do_not_add_up_are_malformed() {
        let mut short = 8u32.to_be_bytes().to_vec();
        short.extend_from_slice(&0u32.to_be_bytes());
        short.extend_from_slice(&crc32(&short).to_be_bytes());
        let (_, error) = decode(&[&short], 1024);
        assert!(matches!(
            error,
            Some(FramingError::MalformedMessage { offset: 0, .. })
        ));
        let unknown_type = encode(&[("x", 42, b"")], b"{}");
        let (_, error) = decode(&[&unknown_type], 1024);
        assert!(matches!(
            error,
            Some(FramingError::MalformedMessage { offset: 0, .. })
        ));
        let bad_utf8 = encode(&[(":event-type", 7, b"a\xffb")], b"{}");
        let (_, error) = decode(&[&bad_utf8], 1024);
        assert_eq!(error, Some(FramingError::InvalidUtf8 { offset: 28 }));
    }

    #[test]
    fn a_message_cut_by_the_end_of_input_is_truncated() {
        let first = event("messageStart", "{}");
        let second = event("messageStop", "{}");
        for cut in [3, PRELUDE_LEN, second.len() - 1] {
            let (frames, error) = decode(&[&first, &second[..cut]], 1024);
            assert_eq!(frames.len(), 1);
            assert_eq!(
                error,
                Some(FramingError::TruncatedMessage {
                    offset: first.len() as u64
                }),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn memory_stays_bounded_by_one_message() {
        let message = event("contentBlockDelta", r#"{"delta":{"text":"hello"}}"#);
        let mut decoder = EventStreamDecoder::new();
        for _ in 0..1000 {
            for piece in message.chunks(7) {
                decoder.push(piece);
                while let Some(frame) = decoder.next_frame().unwrap() {
                    assert_eq!(frame.event, Some("contentBlockDelta"));
                }
                assert!(decoder.buf.len() <= 2 * message.len());
            }
        }
        assert_eq!(decoder.counts().frames, 1000);
        assert_eq!(decoder.counts().bytes_consumed, 1000 * message.len() as u64);
        // Linear: each byte is covered by one message CRC, and compaction moves at most as
        // many bytes as were pushed.
        let pushed = decoder.counts().bytes_pushed;
        assert_eq!(decoder.work.checked, pushed);
        assert!(decoder.work.moved <= pushed, "{} moved", decoder.work.moved);
    }

    #[test]
    fn a_long_message_in_tiny_pieces_is_checked_once_and_never_moved() {
        let message = event("contentBlockDelta", &"x".repeat(100_000));
        let mut decoder = EventStreamDecoder::new();
        for piece in message.chunks(3) {
            decoder.push(piece);
            assert!(
                decoder.next_frame().unwrap().is_none() || decoder.counts().buffered_bytes == 0
            );
        }
        assert_eq!(decoder.counts().frames, 1);
        assert_eq!(decoder.work.checked, message.len() as u64);
        assert_eq!(decoder.work.moved, 0, "nothing consumed, nothing moved");
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_frames(
            texts in proptest::collection::vec("[a-z\u{e9}\u{4e2d}\"]{0,40}", 1..6),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let mut body = Vec::new();
            for text in &texts {
                body.extend(event("contentBlockDelta", &serde_json::json!({ "text": text }).to_string()));
            }
            let whole = decode(&[&body], 1 << 20);
            prop_assert_eq!(whole.0.len(), texts.len());
            prop_assert_eq!(&whole.1, &None);
            let mut points: Vec<usize> = cuts.iter().map(|cut| cut.index(body.len() + 1)).collect();
            points.sort_unstable();
            let mut pieces = Vec::new();
            let mut at = 0;
            for point in points {
                pieces.push(&body[at..point]);
                at = point;
            }
            pieces.push(&body[at..]);
            prop_assert_eq!(decode(&pieces, 1 << 20), whole);
        }
    }
}
