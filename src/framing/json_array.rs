//! JSON-value framing: Gemini's `streamGenerateContent` without `alt=sse` streams one JSON array
//! (`[{…}\n,\r\n{…}]`, pretty-printed) whose elements are the payloads; a non-streamed answer
//! is one JSON value, often pretty-printed over many lines. Both are cut here into the values
//! they hold — the elements of a top-level array, or each top-level value — under the
//! [`FrameDecoder`] contract.
//!
//! The scanner is resumable: it keeps its place, the nesting depth and whether it is inside a
//! string or just after a backslash, so every byte is looked at once however the input is split,
//! and it holds at most one value (bounded by the maximum event size) plus unread input.

use std::fmt;

use super::decoder::{FrameCounts, FrameDecoder, DEFAULT_MAX_EVENT_BYTES};
use super::error::FramingError;
use super::frame::Frame;
use super::input::Input;

/// What the top level of a JSON stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonShape {
    /// One array: each element is a payload (the opening `[` is found by the scanner).
    Array,
    /// JSON values one after the other (usually one): each is a payload.
    Values,
}

/// Incremental, sans-IO splitter of a JSON array (or of concatenated JSON values) into values.
///
/// Each value is lent out as a [`Frame`] whose `data` is the value's exact text and whose
/// `event` is `None`. A value longer than the limit is an error as soon as it is seen; a value
/// cut by the end of the input comes out with `terminated == false`. After a [`FramingError`]
/// the decoder is poisoned and returns that error from every later call.
///
/// ```
/// use deltafold::framing::{FrameDecoder, JsonArrayDecoder};
///
/// // Gemini's `streamGenerateContent` without `alt=sse`: one pretty-printed array.
/// let mut decoder = JsonArrayDecoder::new();
/// decoder.push(b"[{\"text\": \"a]\"}\n,\r\n{\"te");
/// assert_eq!(decoder.next_frame()?.map(|value| value.data), Some(r#"{"text": "a]"}"#));
/// assert!(decoder.next_frame()?.is_none());
/// decoder.push(b"xt\": \"b\"}\n]");
/// assert_eq!(decoder.next_frame()?.map(|value| value.data), Some(r#"{"text": "b"}"#));
/// assert!(decoder.finish()?.is_none());
/// # Ok::<(), deltafold::framing::FramingError>(())
/// ```
pub struct JsonArrayDecoder {
    input: Input,
    shape: JsonShape,
    /// The array's `[` has been read (always true for [`JsonShape::Values`]).
    opened: bool,
    /// The array's `]` has been read: the rest of the input is ignored.
    closed: bool,
    /// Where the scan resumes.
    scan: u64,
    /// Start of the value being scanned, if one is.
    value_start: Option<u64>,
    /// Nesting inside the current value.
    depth: usize,
    in_string: bool,
    escaped: bool,
    bom_checked: bool,
    error: Option<FramingError>,
    max: usize,
    values: u64,
}

impl fmt::Debug for JsonArrayDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonArrayDecoder")
            .field("shape", &self.shape)
            .field("max_value_bytes", &self.max)
            .field("counts", &self.counts())
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

/// Where a value lies, until the next call into the decoder.
#[derive(Debug, Clone, Copy)]
struct Value {
    start: u64,
    end: u64,
    terminated: bool,
}

impl Default for JsonArrayDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl JsonArrayDecoder {
    /// A decoder of one array whose elements may span up to [`DEFAULT_MAX_EVENT_BYTES`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_shape(JsonShape::Array, DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder for a stream of this shape that fails with [`FramingError::EventTooLarge`] as
    /// soon as one value spans more than `max` bytes.
    #[must_use]
    pub fn with_shape(shape: JsonShape, max: usize) -> Self {
        JsonArrayDecoder {
            input: Input::default(),
            shape,
            opened: shape == JsonShape::Values,
            closed: false,
            scan: 0,
            value_start: None,
            depth: 0,
            in_string: false,
            escaped: false,
            bom_checked: false,
            error: None,
            max,
            values: 0,
        }
    }

    /// What the top level of the stream this decoder frames is.
    pub fn shape(&self) -> JsonShape {
        self.shape
    }

    fn consumed(&self) -> u64 {
        self.value_start.unwrap_or(self.scan)
    }

