//! The event-stream state machine.

use std::fmt;

mod lending;
mod one_line;
mod taken_whole;

pub(crate) use taken_whole::DataLine;

use super::error::FramingError;
use super::frame::Frame;
use super::input::Input;

/// Default bound for [`SseDecoder::with_max_event_bytes`]: far above any real chat delta, low
/// enough that a server which never ends a line cannot exhaust memory.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// A half-open range of absolute stream offsets; absolute so that dropping consumed input from
/// the front of the buffer never has to rewrite it.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: u64,
    end: u64,
}

/// The fields of the event being assembled.
#[derive(Debug, Default)]
struct PendingEvent {
    /// Offset of the event's first line; `None` between events.
    start: Option<u64>,
    event: Option<Span>,
    /// The first data line's value: all the data of most events, so it is never copied.
    first_data: Span,
    data_lines: usize,
    retry: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
enum Data {
    /// A single data line, still in the input buffer.
    Buffer(Span),
    /// Several data lines, copied into `SseDecoder::join`.
    Joined,
}

/// Where the parts of a dispatched event are; valid until the next call into the decoder.
#[derive(Debug, Clone, Copy)]
struct Dispatched {
    event: Option<Span>,
    data: Data,
    retry: Option<u64>,
    number: u64,
    offset: u64,
    terminated: bool,
}

enum Field {
    Data,
    Event,
    Id,
    Retry,
    Other,
}

/// Incremental decoder for a WHATWG event stream (`text/event-stream`).
///
/// It is sans-IO so that one implementation serves every transport and runtime, and it lends
/// out each [`Frame`] from its own buffers so that the steady state allocates nothing. Every
/// input byte is searched for a line end once, however the input is split into pushes.
///
/// After a [`FramingError`] the decoder is poisoned: it drops its buffers, ignores further
/// input and returns the same error from every later `next_frame` or `finish`.
///
/// ```
/// use deltafold::framing::SseDecoder;
///
/// let mut decoder = SseDecoder::new();
/// decoder.push(b"event: delta\ndata: {\"text\":\"Hel\"}\n\n: keep-alive\n\ndata: [DO");
///
/// let frame = decoder.next_frame()?.expect("a complete event");
/// assert_eq!(frame.event, Some("delta"));
/// assert_eq!(frame.data, r#"{"text":"Hel"}"#);
/// // The keep-alive dispatches nothing, and the last event has not ended yet.
/// assert!(decoder.next_frame()?.is_none());
/// assert_eq!(decoder.comments(), 1);
///
/// decoder.push(b"NE]");
/// assert!(decoder.next_frame()?.is_none());
/// // The connection closed without the final blank line.
/// let last = decoder.finish()?.expect("the pending event");
/// assert_eq!((last.data, last.terminated), ("[DONE]", false));
/// assert!(decoder.finish()?.is_none());
/// # Ok::<(), deltafold::framing::FramingError>(())
/// ```
pub struct SseDecoder {
    input: Input,
    /// Start of the first line not yet processed.
    pos: u64,
    /// Where the search for the next line end resumes, so that no byte is searched twice.
    scan: u64,
    bom_checked: bool,
    /// The last line ended with a CR that was the last byte pushed, so an LF that comes next
    /// completes that line end instead of being an empty line.
    skip_lf: bool,
    done: bool,
    error: Option<FramingError>,
    max: usize,
    event: PendingEvent,
    /// Reused for events with several data lines, the only data that has to be copied.
    join: String,
    last_id: Option<String>,
    events: u64,
    comments: u64,
    #[cfg(test)]
    scanned: u64,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for SseDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A summary: the buffers can hold megabytes of someone else's data.
        f.debug_struct("SseDecoder")
            .field("max_event_bytes", &self.max)
            .field("bytes_pushed", &self.input.pushed())
            .field("bytes_consumed", &self.pos)
            .field("buffered_bytes", &self.buffered_bytes())
            .field("events_dispatched", &self.events)
            .field("comments", &self.comments)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl SseDecoder {
    /// A decoder that allows events of up to [`DEFAULT_MAX_EVENT_BYTES`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_event_bytes(DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder that fails with [`FramingError::EventTooLarge`] as soon as one event, counted
    /// from the start of its first line, spans more than `max` bytes of input.
    #[must_use]
    pub fn with_max_event_bytes(max: usize) -> Self {
        Self {
            input: Input::default(),
            pos: 0,
            scan: 0,
            bom_checked: false,
            skip_lf: false,
            done: false,
            error: None,
            max,
            event: PendingEvent::default(),
            join: String::new(),
            last_id: None,
            events: 0,
            comments: 0,
            #[cfg(test)]
            scanned: 0,
        }
    }

    /// Sets the bound on the events still to come (the one being read included).
    pub(crate) fn set_max_event_bytes(&mut self, max: usize) {
        self.max = max;
    }

    /// Forgets the stream for a new one with the same limit, keeping the buffers' capacity.
    pub(crate) fn reset(&mut self) {
        let mut input = std::mem::take(&mut self.input);
        let mut join = std::mem::take(&mut self.join);
        input.reset();
        join.clear();
        *self = Self {
            input,
            join,
            ..Self::with_max_event_bytes(self.max)
        };
    }

    /// Appends bytes read from the network. Never fails; errors surface from `next_frame`.
    ///
    /// Call `next_frame` until it returns `Ok(None)` after each push: the size limit is
    /// enforced there, so pushing without pulling buffers without bound. Input after an
    /// error, after an invalid byte or after `finish` is ignored.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.compact();
        }
        self.input.push(bytes);
    }

