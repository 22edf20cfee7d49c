//! The WHATWG event-stream decoder: its state, its [`FrameDecoder`] contract and how a
//! dispatched event becomes a [`Frame`]. The line loop that reads the input is `lines.rs`; the
//! two fast paths — a lent read framed where it lies (`lending.rs`) and an event taken whole by
//! a reader that knows its `data:` value (`taken_whole.rs`) — share the one-line event of
//! `one_line.rs`.

use std::fmt;

mod lending;
mod lines;
mod one_line;
mod taken_whole;

pub(crate) use taken_whole::DataLine;

use super::decoder::{deprecated_counters, FrameCounts, FrameDecoder, DEFAULT_MAX_EVENT_BYTES};
use super::error::FramingError;
use super::frame::Frame;
use super::input::Input;

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
/// use deltafold::framing::{FrameDecoder, SseDecoder};
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
/// assert_eq!(decoder.counts().frames, 2);
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

deprecated_counters!(SseDecoder);

impl fmt::Debug for SseDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A summary: the buffers can hold megabytes of someone else's data.
        f.debug_struct("SseDecoder")
            .field("max_event_bytes", &self.max)
            .field("counts", &self.counts())
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

    /// Number of `:` comment lines seen; servers send them as keep-alives.
    pub fn comments(&self) -> u64 {
        self.comments
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

impl FrameDecoder for SseDecoder {
    /// Input after an invalid byte is ignored as well.
    fn push(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            self.compact();
        }
        self.input.push(bytes);
    }

    /// The next complete event.
    ///
    /// # Errors
    ///
    /// [`FramingError::InvalidUtf8`] once the line holding an invalid byte is reached, without
    /// waiting for that line to end (events that ended before it still come out first), and
    /// [`FramingError::EventTooLarge`] as soon as the limit is exceeded.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        let dispatched = self.step()?;
        self.emit(dispatched)
    }

    /// End of input: the events still buffered, then a final line without its line end is
    /// read and the pending event dispatched if its data buffer is non-empty (that frame has
    /// `terminated == false`).
    ///
    /// # Errors
    ///
    /// As [`next_frame`](Self::next_frame); in addition an incomplete UTF-8 sequence at the
    /// end of the input is [`FramingError::InvalidUtf8`].
    fn finish(&mut self) -> Result<Option<Frame<'_>>, FramingError> {
        if self.error.is_none() {
            self.input.finish();
        }
        let dispatched = self.step()?;
        self.emit(dispatched)
    }

    /// Bytes are consumed up to the end of the last line handled; held are the partial event,
    /// input not yet processed and the joined data of a multi-line event.
    fn counts(&self) -> FrameCounts {
        FrameCounts {
            bytes_pushed: self.input.pushed(),
            bytes_consumed: self.pos,
            frames: self.events,
            buffered_bytes: self.input.held() + self.join.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::FrameDecoder;

    #[test]
    fn memory_stays_bounded_across_events() {
        let event = b"event: delta\ndata: {\"a\":1}\ndata: {\"b\":2}\n\n";
        let mut decoder = SseDecoder::new();
        let mut capacities = Vec::new();
        for _ in 0..1000 {
            decoder.push(event);
            assert_eq!(decoder.next_frame().unwrap().unwrap().data.len(), 15);
            assert_eq!(decoder.next_frame().unwrap(), None);
            assert!(decoder.counts().buffered_bytes <= event.len());
            capacities.push(decoder.input.capacity() + decoder.join.capacity());
        }
        let warm = capacities[..10].iter().max().unwrap();
        assert!(capacities.iter().all(|capacity| capacity <= warm));
    }
}
