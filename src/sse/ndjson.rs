//! Newline-delimited JSON framing (`application/x-ndjson`), as Ollama's native API streams it:
//! one JSON value per line. The same contract as [`SseDecoder`](super::SseDecoder), so the
//! assembler drives either the same way.

use std::fmt;

use bytes::{Buf, BytesMut};

use crate::sse::error::FramingError;
use crate::sse::frame::Frame;

const BOM: &[u8] = b"\xEF\xBB\xBF";

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
/// use deltafold::sse::NdjsonDecoder;
///
/// let mut decoder = NdjsonDecoder::new();
/// decoder.push(b"{\"a\":1}\r\n\n{\"b\"");
/// assert_eq!(decoder.next_frame()?.map(|line| line.data), Some("{\"a\":1}"));
/// assert!(decoder.next_frame()?.is_none());
/// decoder.push(b":2}");
/// // The stream ended without a final newline: the last line still comes out.
/// let last = decoder.finish()?.expect("the final line");
/// assert_eq!((last.data, last.terminated), ("{\"b\":2}", false));
/// # Ok::<(), deltafold::sse::FramingError>(())
/// ```
pub struct NdjsonDecoder {
    /// Input not yet dropped; `buf[0]` is at stream offset `base`.
    buf: BytesMut,
    base: u64,
    /// Start of the first line not yet handed out.
    pos: u64,
    /// Where the search for the next newline resumes.
    scan: u64,
    /// End of the input known to be UTF-8; at most an incomplete sequence follows it.
    utf8_valid: u64,
    /// First invalid UTF-8 byte; the input from there on has been dropped.
    bad_utf8: Option<u64>,
    bom_checked: bool,
    eof: bool,
    done: bool,
    error: Option<FramingError>,
    max: usize,
    pushed: u64,
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

impl fmt::Debug for NdjsonDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NdjsonDecoder")
            .field("max_line_bytes", &self.max)
            .field("bytes_pushed", &self.pushed)
            .field("bytes_consumed", &self.pos)
            .field("buffered_bytes", &self.buffered_bytes())
            .field("lines_dispatched", &self.lines)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl NdjsonDecoder {
    /// A decoder that allows lines of up to
    /// [`DEFAULT_MAX_EVENT_BYTES`](super::DEFAULT_MAX_EVENT_BYTES).
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_line_bytes(super::DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder that fails with [`FramingError::EventTooLarge`] as soon as one line spans more
    /// than `max` bytes (its line end not counted).
    #[must_use]
    pub fn with_max_line_bytes(max: usize) -> Self {
        NdjsonDecoder {
            buf: BytesMut::new(),
            base: 0,
            pos: 0,
            scan: 0,
            utf8_valid: 0,
            bad_utf8: None,
            bom_checked: false,
            eof: false,
            done: false,
            error: None,
            max,
            pushed: 0,
            lines: 0,
        }
    }

    /// Appends bytes read from the network. Never fails; errors surface from `next_frame`.
    /// Input after an error, after an invalid byte or after `finish` is ignored.
    pub fn push(&mut self, bytes: &[u8]) {
        self.pushed += bytes.len() as u64;
        if self.error.is_some() || self.eof || self.bad_utf8.is_some() {
            return;
        }
        self.compact();
        self.buf.extend_from_slice(bytes);
        self.validate_utf8();
    }

    /// The next complete line, borrowing the decoder's buffer. `Ok(None)` means more input is
    /// needed.
    ///
    /// # Errors
    ///
    /// [`FramingError::InvalidUtf8`] once the line holding an invalid byte is reached, and
    /// [`FramingError::EventTooLarge`] as soon as a line exceeds the limit. Either poisons the
    /// decoder.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        let line = self.step()?;
        self.emit(line)
    }

    /// End of input: hands out a final line left without a newline (with
    /// `terminated == false`), then returns `Ok(None)`. Complete lines still buffered come
    /// first, one per call.
    ///
    /// # Errors
    ///
    /// As [`next_frame`](Self::next_frame); in addition an incomplete UTF-8 sequence at the end
    /// of the input is [`FramingError::InvalidUtf8`].
    pub fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        if !self.eof && self.error.is_none() {
            self.eof = true;
            if self.bad_utf8.is_none() && self.utf8_valid < self.end() {
                self.reject_utf8_from(self.utf8_valid);
            }
        }
        let line = self.step()?;
        self.emit(line)
    }