    /// The next complete event, borrowing the decoder's buffers (a lending API: no allocation
    /// per event). `Ok(None)` means more input is needed.
    ///
    /// # Errors
    ///
    /// [`FramingError::InvalidUtf8`] once the line holding an invalid byte is reached, without
    /// waiting for that line to end (events that ended before it still come out first), and
    /// [`FramingError::EventTooLarge`] as soon as the limit is exceeded. Either poisons the
    /// decoder.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        let dispatched = self.step()?;
        self.emit(dispatched)
    }

    /// End of input: processes a final line without line ending and dispatches the pending
    /// event if its data buffer is non-empty (that frame has `terminated == false`).
    /// Afterwards returns `Ok(None)`.
    ///
    /// Meant to be called once `next_frame` returned `Ok(None)`; if complete events are still
    /// buffered, they come first, one per call.
    ///
    /// # Errors
    ///
    /// As [`next_frame`](Self::next_frame); in addition an incomplete UTF-8 sequence at the
    /// end of the input is [`FramingError::InvalidUtf8`].
    pub fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        if self.error.is_none() {
            self.input.finish();
        }
        let dispatched = self.step()?;
        self.emit(dispatched)
    }

    /// Total bytes of input fully processed: up to the end of the last line handled.
    pub fn bytes_consumed(&self) -> u64 {
        self.pos
    }

    /// Total bytes passed to [`push`](Self::push), including ignored ones.
    pub fn bytes_pushed(&self) -> u64 {
        self.input.pushed()
    }

    /// Number of frames returned so far, including one flushed by `finish`.
    pub fn events_dispatched(&self) -> u64 {
        self.events
    }

    /// Number of `:` comment lines seen; servers send them as keep-alives.
    pub fn comments(&self) -> u64 {
        self.comments
    }

    /// Bytes currently held: the partial event, input not yet processed and the joined data
    /// of a multi-line event. Stays near one event plus one push.
    pub fn buffered_bytes(&self) -> usize {
        self.input.held() + self.join.len()
    }

    fn step(&mut self) -> Result<Option<Dispatched>, FramingError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        if self.done {
            return Ok(None);
        }
        self.compact();
        self.advance().inspect_err(|error| self.fail(error.clone()))
    }

    fn fail(&mut self, error: FramingError) {
        self.error = Some(error);
        self.input.release();
        self.join = String::new();
    }

    fn emit(&mut self, dispatched: Option<Dispatched>) -> Result<Option<Frame<'_>>, FramingError> {
        let Some(dispatched) = dispatched else {
            return Ok(None);
        };
        let frame = build_frame(&self.input, &self.join, self.last_id.as_deref(), dispatched);
        if let Err(error) = &frame {
            self.error = Some(error.clone());
        }
        frame.map(Some)
    }

    /// Drops the input that no frame can refer to any more. Called only at the start of a
    /// call, when the frame lent by the previous call is gone.
    fn compact(&mut self) {
        self.input.drop_before(self.event.start.unwrap_or(self.pos));
        if self.event.data_lines < 2 {
            self.join.clear();
        }
    }

    fn advance(&mut self) -> Result<Option<Dispatched>, FramingError> {
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
    fn check_size(&self, upto: u64) -> Result<(), FramingError> {
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
    fn dispatch(&mut self, terminated: bool) -> Option<Dispatched> {
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
    fn count_scanned(&mut self, _bytes: usize) {
        #[cfg(test)]
        {
            self.scanned += _bytes as u64;
        }
    }
}

fn build_frame<'a>(
    input: &'a Input,
    joined: &'a str,
    id: Option<&'a str>,
    dispatched: Dispatched,
) -> Result<Frame<'a>, FramingError> {
    Ok(Frame {
        event: dispatched
            .event
            .map(|span| span_text(input, span))
            .transpose()?,
        data: match dispatched.data {
            Data::Buffer(span) => span_text(input, span)?,
            Data::Joined => joined,
        },
        id,
        retry: dispatched.retry,
        number: dispatched.number,
        offset: dispatched.offset,
        terminated: dispatched.terminated,
    })
}

fn span_text(input: &Input, span: Span) -> Result<&str, FramingError> {
    input.text(span.start, span.end)
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

    #[test]
    fn memory_stays_bounded_across_events() {
        let event = b"event: delta\ndata: {\"a\":1}\ndata: {\"b\":2}\n\n";
        let mut decoder = SseDecoder::new();
        let mut capacities = Vec::new();
        for _ in 0..1000 {
            decoder.push(event);
            assert_eq!(decoder.next_frame().unwrap().unwrap().data.len(), 15);
            assert_eq!(decoder.next_frame().unwrap(), None);
            assert!(decoder.buffered_bytes() <= event.len());
            capacities.push(decoder.input.capacity() + decoder.join.capacity());
        }
        let warm = capacities[..10].iter().max().unwrap();
        assert!(capacities.iter().all(|capacity| capacity <= warm));
    }
}
