//! Newline-delimited JSON framing (`application/x-ndjson`), as Ollama's native API streams it:
//! one JSON value per line, framed under the [`FrameDecoder`] contract.

use std::fmt;

use super::decoder::{deprecated_counters, FrameCounts, FrameDecoder, DEFAULT_MAX_EVENT_BYTES};
use super::error::FramingError;
use super::frame::Frame;
use super::input::Input;

/// Incremental, sans-IO splitter of a newline-delimited JSON stream into lines.
///
/// Each line is lent out as a [`Frame`] whose `data` is the line without its line end (`\n` or
/// `\r\n`) and whose `event` is `None`. Blank lines are skipped. Every input byte is searched for
/// a line end once, however the input is split into pushes; a line longer than the limit is an
/// error as soon as it is seen, not once it ends; invalid UTF-8 is reported with its offset once
/// the lines before it have been read. After a [`FramingError`] the decoder is poisoned and
/// returns that error from every later call.
///
/// ```
/// use deltafold::framing::{FrameDecoder, NdjsonDecoder};
///
/// let mut decoder = NdjsonDecoder::new();
/// decoder.push(b"{\"a\":1}\r\n\n{\"b\"");
/// assert_eq!(decoder.next_frame()?.map(|line| line.data), Some("{\"a\":1}"));
/// assert!(decoder.next_frame()?.is_none());
/// decoder.push(b":2}");
/// // The stream ended without a final newline: the last line still comes out.
/// let last = decoder.finish()?.expect("the final line");
/// assert_eq!((last.data, last.terminated), ("{\"b\":2}", false));
/// # Ok::<(), deltafold::framing::FramingError>(())
/// ```
pub struct NdjsonDecoder {
    input: Input,
    /// Start of the first line not yet handed out.
    pos: u64,
    /// Where the search for the next newline resumes.
    scan: u64,
    bom_checked: bool,
    done: bool,
    error: Option<FramingError>,
    max: usize,
    lines: u64,
}

/// Where a line lies, until the next call into the decoder.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: u64,
    end: u64,
    terminated: bool,
}

impl Default for NdjsonDecoder {
    fn default() -> Self {
        Self::new()
    }
}

deprecated_counters!(NdjsonDecoder);

