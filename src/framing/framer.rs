//! Chooses the framing of a stream — server-sent events, newline-delimited JSON, a JSON array,
//! JSON values or AWS's binary event stream — from its content type when the transport knows
//! it, otherwise from its first bytes.
//!
//! A body starting with `[` is a JSON array (Gemini without `alt=sse`). A body starting with
//! `{` is NDJSON when its first line is a complete JSON value, as every NDJSON line is;
//! otherwise (a pretty-printed, non-streamed answer whose first line is `{`) it is read as JSON
//! values, each payload the whole value however many lines it spans. The choice is made once,
//! on the first line: an NDJSON stream is read exactly as before, a bad later line included.
//! `application/json` names no framing: the body decides. A NUL first byte starts the length
//! of a binary event-stream message, decided once its 12-byte prelude has come and its CRC
//! checks.

use super::eventstream::starts_with_prelude;
use super::json_array::{JsonArrayDecoder, Shape};
use super::sse::DataLine;
use super::{media_type, EventStreamDecoder, Frame, FramingError, Lent, NdjsonDecoder, SseDecoder};

/// The first bytes of a stream, which alone decide its framing, however the stream is cut into
/// reads: held while they cannot tell. Past them, whitespace alone is taken for an event stream
/// (whose decoder bounds what it holds) and a first `{` line that has not ended for NDJSON.
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
    /// One JSON array whose elements are the payloads.
    JsonArray,
    /// JSON values, each the payload, whatever lines they span.
    JsonValues,
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

    /// The framing of a stream that begins with these bytes, or `None` while they cannot tell
    /// (all whitespace, a `{` line not ended yet unless `at_end`, or the first bytes of a binary
    /// prelude): `[` is a JSON array, a `{` line a complete value is NDJSON and one that is not
    /// JSON values, a NUL byte a binary event stream whose prelude checks, anything else
    /// (`data:`, `event:`, `:` …) a text event stream.
    fn sniff(bytes: &[u8], at_end: bool) -> Option<Framing> {
        let past_window = bytes.len() > MAX_UNDECIDED_BYTES;
        let bytes = &bytes[..bytes.len().min(MAX_UNDECIDED_BYTES)];
        if bytes.first() == Some(&0) {
            return match starts_with_prelude(bytes) {
                Some(true) => Some(Framing::EventStream),
                Some(false) => Some(Framing::Sse),
                None if at_end => Some(Framing::Sse),
                None => None,
            };
        }
        let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
        if bytes.len() < BOM.len() && BOM.starts_with(bytes) && !bytes.is_empty() {
            return None;
        }
        let Some(start) = bytes.iter().position(|byte| !byte.is_ascii_whitespace()) else {
            return past_window.then_some(Framing::Sse);
        };
        match bytes[start] {
            b'[' => Some(Framing::JsonArray),
            b'{' => match first_line_is_whole(&bytes[start..]) {
                Some(true) => Some(Framing::Ndjson),
                Some(false) => Some(Framing::JsonValues),
                None if at_end || past_window => Some(Framing::Ndjson),
                None => None,
            },
            _ => Some(Framing::Sse),
        }
    }
}

/// Whether the line `text` starts with closes every object and array it opens; `None` while the
/// line has not ended.
fn first_line_is_whole(text: &[u8]) -> Option<bool> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &byte in text {
        match byte {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'{' | b'[' if !in_string => depth += 1,
            b'}' | b']' if !in_string => depth = depth.saturating_sub(1),
            b'\n' => return Some(depth == 0 && !in_string),
            _ => {}
        }
    }
    None
}

/// The decoder of one stream, created once its framing is known.
#[derive(Debug)]
pub(crate) enum Framer {
    /// Nothing but whitespace has arrived yet.
    Undecided {
        held: Vec<u8>,
        max: usize,
        /// The SSE decoder of a stream before a reset, kept with its buffers for the next one.
        spare: Option<SseDecoder>,
    },
    Sse(SseDecoder),
    Ndjson(NdjsonDecoder),
    EventStream(EventStreamDecoder),
    Json(JsonArrayDecoder),
}

impl Framer {
    pub(crate) fn new(max_event_bytes: usize) -> Self {
        Framer::Undecided {
            held: Vec::new(),
            max: max_event_bytes,
            spare: None,
        }
    }

