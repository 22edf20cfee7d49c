//! The line loop: cuts the input into lines, reads each line's field into the event being
//! assembled, and dispatches the event at the blank line that ends it — with a shortcut for
//! the event nearly every stream is made of, one `data:` line and a blank line.

use super::{span_text, Data, Dispatched, PendingEvent, Span, SseDecoder};
use crate::framing::error::FramingError;

enum Field {
    Data,
    Event,
    Id,
    Retry,
    Other,
}

impl SseDecoder {
    pub(super) fn advance(&mut self) -> Result<Option<Dispatched>, FramingError> {
        loop {
            let end = self.input.end();
            let closed = self.input.is_closed();
            if !self.bom_checked {
                let Some(bom) = self.input.leading_bom_len() else {
                    return Ok(None);
                };
                self.pos += bom;
                self.scan = self.pos;
                self.bom_checked = true;
            }
            if self.skip_lf {
                if self.pos < end {
                    if self.byte(self.pos) == b'\n' {
                        self.pos += 1;
                        self.scan = self.pos;
                    }
                    self.skip_lf = false;
                } else if closed {
                    self.skip_lf = false;
                } else {
                    return Ok(None);
                }
            }
            if let Some(dispatched) = self.single_data_line()? {
                return Ok(Some(dispatched));
            }
            let start = self.pos;
            let (line_end, next) = match self.find_line_end() {
                Some(eol) => {
                    let next = if self.byte(eol) == b'\n' {
                        eol + 1
                    } else if eol + 1 == end {
                        self.skip_lf = true;
                        eol + 1
                    } else if self.byte(eol + 1) == b'\n' {
                        eol + 2
                    } else {
                        eol + 1
                    };
                    (eol, next)
                }
                None => {
                    // Only validated bytes are visible, which makes the outcome independent of
                    // where the input was split when an invalid byte is yet to come; with no
                    // byte of a new line yet, there is nothing new to count.
                    if end > start {
                        self.check_size(end)?;
                    }
                    if let Some(offset) = self.input.bad_utf8() {
                        return Err(FramingError::InvalidUtf8 { offset });
                    }
                    if !self.input.is_eof() {
                        return Ok(None);
                    }
                    if start == end {
                        self.done = true;
                        return Ok(self.dispatch(false));
                    }
                    (end, end)
                }
            };
            if start < line_end {
                self.check_size(line_end)?;
            }
            self.pos = next;
            self.scan = next;
            if let Some(dispatched) = self.process_line(start, line_end)? {
                return Ok(Some(dispatched));
            }
        }
    }

    /// Frames the event nearly every stream is made of — one `data:` line and a blank line, both
    /// ending in LF — in one step, as the line loop would; `None`, with nothing consumed, for
    /// anything else (or when a search for this line's end already began).
    fn single_data_line(&mut self) -> Result<Option<Dispatched>, FramingError> {
        let start = self.pos;
        if self.event.start.is_some() || self.scan != start {
            return Ok(None);
        }
        let Some(value) = self.input.bytes_from(start).strip_prefix(b"data:") else {
            return Ok(None);
        };
        let Some(eol) = memchr::memchr2(b'\n', b'\r', value) else {
            return Ok(None);
        };
        if value[eol] != b'\n' || value.get(eol + 1) != Some(&b'\n') {
            return Ok(None);
        }
        let line_end = start + (b"data:".len() + eol) as u64;
        let value_start = start + b"data:".len() as u64 + u64::from(value[0] == b' ');
        self.count_scanned(b"data:".len() + eol + 2);
        self.check_size(line_end)?;
        self.pos = line_end + 2;
        self.scan = self.pos;
        self.event = PendingEvent {
            start: Some(start),
            first_data: Span {
                start: value_start,
                end: line_end,
            },
            data_lines: 1,
            ..PendingEvent::default()
        };
        Ok(self.dispatch(true))
    }

    /// Resumes the search for a line end where the previous one stopped.
    fn find_line_end(&mut self) -> Option<u64> {
        let haystack = self.input.bytes_from(self.scan);
        let found = memchr::memchr2(b'\n', b'\r', haystack);
        let scanned = found.map_or(haystack.len(), |i| i + 1);
        self.count_scanned(scanned);
        match found {
            Some(i) => Some(self.scan + i as u64),
            None => {
                self.scan = self.input.end();
                None
            }
        }
    }

    /// Fails once the current event (or, between events, the current line) spans more than
    /// the limit up to `upto`. Only ends of line content are checked, so the line end that
    /// completes an event is not counted and where a CRLF was split does not matter.
    pub(super) fn check_size(&self, upto: u64) -> Result<(), FramingError> {
        let start = self.event.start.unwrap_or(self.pos);
        if upto - start > self.max as u64 {
            return Err(FramingError::EventTooLarge {
                offset: start,
                max: self.max,
            });
        }
        Ok(())
    }

