//! Chooses the framing of a stream — server-sent events, newline-delimited JSON or AWS's binary
//! event stream — from its content type when the transport knows it, otherwise from its first
//! bytes.

use super::eventstream::starts_with_prelude;
use super::{media_type, EventStreamDecoder, Frame, FramingError, NdjsonDecoder, SseDecoder};

/// Leading whitespace held while the framing is undecided; past this, the stream is taken for
/// an event stream (whose decoder bounds what it holds).
const MAX_UNDECIDED_BYTES: usize = 4096;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How a stream is cut into payloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `text/event-stream`.
    Sse,
    /// One JSON value per line (`application/x-ndjson`).
    Ndjson,
    /// AWS's binary event stream (`application/vnd.amazon.eventstream`), as Bedrock sends it.
    EventStream,
}

impl Framing {
    /// The framing a `Content-Type` names, if it names one.
    pub(crate) fn from_content_type(content_type: &str) -> Option<Framing> {
        match media_type(content_type).as_str() {
            "text/event-stream" => Some(Framing::Sse),
            "application/x-ndjson"
            | "application/ndjson"
            | "application/jsonl"
            | "application/x-jsonlines"
            | "application/jsonlines" => Some(Framing::Ndjson),
            "application/vnd.amazon.eventstream" => Some(Framing::EventStream),
            _ => None,
        }
    }

    /// The framing of a stream that begins with these bytes, or `None` while they are all
    /// whitespace: a first line starting with `{` is NDJSON, a NUL byte starts the length of a
    /// binary event-stream message (decided once its 12-byte prelude has come and its CRC
    /// checks), anything else (`data:`, `event:`, `:` …) a text event stream.
    fn sniff(bytes: &[u8]) -> Option<Framing> {
        if bytes.first() == Some(&0) {
            return match starts_with_prelude(bytes)? {
                true => Some(Framing::EventStream),
                false => Some(Framing::Sse),
            };
        }
        let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
        if bytes.len() < BOM.len() && BOM.starts_with(bytes) && !bytes.is_empty() {
            return None;
        }
        match bytes.iter().find(|byte| !byte.is_ascii_whitespace())? {
            b'{' => Some(Framing::Ndjson),
            _ => Some(Framing::Sse),
        }
    }
}

/// The decoder of one stream, created once its framing is known.
#[derive(Debug)]
pub(crate) enum Framer {
    /// Nothing but whitespace has arrived yet.
    Undecided {
        held: Vec<u8>,
        max: usize,
    },
    Sse(SseDecoder),
    Ndjson(NdjsonDecoder),
    EventStream(EventStreamDecoder),
}

impl Framer {
    pub(crate) fn new(max_event_bytes: usize) -> Self {
        Framer::Undecided {
            held: Vec::new(),
            max: max_event_bytes,
        }
    }

    /// Fixes the framing before any byte arrived (from a content type or a dialect); later
    /// calls change nothing.
    pub(crate) fn set_framing(&mut self, framing: Framing) {
        if let Framer::Undecided { held, max } = self {
            if held.is_empty() {
                *self = Self::decided(framing, *max);
            }
        }
    }

    /// The framing, once decided.
    pub(crate) fn framing(&self) -> Option<Framing> {
        match self {
            Framer::Undecided { .. } => None,
            Framer::Sse(_) => Some(Framing::Sse),
            Framer::Ndjson(_) => Some(Framing::Ndjson),
            Framer::EventStream(_) => Some(Framing::EventStream),
        }
    }

    fn decided(framing: Framing, max: usize) -> Self {
        match framing {
            Framing::Sse => Framer::Sse(SseDecoder::with_max_event_bytes(max)),
            Framing::Ndjson => Framer::Ndjson(NdjsonDecoder::with_max_line_bytes(max)),
            Framing::EventStream => {
                Framer::EventStream(EventStreamDecoder::with_max_message_bytes(max))
            }
        }
    }