    /// Forgets the stream for a new one (of events up to `max` bytes, as before), whose framing
    /// is sniffed again; an SSE decoder is kept with its buffers for it.
    pub(crate) fn reset(&mut self, max: usize) {
        let (mut held, spare) = match std::mem::replace(self, Framer::new(max)) {
            Framer::Sse(decoder) => (Vec::new(), Some(decoder)),
            Framer::Undecided { held, spare, .. } => (held, spare),
            _ => (Vec::new(), None),
        };
        held.clear();
        *self = Framer::Undecided {
            held,
            max,
            spare: spare.map(|mut decoder| {
                decoder.reset();
                decoder.set_max_event_bytes(max);
                decoder
            }),
        };
    }

    /// Sets the bound on the events of an event stream still to come (the one being read
    /// included): the only framing whose closing event repeats the whole answer (OpenAI
    /// Responses' `response.completed`). Other framings keep theirs.
    pub(crate) fn set_max_event_bytes(&mut self, max: usize) {
        match self {
            Framer::Undecided { max: held_max, .. } => *held_max = max,
            Framer::Sse(decoder) => decoder.set_max_event_bytes(max),
            Framer::Ndjson(_) | Framer::EventStream(_) | Framer::Json(_) => {}
        }
    }

    /// Fixes the framing before any byte arrived (from a content type or a dialect); later
    /// calls change nothing.
    pub(crate) fn set_framing(&mut self, framing: Framing) {
        if let Framer::Undecided { held, max, spare } = self {
            if held.is_empty() {
                *self = Self::decided(framing, *max, spare.take());
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
            Framer::Json(decoder) => Some(match decoder.shape() {
                Shape::Array => Framing::JsonArray,
                Shape::Values => Framing::JsonValues,
            }),
        }
    }

    /// The decoder for `framing`; SSE reuses `spare` (reset, of the same limit) if there is one.
    fn decided(framing: Framing, max: usize, spare: Option<SseDecoder>) -> Self {
        match framing {
            Framing::Sse => {
                Framer::Sse(spare.unwrap_or_else(|| SseDecoder::with_max_event_bytes(max)))
            }
            Framing::Ndjson => Framer::Ndjson(NdjsonDecoder::with_max_line_bytes(max)),
            Framing::EventStream => {
                Framer::EventStream(EventStreamDecoder::with_max_message_bytes(max))
            }
            Framing::JsonArray => Framer::Json(JsonArrayDecoder::new(Shape::Array, max)),
            Framing::JsonValues => Framer::Json(JsonArrayDecoder::new(Shape::Values, max)),
        }
    }

    fn decide(&mut self, framing: Framing) {
        if let Framer::Undecided { held, max, spare } = self {
            let held = std::mem::take(held);
            *self = Self::decided(framing, *max, spare.take());
            self.push(&held);
        }
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        match self {
            Framer::Sse(decoder) => decoder.push(bytes),
            Framer::Ndjson(decoder) => decoder.push(bytes),
            Framer::EventStream(decoder) => decoder.push(bytes),
            Framer::Json(decoder) => decoder.push(bytes),
            Framer::Undecided { held, max, spare } if held.is_empty() => {
                // The usual case: the first push decides, and goes to the decoder uncopied.
                if let Some(framing) = Framing::sniff(bytes, false) {
                    *self = Self::decided(framing, *max, spare.take());
                    self.push(bytes);
                } else {
                    held.extend_from_slice(bytes);
                }
            }
            Framer::Undecided { held, .. } => {
                held.extend_from_slice(bytes);
                if let Some(framing) = Framing::sniff(held, false) {
                    self.decide(framing);
                }
            }
        }
    }

    pub(crate) fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        match self {
            Framer::Sse(decoder) => decoder.next_frame(),
            Framer::Ndjson(decoder) => decoder.next_frame(),
            Framer::EventStream(decoder) => decoder.next_frame(),
            Framer::Json(decoder) => decoder.next_frame(),
            Framer::Undecided { .. } => Ok(None),
        }
    }