    /// Total bytes of input fully processed.
    pub fn bytes_consumed(&self) -> u64 {
        self.pos
    }

    /// Total bytes passed to [`push`](Self::push), including ignored ones.
    pub fn bytes_pushed(&self) -> u64 {
        self.pushed
    }

    /// Number of lines handed out so far.
    pub fn events_dispatched(&self) -> u64 {
        self.lines
    }

    /// Bytes currently held: at most one partial line plus input not yet processed.
    pub fn buffered_bytes(&self) -> usize {
        self.buf.len()
    }

    fn step(&mut self) -> Result<Option<Line>, FramingError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        if self.done {
            return Ok(None);
        }
        self.compact();
        self.advance().inspect_err(|error| {
            self.error = Some(error.clone());
            self.buf = BytesMut::new();
        })
    }

    fn emit(&mut self, line: Option<Line>) -> Result<Option<Frame<'_>>, FramingError> {
        let Some(line) = line else {
            return Ok(None);
        };
        let bytes = &self.buf[self.index(line.start)..self.index(line.end)];
        match std::str::from_utf8(bytes) {
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
                // Unreachable in practice: the input was validated as it arrived.
                let error = FramingError::InvalidUtf8 {
                    offset: line.start + error.valid_up_to() as u64,
                };
                self.error = Some(error.clone());
                Err(error)
            }
        }
    }

    fn advance(&mut self) -> Result<Option<Line>, FramingError> {
        loop {
            let end = self.end();
            let closed = self.eof || self.bad_utf8.is_some();
            if !self.bom_checked {
                if self.buf.len() < BOM.len() && BOM.starts_with(&self.buf) && !closed {
                    return Ok(None);
                }
                if self.buf.starts_with(BOM) {
                    self.pos += BOM.len() as u64;
                    self.scan = self.pos;
                }
                self.bom_checked = true;
            }
            let start = self.pos;
            let haystack = &self.buf[self.index(self.scan)..];
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
                    // Only validated bytes count, so the outcome does not depend on where the
                    // input was split before an invalid byte; nor does a CR that may be the
                    // first half of the line's CRLF.
                    let mut upto = self.utf8_valid.min(end);
                    if upto > start && self.byte(upto - 1) == b'\r' {
                        upto -= 1;
                    }
                    self.check_size(start, upto)?;
                    if let Some(offset) = self.bad_utf8 {
                        return Err(FramingError::InvalidUtf8 { offset });
                    }
                    if !self.eof {
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
        self.buf[self.index(start)..self.index(end)]
            .iter()
            .all(u8::is_ascii_whitespace)
    }

    /// Drops the lines already handed out; called only when no frame is lent.
    fn compact(&mut self) {
        let dropped = self.index(self.pos);
        if dropped > 0 {
            self.buf.advance(dropped);
            self.base = self.pos;
        }
    }

    fn validate_utf8(&mut self) {
        let from = self.index(self.utf8_valid);
        match std::str::from_utf8(&self.buf[from..]) {
            Ok(_) => self.utf8_valid = self.end(),
            Err(error) => {
                self.utf8_valid += error.valid_up_to() as u64;
                if error.error_len().is_some() {
                    self.reject_utf8_from(self.utf8_valid);
                }
            }
        }
    }

    fn reject_utf8_from(&mut self, offset: u64) {
        self.bad_utf8 = Some(offset);
        let keep = self.index(offset);
        self.buf.truncate(keep);
        self.scan = self.scan.min(offset);
    }

    fn end(&self) -> u64 {
        self.base + self.buf.len() as u64
    }

    fn index(&self, offset: u64) -> usize {
        (offset - self.base) as usize
    }

    fn byte(&self, offset: u64) -> u8 {
        self.buf[self.index(offset)]
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
            assert!(decoder.buffered_bytes() <= line.len());
        }
        assert_eq!(decoder.events_dispatched(), 1000);
        assert_eq!(decoder.bytes_consumed(), 1000 * line.len() as u64);
    }
}