    fn process_line(&mut self, start: u64, end: u64) -> Result<Option<Dispatched>, FramingError> {
        if start == end {
            return Ok(self.dispatch(true));
        }
        let line = &self.input.bytes_from(start)[..(end - start) as usize];
        if line[0] == b':' {
            self.comments += 1;
            return Ok(None);
        }
        let colon = memchr::memchr(b':', line);
        let (name, value_start) = match colon {
            Some(i) if line.get(i + 1) == Some(&b' ') => (&line[..i], i + 2),
            Some(i) => (&line[..i], i + 1),
            None => (line, line.len()),
        };
        let field = match name {
            b"data" => Field::Data,
            b"event" => Field::Event,
            b"id" => Field::Id,
            b"retry" => Field::Retry,
            _ => Field::Other,
        };
        let retry = match field {
            Field::Retry => parse_retry(&line[value_start..]),
            _ => None,
        };
        self.count_scanned(colon.map_or(line.len(), |i| i + 1));
        let value = Span {
            start: start + value_start as u64,
            end,
        };
        self.event.start.get_or_insert(start);
        match field {
            Field::Data => self.append_data(value)?,
            Field::Event => self.event.event = Some(value),
            Field::Id => self.set_id(value)?,
            Field::Retry => self.event.retry = retry.or(self.event.retry),
            Field::Other => {}
        }
        Ok(None)
    }

    fn append_data(&mut self, value: Span) -> Result<(), FramingError> {
        if self.event.data_lines == 1 {
            let first = span_text(&self.input, self.event.first_data)?;
            self.join.clear();
            self.join.push_str(first);
        }
        if self.event.data_lines == 0 {
            self.event.first_data = value;
        } else {
            self.join.push('\n');
            self.join.push_str(span_text(&self.input, value)?);
        }
        self.event.data_lines += 1;
        Ok(())
    }

    fn set_id(&mut self, value: Span) -> Result<(), FramingError> {
        let text = span_text(&self.input, value)?;
        if !text.contains('\0') {
            let id = self.last_id.get_or_insert_with(String::new);
            id.clear();
            id.push_str(text);
        }
        Ok(())
    }

    /// Ends the pending event; returns it unless its data buffer is empty. Inlined: it runs once
    /// an event, and as a call it cost about 40 instructions more each.
    #[inline(always)]
    pub(super) fn dispatch(&mut self, terminated: bool) -> Option<Dispatched> {
        let event = std::mem::take(&mut self.event);
        let offset = event.start?;
        if event.data_lines == 0 {
            return None;
        }
        self.events += 1;
        Some(Dispatched {
            event: event.event.filter(|span| span.start < span.end),
            data: if event.data_lines == 1 {
                Data::Buffer(event.first_data)
            } else {
                Data::Joined
            },
            retry: event.retry,
            number: self.events,
            offset,
            terminated,
        })
    }

    fn byte(&self, offset: u64) -> u8 {
        self.input.byte(offset)
    }

    #[inline]
    pub(super) fn count_scanned(&mut self, _bytes: usize) {
        #[cfg(test)]
        {
            self.scanned += _bytes as u64;
        }
    }
}

/// WHATWG accepts only ASCII digits; a value that does not fit a `u64` is ignored as well.
fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() {
        return None;
    }
    value.iter().try_fold(0u64, |ms, &byte| {
        if byte.is_ascii_digit() {
            ms.checked_mul(10)?.checked_add(u64::from(byte - b'0'))
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::FrameDecoder;

    #[test]
    fn each_byte_is_searched_for_a_line_end_once() {
        let mut input = b"data: ".to_vec();
        input.resize(input.len() + (1 << 20), b'x');
        input.extend_from_slice(b"\n\n");
        let mut decoder = SseDecoder::new();
        let mut lengths = Vec::new();
        for piece in input.chunks(64) {
            decoder.push(piece);
            while let Some(frame) = decoder.next_frame().unwrap() {
                lengths.push(frame.data.len());
            }
        }
        assert_eq!(lengths, [1 << 20]);
        // Rescanning the partial line after every push would search ~8 GiB here.
        assert!(
            decoder.scanned <= 2 * input.len() as u64,
            "searched {} bytes of a {}-byte input",
            decoder.scanned,
            input.len()
        );
    }

    #[test]
    fn single_data_line_is_lent_from_the_input_buffer() {
        let mut decoder = SseDecoder::new();
        decoder.push(b"data: hello\n\ndata: a\ndata: b\n\n");
        let single = decoder.next_frame().unwrap().unwrap().data.as_ptr();
        assert!(decoder
            .input
            .as_str()
            .as_bytes()
            .as_ptr_range()
            .contains(&single));
        let joined = decoder.next_frame().unwrap().unwrap().data.as_ptr();
        assert_eq!(joined, decoder.join.as_ptr());
    }
}