    fn step(&mut self) -> Result<Option<Value>, FramingError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        self.input.drop_before(self.consumed());
        self.advance().inspect_err(|error| {
            self.error = Some(error.clone());
            self.input.release();
        })
    }

    fn emit(&mut self, value: Option<Value>) -> Result<Option<Frame<'_>>, FramingError> {
        let Some(value) = value else {
            return Ok(None);
        };
        match self.input.text(value.start, value.end) {
            Ok(data) => Ok(Some(Frame {
                event: None,
                data,
                id: None,
                retry: None,
                number: self.values,
                offset: value.start,
                terminated: value.terminated,
            })),
            Err(error) => {
                self.error = Some(error.clone());
                Err(error)
            }
        }
    }

    fn advance(&mut self) -> Result<Option<Value>, FramingError> {
        if !self.bom_checked {
            let Some(bom) = self.input.leading_bom_len() else {
                return Ok(None);
            };
            self.scan += bom;
            self.bom_checked = true;
        }
        let end = self.input.end();
        while self.scan < end && !self.closed {
            let at = self.scan;
            let byte = self.input.byte(at);
            self.scan += 1;
            if let Some(value) = self.scan_byte(at, byte) {
                // Measured whole too: a value that came in one push meets the same limit as
                // one measured while it was still open.
                self.check_size(value.start, value.end)?;
                self.values += 1;
                return Ok(Some(value));
            }
        }
        if let Some(start) = self.value_start {
            self.check_size(start, self.scan)?;
        }
        if let Some(offset) = self.input.bad_utf8() {
            return Err(FramingError::InvalidUtf8 { offset });
        }
        if self.input.is_eof() {
            self.closed = true;
            if let Some(start) = self.value_start.take() {
                self.values += 1;
                return Ok(Some(Value {
                    start,
                    end: self.scan,
                    terminated: false,
                }));
            }
        }
        Ok(None)
    }

    /// One byte of the scan; the value it completes, if any.
    fn scan_byte(&mut self, at: u64, byte: u8) -> Option<Value> {
        let Some(start) = self.value_start else {
            return self.between_values(at, byte);
        };
        if self.in_string {
            match byte {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => self.in_string = false,
                _ => {}
            }
            return None;
        }
        match byte {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 1 => self.depth -= 1,
            b'}' | b']' if self.depth == 1 => return Some(self.complete(start, at + 1)),
            // A scalar at the top ends where the next thing begins.
            b',' | b']' | b'}' if self.depth == 0 => {
                self.scan = at;
                return Some(self.complete(start, at));
            }
            _ if self.depth == 0 && byte.is_ascii_whitespace() => {
                return Some(self.complete(start, at))
            }
            _ => {}
        }
        None
    }

    /// A byte outside any value: the array's brackets, separators, blanks, or a value's start.
    fn between_values(&mut self, at: u64, byte: u8) -> Option<Value> {
        match byte {
            _ if byte.is_ascii_whitespace() => {}
            b'[' if !self.opened => self.opened = true,
            b']' if self.shape == JsonShape::Array => self.closed = true,
            b',' if self.shape == JsonShape::Array => {}
            _ => {
                self.value_start = Some(at);
                match byte {
                    b'{' | b'[' => self.depth = 1,
                    b'"' => {
                        self.depth = 0;
                        self.in_string = true;
                    }
                    _ => self.depth = 0,
                }
            }
        }
        None
    }

    fn complete(&mut self, start: u64, end: u64) -> Value {
        self.value_start = None;
        self.depth = 0;
        Value {
            start,
            end,
            terminated: true,
        }
    }

    fn check_size(&self, start: u64, upto: u64) -> Result<(), FramingError> {
        if upto.saturating_sub(start) > self.max as u64 {
            return Err(FramingError::EventTooLarge {
                offset: start,
                max: self.max,
            });
        }
        Ok(())
    }
}

