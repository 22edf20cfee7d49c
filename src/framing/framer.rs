//! The framer of one stream whose framing is not known ahead: it holds the first bytes until
//! they tell ([`Framing::sniff`]), or takes the framing a content type or a dialect names, then
//! hands every call to that framing's decoder — through the [`FrameDecoder`] trait, and to the
//! event-stream decoder's own fast paths (a lent read, an event taken whole) directly.

use super::decoder::{FrameCounts, FrameDecoder};
use super::error::FramingError;
use super::eventstream::EventStreamDecoder;
use super::frame::Frame;
use super::json_array::{JsonArrayDecoder, JsonShape};
use super::lent::Lent;
use super::ndjson::NdjsonDecoder;
use super::sniff::Framing;
use super::sse::{DataLine, SseDecoder};

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
                JsonShape::Values => Framing::JsonValues,
                _ => Framing::JsonArray,
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
            Framing::JsonArray => Framer::Json(JsonArrayDecoder::with_shape(JsonShape::Array, max)),
            Framing::JsonValues => {
                Framer::Json(JsonArrayDecoder::with_shape(JsonShape::Values, max))
            }
        }
    }

    fn decide(&mut self, framing: Framing) {
        if let Framer::Undecided { held, max, spare } = self {
            let held = std::mem::take(held);
            *self = Self::decided(framing, *max, spare.take());
            self.push(&held);
        }
    }

    /// The decoder, once the framing is decided: the one place that tells the framings apart.
    fn decoder(&self) -> Option<&dyn FrameDecoder> {
        match self {
            Framer::Undecided { .. } => None,
            Framer::Sse(decoder) => Some(decoder),
            Framer::Ndjson(decoder) => Some(decoder),
            Framer::EventStream(decoder) => Some(decoder),
            Framer::Json(decoder) => Some(decoder),
        }
    }

    fn decoder_mut(&mut self) -> Option<&mut dyn FrameDecoder> {
        match self {
            Framer::Undecided { .. } => None,
            Framer::Sse(decoder) => Some(decoder),
            Framer::Ndjson(decoder) => Some(decoder),
            Framer::EventStream(decoder) => Some(decoder),
            Framer::Json(decoder) => Some(decoder),
        }
    }

    /// The next frame of the input pushed before and then of `lent`; `Ok(None)` once every lent
    /// byte is taken. An event stream frames its events where they lie in the read; the other
    /// framings copy it, as [`push`](FrameDecoder::push) does.
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
}

impl FrameDecoder for Framer {
    /// Bytes that cannot tell the framing yet are held; the first push that tells goes to the
    /// decoder uncopied.
    fn push(&mut self, bytes: &[u8]) {
        match self {
            Framer::Undecided { held, max, spare } if held.is_empty() => {
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
            _ => {
                if let Some(decoder) = self.decoder_mut() {
                    decoder.push(bytes);
                }
            }
        }
    }

    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        self.decoder_mut()
            .map_or(Ok(None), |decoder| decoder.next_frame())
    }

    /// A stream that never showed a non-blank byte is read as an event stream.
    fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        self.decide_at_end();
        self.decoder_mut()
            .map_or(Ok(None), |decoder| decoder.finish())
    }

    /// Undecided, every byte pushed since the last reset is held.
    fn counts(&self) -> FrameCounts {
        if let Framer::Undecided { held, .. } = self {
            return FrameCounts {
                bytes_pushed: held.len() as u64,
                buffered_bytes: held.len(),
                ..FrameCounts::default()
            };
        }
        self.decoder().map(FrameDecoder::counts).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::sniff::MAX_UNDECIDED_BYTES;

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
}
