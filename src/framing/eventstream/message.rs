//! One binary event-stream message: its 12-byte prelude (total length, headers length, both
//! u32 big-endian, and the CRC-32 of those 8 bytes), its headers, its payload and the CRC-32 of
//! everything before it — checked, and read into a frame. A header is a name (u8 length +
//! bytes), a type byte and a value whose layout the type fixes.

use std::ops::Range;

use crc32fast::hash as crc32;

use super::EventStreamDecoder;
use crate::framing::error::FramingError;
use crate::framing::frame::Frame;

/// The prelude: total length, headers length, prelude CRC.
pub(super) const PRELUDE_LEN: usize = 12;
/// The prelude and the message CRC: the size of a message without headers or payload.
pub(super) const OVERHEAD: usize = PRELUDE_LEN + 4;

/// Whether `bytes` begin with an event-stream prelude whose CRC checks: what tells a binary
/// event stream from text. `None` while fewer than 12 bytes have come.
pub(crate) fn starts_with_prelude(bytes: &[u8]) -> Option<bool> {
    let prelude = bytes.get(..PRELUDE_LEN)?;
    Some(crc32(&prelude[..8]) == be_u32(&prelude[8..]))
}

/// Where the parts of a checked message lie in the buffer.
pub(super) struct Message {
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

impl EventStreamDecoder {
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
    pub(super) fn take_message(&mut self) -> Result<Option<Message>, FramingError> {
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

    pub(super) fn frame(&self, message: Message) -> Frame<'_> {
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