impl fmt::Debug for NdjsonDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NdjsonDecoder")
            .field("max_line_bytes", &self.max)
            .field("counts", &self.counts())
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl NdjsonDecoder {
    /// A decoder that allows lines of up to [`DEFAULT_MAX_EVENT_BYTES`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_line_bytes(DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder that fails with [`FramingError::EventTooLarge`] as soon as one line spans more
    /// than `max` bytes (its line end not counted).
    #[must_use]
    pub fn with_max_line_bytes(max: usize) -> Self {
        NdjsonDecoder {
            input: Input::default(),
            pos: 0,
            scan: 0,
            bom_checked: false,
            done: false,
            error: None,
            max,
            lines: 0,
        }
    }

    fn step(&mut self) -> Result<Option<Line>, FramingError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        if self.done {
            return Ok(None);
        }
        self.input.drop_before(self.pos);
        self.advance().inspect_err(|error| {
            self.error = Some(error.clone());
            self.input.release();
        })
    }

    fn emit(&mut self, line: Option<Line>) -> Result<Option<Frame<'_>>, FramingError> {
        let Some(line) = line else {
            return Ok(None);
        };
        match self.input.text(line.start, line.end) {
            Ok(data) => Ok(Some(Frame {
                event: None,
                data,
                id: None,
                retry: None,
                number: self.lines,
                offset: line.start,
                terminated: line.terminated,
            })),
            Err(error) => {
                self.error = Some(error.clone());
                Err(error)
            }
        }
    }

    fn advance(&mut self) -> Result<Option<Line>, FramingError> {
        loop {
            let end = self.input.end();
            if !self.bom_checked {
                let Some(bom) = self.input.leading_bom_len() else {
                    return Ok(None);
                };
                self.pos += bom;
                self.scan = self.pos;
                self.bom_checked = true;
            }
            let start = self.pos;
            let haystack = self.input.bytes_from(self.scan);
            match memchr::memchr(b'\n', haystack) {
                Some(found) => {
                    let newline = self.scan + found as u64;
                    let mut line_end = newline;
                    if line_end > start && self.byte(line_end - 1) == b'\r' {
                        line_end -= 1;
                    }
                    self.check_size(start, line_end)?;
                    self.pos = newline + 1;
                    self.scan = self.pos;
                    if self.is_blank(start, line_end) {
                        continue;
                    }
                    self.lines += 1;
                    return Ok(Some(Line {
                        start,
                        end: line_end,
                        terminated: true,
                    }));
                }
                None => {
                    self.scan = end;
                    // Only validated bytes are visible, so the outcome does not depend on where
                    // the input was split before an invalid byte; nor does a CR that may be the
                    // first half of the line's CRLF.
                    let mut upto = end;
                    if upto > start && self.byte(upto - 1) == b'\r' {
                        upto -= 1;
                    }
                    self.check_size(start, upto)?;
                    if let Some(offset) = self.input.bad_utf8() {
                        return Err(FramingError::InvalidUtf8 { offset });
                    }
                    if !self.input.is_eof() {
                        return Ok(None);
                    }
                    self.done = true;
                    self.pos = end;
                    let line_end = if end > start && self.byte(end - 1) == b'\r' {
                        end - 1
                    } else {
                        end
                    };
                    if self.is_blank(start, line_end) {
                        return Ok(None);
                    }
                    self.lines += 1;
                    return Ok(Some(Line {
                        start,
                        end: line_end,
                        terminated: false,
                    }));
                }
            }
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

    fn is_blank(&self, start: u64, end: u64) -> bool {
        self.input.bytes_from(start)[..(end - start) as usize]
            .iter()
            .all(u8::is_ascii_whitespace)
    }

    fn byte(&self, offset: u64) -> u8 {
        self.input.byte(offset)
    }
}

impl FrameDecoder for NdjsonDecoder {
    /// Input after an invalid byte is ignored as well.
    fn push(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.input.drop_before(self.pos);
        }
        self.input.push(bytes);
    }

    /// The next complete line.
    ///
    /// # Errors
    ///
    /// [`FramingError::InvalidUtf8`] once the line holding an invalid byte is reached, and
    /// [`FramingError::EventTooLarge`] as soon as a line exceeds the limit.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        let line = self.step()?;
        self.emit(line)
    }

    /// End of input: the lines still buffered, then a final line left without a newline (with
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
        let line = self.step()?;
        self.emit(line)
    }

    /// Held are at most one partial line and input not yet processed.
    fn counts(&self) -> FrameCounts {
        FrameCounts {
            bytes_pushed: self.input.pushed(),
            bytes_consumed: self.pos,
            frames: self.lines,
            buffered_bytes: self.input.held(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], piece: usize) -> Result<Vec<(String, bool, u64)>, FramingError> {
        let mut decoder = NdjsonDecoder::new();
        let mut out = Vec::new();
        for chunk in input.chunks(piece.max(1)) {
            decoder.push(chunk);
            while let Some(frame) = decoder.next_frame()? {
                out.push((frame.data.to_owned(), frame.terminated, frame.offset));
            }
        }
        while let Some(frame) = decoder.finish()? {
            out.push((frame.data.to_owned(), frame.terminated, frame.offset));
        }
        Ok(out)
    }

    #[test]
    fn splits_lines_skipping_blank_ones_and_crlf() {
        let input = b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \r\n{\"b\":\"\xC3\xA9\"}\n{\"c\":3}";
        for piece in [1, 2, 3, 7, input.len()] {
            let got = lines(input, piece).unwrap();
            assert_eq!(
                got,
                vec![
                    ("{\"a\":1}".to_owned(), true, 3),
                    ("{\"b\":\"é\"}".to_owned(), true, 17),
                    ("{\"c\":3}".to_owned(), false, 28),
                ],
                "piece {piece}"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_reported_after_the_lines_before_it() {
        let mut decoder = NdjsonDecoder::new();
        decoder.push(b"{\"a\":1}\n{\"b\":\"\xFF\"}\n{\"c\":1}\n");
        assert_eq!(decoder.next_frame().unwrap().unwrap().data, "{\"a\":1}");
        assert_eq!(
            decoder.next_frame().unwrap_err(),
            FramingError::InvalidUtf8 { offset: 14 }
        );
        assert!(decoder.finish().is_err());
    }

    #[test]
    fn an_incomplete_sequence_at_the_end_is_invalid() {
        let mut decoder = NdjsonDecoder::new();
        decoder.push(b"{\"a\":\"\xE2\x82");
        assert!(decoder.next_frame().unwrap().is_none());
        assert_eq!(
            decoder.finish().unwrap_err(),
            FramingError::InvalidUtf8 { offset: 6 }
        );
    }

    #[test]
    fn a_long_line_fails_before_it_ends() {
        let mut decoder = NdjsonDecoder::with_max_line_bytes(8);
        decoder.push(b"{\"ok\":1}\n{\"too\":");
        assert_eq!(decoder.next_frame().unwrap().unwrap().data, "{\"ok\":1}");
        decoder.push(b"\"long\"");
        assert_eq!(
            decoder.next_frame().unwrap_err(),
            FramingError::EventTooLarge { offset: 9, max: 8 }
        );
    }

    #[test]
    fn each_byte_is_searched_once_and_memory_stays_bounded() {
        let mut decoder = NdjsonDecoder::new();
        let line = b"{\"message\":{\"content\":\"hello\"},\"done\":false}\n";
        for _ in 0..1000 {
            for piece in line.chunks(5) {
                decoder.push(piece);
                while let Some(frame) = decoder.next_frame().unwrap() {
                    assert_eq!(frame.data.len(), line.len() - 1);
                }
            }
            assert!(decoder.counts().buffered_bytes <= line.len());
        }
        assert_eq!(decoder.counts().frames, 1000);
        assert_eq!(decoder.counts().bytes_consumed, 1000 * line.len() as u64);
    }
}
