//! The AWS event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock's
//! `ConverseStream` and `InvokeModelWithResponseStream` send it: binary, length-prefixed
//! messages, each checked by two CRC-32s. The same contract as [`SseDecoder`](super::SseDecoder),
//! so the assembler drives it the same way.
//!
//! A message is a 12-byte prelude (total length, headers length, both u32 big-endian, and the
//! CRC-32 of those 8 bytes), the headers, the payload and the CRC-32 of everything before it. A
//! header is a name (u8 length + bytes), a type byte and a value whose layout the type fixes.

use std::fmt;
use std::ops::Range;

use crc32fast::hash as crc32;

use super::error::FramingError;
use super::frame::Frame;

/// The prelude: total length, headers length, prelude CRC.
const PRELUDE_LEN: usize = 12;
/// The prelude and the message CRC: the size of a message without headers or payload.
const OVERHEAD: usize = PRELUDE_LEN + 4;

/// Whether `bytes` begin with an event-stream prelude whose CRC checks: what tells a binary
/// event stream from text. `None` while fewer than 12 bytes have come.
pub(crate) fn starts_with_prelude(bytes: &[u8]) -> Option<bool> {
    let prelude = bytes.get(..PRELUDE_LEN)?;
    Some(crc32(&prelude[..8]) == be_u32(&prelude[8..]))
}

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
/// use deltafold::framing::EventStreamDecoder;
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

/// Where the parts of a checked message lie in the buffer.
struct Message {
    event: Option<Range<usize>>,
    data: Payload,
    offset: u64,
}

enum Payload {
    Bytes(Range<usize>),
    ErrorMessage,
}

/// The headers a frame is made from.
#[derive(Default)]
struct Headers {
    message_type: Option<Range<usize>>,
    event_type: Option<Range<usize>>,
    exception_type: Option<Range<usize>>,
    error_code: Option<Range<usize>>,
    error_message: Option<Range<usize>>,
}