    /// The next frame of the input pushed before and then of `lent`; `Ok(None)` once every lent
    /// byte is taken. An event stream frames its events where they lie in the read; the other
    /// framings copy it, as [`push`](Self::push) does.
    pub(crate) fn next_lent<'s, 'b: 's>(
        &'s mut self,
        lent: &mut Lent<'b>,
    ) -> Result<Option<Frame<'s>>, FramingError> {
        if let Framer::Undecided { held, max, spare } = self {
            let sniffed = held
                .is_empty()
                .then(|| Framing::sniff(lent.first_bytes(), false));
            if let Some(Some(framing)) = sniffed {
                *self = Self::decided(framing, *max, spare.take());
            }
        }
        if let Framer::Sse(decoder) = self {
            return decoder.next_lent(lent);
        }
        for piece in lent
            .take_all()
            .into_iter()
            .filter(|piece| !piece.is_empty())
        {
            self.push(piece);
        }
        self.next_frame()
    }

    /// The next event's `data:` line to the end of the text at hand (`lent`, or the input
    /// pushed when no read is lent), for a reader that takes the event whole, without a frame,
    /// once it knows where the value ends (then [`pass_over_data_event`](Self::pass_over_data_event)).
    /// Event streams only.
    #[inline]
    pub(crate) fn data_line<'a>(&'a self, lent: Option<&Lent<'a>>) -> Option<DataLine<'a>> {
        match self {
            Framer::Sse(decoder) => decoder.data_line(lent),
            _ => None,
        }
    }

    /// Takes the next `len` bytes (of `lent`, or of the input pushed) as the event whose
    /// [`data_line`](Self::data_line) the reader read whole.
    #[inline]
    pub(crate) fn pass_over_data_event(&mut self, lent: Option<&mut Lent<'_>>, len: usize) {
        if let Framer::Sse(decoder) = self {
            decoder.pass_over_data_event(lent, len);
        }
    }

    /// The input is over: a framing still undecided is decided from what is held (a `{` line
    /// without its newline is NDJSON, and whole).
    pub(crate) fn decide_at_end(&mut self) {
        if let Framer::Undecided { held, .. } = self {
            let framing = Framing::sniff(held, true).unwrap_or(Framing::Sse);
            self.decide(framing);
        }
    }

    /// End of input; a stream that never showed a non-blank byte is read as an event stream.
    pub(crate) fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        self.decide_at_end();
        match self {
            Framer::Sse(decoder) => decoder.finish(),
            Framer::Ndjson(decoder) => decoder.finish(),
            Framer::EventStream(decoder) => decoder.finish(),
            Framer::Json(decoder) => decoder.finish(),
            Framer::Undecided { .. } => Ok(None),
        }
    }

    pub(crate) fn events_dispatched(&self) -> u64 {
        match self {
            Framer::Sse(decoder) => decoder.events_dispatched(),
            Framer::Ndjson(decoder) => decoder.events_dispatched(),
            Framer::EventStream(decoder) => decoder.events_dispatched(),
            Framer::Json(decoder) => decoder.events_dispatched(),
            Framer::Undecided { .. } => 0,
        }
    }

    pub(crate) fn bytes_consumed(&self) -> u64 {
        match self {
            Framer::Sse(decoder) => decoder.bytes_consumed(),
            Framer::Ndjson(decoder) => decoder.bytes_consumed(),
            Framer::EventStream(decoder) => decoder.bytes_consumed(),
            Framer::Json(decoder) => decoder.bytes_consumed(),
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
            framing_of(&[b"\xEF\xBB", b"\xBF\n {", b"}\n"]),
            Some(Framing::Ndjson)
        );
        assert_eq!(framing_of(&[b"\r\n", b"  "]), None);
        assert_eq!(framing_of(&[b"\n[{\"a\":1}\n"]), Some(Framing::JsonArray));
        assert_eq!(
            framing_of(&[b"{\n  \"a\": 1\n}"]),
            Some(Framing::JsonValues)
        );
        assert_eq!(
            framing_of(&[b"{\"a\":", b"\"{\"}\n{"]),
            Some(Framing::Ndjson)
        );
        assert_eq!(
            framing_of(&[b"{\"a\":1"]),
            None,
            "the first line has not ended"
        );
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

    /// Only the first bytes decide, so the framing does not depend on how the stream is cut: a
    /// first `{` line longer than them whose braces do not balance (or whitespace past them,
    /// then a `{` line) is framed the same whole and in pieces.
    #[test]
    fn the_framing_does_not_depend_on_the_reads() {
        let long_line = format!(
            "{{\"a\":\"{}\",\"b\":[}}\n",
            "x".repeat(MAX_UNDECIDED_BYTES)
        );
        let padded = format!("{}{{\"a\":1}}\n", " ".repeat(MAX_UNDECIDED_BYTES + 1));
        for (stream, framing) in [(long_line, Framing::Ndjson), (padded, Framing::Sse)] {
            let bytes = stream.as_bytes();
            assert_eq!(framing_of(&[bytes]), Some(framing));
            for size in [1, 7, 1000] {
                let pieces: Vec<&[u8]> = bytes.chunks(size).collect();
                assert_eq!(framing_of(&pieces), Some(framing), "pieces of {size}");
            }
        }
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