impl FrameDecoder for JsonArrayDecoder {
    fn push(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.input.drop_before(self.consumed());
        }
        self.input.push(bytes);
    }

    /// The next complete value.
    ///
    /// # Errors
    ///
    /// [`FramingError::EventTooLarge`] as soon as a value exceeds the limit, and
    /// [`FramingError::InvalidUtf8`] once the scan reaches an invalid byte.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        let value = self.step()?;
        self.emit(value)
    }

    /// End of input: the values still buffered, then a value cut short (with
    /// `terminated == false`).
    ///
    /// # Errors
    ///
    /// As [`next_frame`](Self::next_frame); in addition an incomplete UTF-8 sequence at the end
    /// of the input is [`FramingError::InvalidUtf8`].
    fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        if self.error.is_none() {
            self.input.finish();
        }
        let value = self.step()?;
        self.emit(value)
    }

    /// Consumed is everything before the value being scanned; held are that value and input
    /// not yet scanned.
    fn counts(&self) -> FrameCounts {
        FrameCounts {
            bytes_pushed: self.input.pushed(),
            bytes_consumed: self.consumed(),
            frames: self.values,
            buffered_bytes: self.input.held(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(
        shape: JsonShape,
        input: &[u8],
        piece: usize,
        max: usize,
    ) -> Result<Vec<String>, FramingError> {
        let mut decoder = JsonArrayDecoder::with_shape(shape, max);
        let mut out = Vec::new();
        for chunk in input.chunks(piece.max(1)) {
            decoder.push(chunk);
            while let Some(frame) = decoder.next_frame()? {
                out.push(frame.data.to_owned());
            }
        }
        while let Some(frame) = decoder.finish()? {
            out.push(format!(
                "{}{}",
                frame.data,
                if frame.terminated { "" } else { "…" }
            ));
        }
        Ok(out)
    }

    #[test]
    fn array_elements_come_out_whatever_the_split() {
        let body = b"\xEF\xBB\xBF[{\n  \"a\": \"]},\\\"\"\n}\n,\r\n{\"b\": [1, {\"c\": 2}]}\n,\r\n3, \"x,\"]\n";
        for piece in [1, 2, 3, 7, body.len()] {
            assert_eq!(
                values(JsonShape::Array, body, piece, 1024).unwrap(),
                [
                    "{\n  \"a\": \"]},\\\"\"\n}",
                    "{\"b\": [1, {\"c\": 2}]}",
                    "3",
                    "\"x,\""
                ],
                "piece {piece}"
            );
        }
    }

    #[test]
    fn a_pretty_printed_value_is_one_payload() {
        let body = b"{\n  \"done\": true,\n  \"message\": {\"content\": \"}\"}\n}\n{\"next\":1}";
        assert_eq!(
            values(JsonShape::Values, body, 5, 1024).unwrap(),
            [
                "{\n  \"done\": true,\n  \"message\": {\"content\": \"}\"}\n}",
                "{\"next\":1}"
            ]
        );
    }

    #[test]
    fn a_value_cut_by_the_end_is_unterminated() {
        assert_eq!(
            values(JsonShape::Array, b"[{\"a\":1},\n{\"b\":", 4, 1024).unwrap(),
            ["{\"a\":1}", "{\"b\":…"]
        );
    }

    #[test]
    fn a_value_past_the_limit_fails_before_it_ends() {
        let mut decoder = JsonArrayDecoder::with_shape(JsonShape::Array, 8);
        decoder.push(b"[{\"a\":\"0123456789");
        assert_eq!(
            decoder.next_frame().unwrap_err(),
            FramingError::EventTooLarge { offset: 1, max: 8 }
        );
        decoder.push(b"\"}]");
        assert!(decoder.next_frame().is_err(), "poisoned");
    }

    /// Found by the `pipeline` fuzz target: a value past the limit that came whole in one push
    /// was handed out (only a value still open was measured), one that came in pieces failed.
    #[test]
    fn a_value_past_the_limit_fails_however_it_is_split() {
        let body = b"{\"a\": \"0123456789\"\n}\n{\"b\":1}";
        for shape in [JsonShape::Values, JsonShape::Array] {
            for piece in [1, 2, 5, body.len()] {
                assert_eq!(
                    values(shape, body, piece, 8),
                    Err(FramingError::EventTooLarge { offset: 0, max: 8 }),
                    "{shape:?}, pieces of {piece}"
                );
            }
        }
        // At the limit exactly, the value is taken.
        assert_eq!(
            values(JsonShape::Values, b"{\"a\":12}", 9, 9).unwrap(),
            ["{\"a\":12}"]
        );
    }

    proptest::proptest! {
        /// However a body of values (nested, pretty-printed, with strings that hold brackets) is
        /// cut into pushes, and whatever the limit, the values or the error are the same.
        #[test]
        fn values_do_not_depend_on_the_cuts(
            values_text in proptest::collection::vec(
                r#"\{( |\n)?"[a-z{}\[\],]{0,12}"( |\n)?:( |\n)?(\[1,\{"b":2\}\]|"x"|7)( |\n)?\}"#,
                1..6,
            ),
            separator in "(\n|,\n|\r\n| )",
            array in proptest::bool::ANY,
            max in 8usize..64,
            piece in 1usize..16,
        ) {
            let mut body = values_text.join(&separator);
            let shape = if array {
                body = format!("[{}]", values_text.join(","));
                JsonShape::Array
            } else {
                JsonShape::Values
            };
            let whole = values(shape, body.as_bytes(), body.len(), max);
            proptest::prop_assert_eq!(values(shape, body.as_bytes(), piece, max), whole);
        }
    }

    #[test]
    fn the_buffer_holds_one_value_however_long_the_array() {
        let mut decoder = JsonArrayDecoder::with_shape(JsonShape::Array, 64);
        decoder.push(b"[");
        for _ in 0..10_000 {
            decoder.push(b"{\"text\": \"hello\"}\n,\r\n");
            while decoder.next_frame().unwrap().is_some() {}
        }
        assert!(
            decoder.input.capacity() < 1024,
            "{}",
            decoder.input.capacity()
        );
        assert_eq!(decoder.counts().frames, 10_000);
    }
}