impl Default for EventStreamDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for EventStreamDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStreamDecoder")
            .field("max_message_bytes", &self.max)
            .field("bytes_pushed", &self.pushed)
            .field("bytes_consumed", &self.bytes_consumed())
            .field("buffered_bytes", &self.buffered_bytes())
            .field("messages_dispatched", &self.messages)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl EventStreamDecoder {
    /// A decoder that allows messages of up to
    /// [`DEFAULT_MAX_EVENT_BYTES`](super::DEFAULT_MAX_EVENT_BYTES).
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_message_bytes(super::DEFAULT_MAX_EVENT_BYTES)
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

    /// Appends bytes read from the network. Never fails; errors surface from `next_frame`.
    /// Input after an error or after `finish` is ignored.
    pub fn push(&mut self, bytes: &[u8]) {
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

    /// The next complete message, borrowing the decoder's buffer. `Ok(None)` means more input is
    /// needed.
    ///
    /// # Errors
    ///
    /// [`FramingError::BadChecksum`] for a prelude or message whose CRC does not match,
    /// [`FramingError::EventTooLarge`] for a message longer than the limit,
    /// [`FramingError::MalformedMessage`] for lengths or headers that do not add up, and
    /// [`FramingError::InvalidUtf8`] for a payload or string header that is not UTF-8. Each
    /// poisons the decoder.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
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

    fn fail(&mut self, error: FramingError) -> Result<Option<Frame<'_>>, FramingError> {
        self.error = Some(error.clone());
        self.buf = Vec::new();
        self.base += self.pos as u64;
        self.pos = 0;
        Err(error)
    }

    /// End of input: hands out the messages still buffered, one per call, then `Ok(None)`.
    ///
    /// # Errors
    ///
    /// As [`next_frame`](Self::next_frame); in addition, bytes left that do not make a whole
    /// message are [`FramingError::TruncatedMessage`].
    pub fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        self.eof = true;
        self.next_frame()
    }

    /// Total bytes of input fully processed.
    pub fn bytes_consumed(&self) -> u64 {
        self.offset_of(self.pos)
    }

    /// Total bytes passed to [`push`](Self::push), including ignored ones.
    pub fn bytes_pushed(&self) -> u64 {
        self.pushed
    }

    /// Number of messages handed out so far.
    pub fn events_dispatched(&self) -> u64 {
        self.messages
    }

    /// Bytes currently held: at most one partial message plus input not yet processed.
    pub fn buffered_bytes(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn offset_of(&self, index: usize) -> u64 {
        self.base + index as u64
    }

    /// The total length the prelude at `pos` announces, once it has come.
    fn message_len_if_known(&self) -> Option<usize> {
        let prelude = self.buf.get(self.pos..self.pos + PRELUDE_LEN)?;
        Some(be_u32(prelude) as usize)
    }

    /// What is wrong with the prelude at `pos`, if it has come and is wrong.
    fn prelude_error(&self) -> Option<FramingError> {
        let prelude = self.buf.get(self.pos..self.pos + PRELUDE_LEN)?;
        let offset = self.offset_of(self.pos);
        if crc32(&prelude[..8]) != be_u32(&prelude[8..]) {
            return Some(FramingError::BadChecksum {
                offset,
                part: "prelude",
            });
        }
        let total = be_u32(prelude) as usize;
        let headers = be_u32(&prelude[4..]) as usize;
        if total > self.max {
            return Some(FramingError::EventTooLarge {
                offset,
                max: self.max,
            });
        }
        if total < OVERHEAD || headers > total - OVERHEAD {
            return Some(FramingError::MalformedMessage {
                offset,
                reason: "lengths that do not fit the message",
            });
        }
        None
    }

    /// Checks and parses the message at `pos` once all of it has come.
    fn take_message(&mut self) -> Result<Option<Message>, FramingError> {
        let Some(total) = self.message_len_if_known() else {
            return Ok(None);
        };
        if let Some(error) = self.prelude_error() {
            return Err(error);
        }
        if self.buf.len() - self.pos < total {
            return Ok(None);
        }
        let start = self.pos;
        let offset = self.offset_of(start);
        let end = start + total;
        #[cfg(test)]
        {
            self.work.checked += total as u64;
        }
        let message = &self.buf[start..end];
        if crc32(&message[..total - 4]) != be_u32(&message[total - 4..]) {
            return Err(FramingError::BadChecksum {
                offset,
                part: "message",
            });
        }
        let headers_len = be_u32(&message[4..]) as usize;
        let headers_start = start + PRELUDE_LEN;
        let payload_start = headers_start + headers_len;
        let headers = self.headers(headers_start..payload_start, offset)?;
        let payload = payload_start..end - 4;
        self.check_utf8(payload.clone())?;
        self.pos = end;
        self.messages += 1;
        let is = |range: &Option<Range<usize>>, value: &str| {
            range
                .clone()
                .is_some_and(|range| &self.buf[range] == value.as_bytes())
        };
        let (event, data) = if is(&headers.message_type, "exception") {
            (headers.exception_type, Payload::Bytes(payload))
        } else if is(&headers.message_type, "error") {
            let text = |range: Option<Range<usize>>| {
                range.map_or("", |range| {
                    std::str::from_utf8(&self.buf[range]).unwrap_or("")
                })
            };
            let message = serde_json::json!({
                "code": text(headers.error_code.clone()),
                "message": text(headers.error_message),
            });
            self.error_payload = message.to_string();
            (headers.error_code, Payload::ErrorMessage)
        } else {
            (headers.event_type, Payload::Bytes(payload))
        };
        Ok(Some(Message {
            event,
            data,
            offset,
        }))
    }

    /// Reads the headers in `range`, keeping the few that name the frame; every value type of
    /// the format is stepped over.
    fn headers(&self, range: Range<usize>, offset: u64) -> Result<Headers, FramingError> {
        let malformed = |reason| FramingError::MalformedMessage { offset, reason };
        let bytes = &self.buf[range.clone()];
        let mut headers = Headers::default();
        let mut at = 0;
        while at < bytes.len() {
            let name_len = usize::from(bytes[at]);
            let name = bytes
                .get(at + 1..at + 1 + name_len)
                .ok_or(malformed("a header name past the headers"))?;
            at += 1 + name_len;
            let kind = *bytes.get(at).ok_or(malformed("a header without a type"))?;
            at += 1;
            let value_len = match kind {
                0 | 1 => 0,
                2 => 1,
                3 => 2,
                4 => 4,
                5 | 8 => 8,
                9 => 16,
                6 | 7 => {
                    let len = bytes
                        .get(at..at + 2)
                        .ok_or(malformed("a header value past the headers"))?;
                    at += 2;
                    usize::from(u16::from_be_bytes([len[0], len[1]]))
                }
                _ => return Err(malformed("a header value of an unknown type")),
            };
            if at + value_len > bytes.len() {
                return Err(malformed("a header value past the headers"));
            }
            let value = range.start + at..range.start + at + value_len;
            at += value_len;
            if kind != 7 {
                continue;
            }
            let slot = match name {
                b":message-type" => &mut headers.message_type,
                b":event-type" => &mut headers.event_type,
                b":exception-type" => &mut headers.exception_type,
                b":error-code" => &mut headers.error_code,
                b":error-message" => &mut headers.error_message,
                _ => continue,
            };
            self.check_utf8(value.clone())?;
            *slot = Some(value);
        }
        Ok(headers)
    }

    fn check_utf8(&self, range: Range<usize>) -> Result<(), FramingError> {
        std::str::from_utf8(&self.buf[range.clone()])
            .map(drop)
            .map_err(|error| FramingError::InvalidUtf8 {
                offset: self.offset_of(range.start + error.valid_up_to()),
            })
    }

    fn frame(&self, message: Message) -> Frame<'_> {
        // Both were checked as UTF-8 by `take_message`.
        let text = |range: Range<usize>| std::str::from_utf8(&self.buf[range]).unwrap_or_default();
        Frame {
            event: message.event.map(text),
            data: match message.data {
                Payload::Bytes(range) => text(range),
                Payload::ErrorMessage => &self.error_payload,
            },
            id: None,
            retry: None,
            number: self.messages,
            offset: message.offset,
            terminated: true,
        }
    }
}

fn be_u32(bytes: &[u8]) -> u32 {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

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
        assert_eq!(decoder.buffered_bytes(), 0, "nothing held after the error");
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
        assert_eq!(decoder.events_dispatched(), 1000);
        assert_eq!(decoder.bytes_consumed(), 1000 * message.len() as u64);
        // Linear: each byte is covered by one message CRC, and compaction moves at most as
        // many bytes as were pushed.
        let pushed = decoder.bytes_pushed();
        assert_eq!(decoder.work.checked, pushed);
        assert!(decoder.work.moved <= pushed, "{} moved", decoder.work.moved);
    }

    #[test]
    fn a_long_message_in_tiny_pieces_is_checked_once_and_never_moved() {
        let message = event("contentBlockDelta", &"x".repeat(100_000));
        let mut decoder = EventStreamDecoder::new();
        for piece in message.chunks(3) {
            decoder.push(piece);
            assert!(decoder.next_frame().unwrap().is_none() || decoder.buffered_bytes() == 0);
        }
        assert_eq!(decoder.events_dispatched(), 1);
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
