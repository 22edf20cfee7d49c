//! Which framing a stream has — server-sent events, newline-delimited JSON, a JSON array,
//! JSON values or AWS's binary event stream — from its content type when the transport knows
//! it, otherwise from its first bytes.
//!
//! A body starting with `[` is a JSON array (Gemini without `alt=sse`). A body starting with
//! `{` is NDJSON when its first line is a complete JSON value, as every NDJSON line is;
//! otherwise (a pretty-printed, non-streamed answer whose first line is `{`) it is read as JSON
//! values, each payload the whole value however many lines it spans. The choice is made once,
//! on the first line: an NDJSON stream is read exactly as before, a bad later line included.
//! `application/json` names no framing: the body decides. A NUL first byte starts the length of a binary event-stream
//! message, decided once its 12-byte prelude has come and its CRC checks.

use super::decoder::FrameDecoder;
use super::eventstream::{starts_with_prelude, EventStreamDecoder};
use super::json_array::{JsonArrayDecoder, JsonShape};
use super::media_type::media_type;
use super::ndjson::NdjsonDecoder;
use super::sse::SseDecoder;

/// The first bytes of a stream, which alone decide its framing, however the stream is cut into
/// reads: held while they cannot tell. Past them, whitespace alone is taken for an event stream
/// (whose decoder bounds what it holds) and a first `{` line that has not ended for NDJSON.
pub(super) const MAX_UNDECIDED_BYTES: usize = 4096;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How a stream is cut into payloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Framing {
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
    pub fn from_content_type(content_type: &str) -> Option<Framing> {
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
    /// (`data:`, `event:`, `:` …) a text event stream. Only the first 4 KiB decide, so the
    /// answer does not depend on how the stream is cut into reads; `at_end` says no more bytes
    /// come.
    ///
    /// ```
    /// use deltafold::framing::Framing;
    ///
    /// assert_eq!(Framing::sniff(b"data: {}\n\n", false), Some(Framing::Sse));
    /// assert_eq!(Framing::sniff(b"{\"done\":false}\n", false), Some(Framing::Ndjson));
    /// assert_eq!(Framing::sniff(b"\r\n[{", false), Some(Framing::JsonArray));
    /// assert_eq!(Framing::sniff(b"{\"done\":", false), None);
    /// assert_eq!(Framing::sniff(b"{\"done\":", true), Some(Framing::Ndjson));
    /// ```
    pub fn sniff(bytes: &[u8], at_end: bool) -> Option<Framing> {
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

    /// A decoder of this framing whose frames may span up to `max_frame_bytes`.
    ///
    /// ```
    /// use deltafold::framing::{Framing, DEFAULT_MAX_EVENT_BYTES};
    ///
    /// let framing = Framing::from_content_type("application/x-ndjson").expect("a framing");
    /// let mut decoder = framing.decoder(DEFAULT_MAX_EVENT_BYTES);
    /// decoder.push(b"{\"a\":1}\n");
    /// assert_eq!(decoder.next_frame()?.map(|frame| frame.data), Some("{\"a\":1}"));
    /// # Ok::<(), deltafold::framing::FramingError>(())
    /// ```
    pub fn decoder(self, max_frame_bytes: usize) -> Box<dyn FrameDecoder + Send> {
        match self {
            Framing::Sse => Box::new(SseDecoder::with_max_event_bytes(max_frame_bytes)),
            Framing::Ndjson => Box::new(NdjsonDecoder::with_max_line_bytes(max_frame_bytes)),
            Framing::EventStream => {
                Box::new(EventStreamDecoder::with_max_message_bytes(max_frame_bytes))
            }
            Framing::JsonArray => Box::new(JsonArrayDecoder::with_shape(
                JsonShape::Array,
                max_frame_bytes,
            )),
            Framing::JsonValues => Box::new(JsonArrayDecoder::with_shape(
                JsonShape::Values,
                max_frame_bytes,
            )),
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

#[cfg(test)]
mod tests {
    use super::*;

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