    fn decide(&mut self, framing: Framing) {
        if let Framer::Undecided { held, max } = self {
            let held = std::mem::take(held);
            *self = Self::decided(framing, *max);
            self.push(&held);
        }
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        match self {
            Framer::Sse(decoder) => decoder.push(bytes),
            Framer::Ndjson(decoder) => decoder.push(bytes),
            Framer::EventStream(decoder) => decoder.push(bytes),
            Framer::Undecided { held, max } if held.is_empty() => {
                // The usual case: the first push decides, and goes to the decoder uncopied.
                if let Some(framing) = Framing::sniff(bytes) {
                    *self = Self::decided(framing, *max);
                    self.push(bytes);
                } else {
                    held.extend_from_slice(bytes);
                }
            }
            Framer::Undecided { held, .. } => {
                held.extend_from_slice(bytes);
                match Framing::sniff(held) {
                    Some(framing) => self.decide(framing),
                    None if held.len() > MAX_UNDECIDED_BYTES => self.decide(Framing::Sse),
                    None => {}
                }
            }
        }
    }

    pub(crate) fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        match self {
            Framer::Sse(decoder) => decoder.next_frame(),
            Framer::Ndjson(decoder) => decoder.next_frame(),
            Framer::EventStream(decoder) => decoder.next_frame(),
            Framer::Undecided { .. } => Ok(None),
        }
    }

    /// End of input; a stream that never showed a non-blank byte is read as an event stream.
    pub(crate) fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        if let Framer::Undecided { .. } = self {
            self.decide(Framing::Sse);
        }
        match self {
            Framer::Sse(decoder) => decoder.finish(),
            Framer::Ndjson(decoder) => decoder.finish(),
            Framer::EventStream(decoder) => decoder.finish(),
            Framer::Undecided { .. } => Ok(None),
        }
    }

    pub(crate) fn events_dispatched(&self) -> u64 {
        match self {
            Framer::Sse(decoder) => decoder.events_dispatched(),
            Framer::Ndjson(decoder) => decoder.events_dispatched(),
            Framer::EventStream(decoder) => decoder.events_dispatched(),
            Framer::Undecided { .. } => 0,
        }
    }

    pub(crate) fn bytes_consumed(&self) -> u64 {
        match self {
            Framer::Sse(decoder) => decoder.bytes_consumed(),
            Framer::Ndjson(decoder) => decoder.bytes_consumed(),
            Framer::EventStream(decoder) => decoder.bytes_consumed(),
            Framer::Undecided { .. } => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framing_of(pieces: &[&[u8]]) -> Option<Framing> {
        let mut framer = Framer::new(1024);
        for piece in pieces {
            framer.push(piece);
        }
        framer.framing()
    }

    #[test]
    fn the_first_non_blank_byte_decides() {
        assert_eq!(framing_of(&[b"data: {}\n\n"]), Some(Framing::Sse));
        assert_eq!(framing_of(&[b": ping\n\n"]), Some(Framing::Sse));
        assert_eq!(framing_of(&[b"event: x\n"]), Some(Framing::Sse));
        assert_eq!(framing_of(&[b"{\"done\":false}\n"]), Some(Framing::Ndjson));
        assert_eq!(
            framing_of(&[b"\xEF\xBB", b"\xBF\n {"]),
            Some(Framing::Ndjson)
        );
        assert_eq!(framing_of(&[b"\r\n", b"  "]), None);
        assert_eq!(framing_of(&[b"\xEF"]), None);
        // A binary event-stream prelude (lengths 16/0 and their CRC), whole or split.
        let prelude = b"\x00\x00\x00\x10\x00\x00\x00\x00\x05\xC2\x48\xEB";
        assert_eq!(framing_of(&[prelude]), Some(Framing::EventStream));
        assert_eq!(framing_of(&[&prelude[..5]]), None);
        assert_eq!(
            framing_of(&[&prelude[..5], &prelude[5..]]),
            Some(Framing::EventStream)
        );
        assert_eq!(
            framing_of(&[b"\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00"]),
            Some(Framing::Sse)
        );
    }

    #[test]
    fn held_bytes_reach_the_decoder() {
        let mut framer = Framer::new(1024);
        framer.push(b"\n");
        framer.push(b"{\"a\":1}\n");
        let frame = framer.next_frame().unwrap().unwrap();
        assert_eq!((frame.data, frame.offset), ("{\"a\":1}", 1));
    }

    #[test]
    fn content_types_name_a_framing() {
        assert_eq!(
            Framing::from_content_type("text/event-stream; charset=utf-8"),
            Some(Framing::Sse)
        );
        assert_eq!(
            Framing::from_content_type("application/x-ndjson"),
            Some(Framing::Ndjson)
        );
        assert_eq!(
            Framing::from_content_type("application/vnd.amazon.eventstream"),
            Some(Framing::EventStream)
        );
        assert_eq!(Framing::from_content_type("application/json"), None);
    }
}
