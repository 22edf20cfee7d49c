//! The assembler's lifecycle: bytes or frames in, events out, the message so far on the side.
//! How the stream ended — complete, truncated, or failed — is decided in [`ending`], the one
//! place that does.

use super::driver::{Driver, Progress};
use super::fold::ResponseState;
use super::lifecycle::{Lifecycle, Step};
use super::{Event, Options};
use crate::dialect::Dialect;
use crate::error::{Error, Location};
use crate::framing::Lent;

mod ending;

/// Folds a streamed answer into messages: push bytes in, pull [`Event`]s out, read the message
/// so far at any time, and [`finish`](Self::finish) into a
/// [`Completion`](crate::message::Completion).
///
/// Sans-IO: it never reads a socket, so any transport (and any test) can drive it. Work is linear
/// in the stream's length: each byte is scanned once and every delta is appended in place.
///
/// ```
/// use deltafold::{Assembler, Event};
///
/// let body = concat!(
///     "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let mut assembler = Assembler::new();
/// let mut live = String::new();
/// for read in body.as_bytes().chunks(7) {
///     assembler.push(read);
///     while let Some(event) = assembler.next_event()? {
///         if let Event::TextDelta { text, .. } = event {
///             live.push_str(&text);
///         }
///     }
/// }
/// let message = assembler.finish()?.into_message();
/// assert_eq!(live, "Hello");
/// assert_eq!(message.text(), "Hello");
/// assert_eq!(message.response_metadata.finish_reason, "stop");
/// # Ok::<(), deltafold::Error>(())
/// ```
///
/// # Driving it over a transport of your own
///
/// The crate's `stream` and `http` layers use nothing but these public calls, so a driver for
/// hyper, actix, a browser's `fetch` or a raw socket is written the same way: tell it the
/// [`set_content_type`](Self::set_content_type) (see [`framing::media_type`]), then per read
/// [`push`](Self::push) and [`next_event`](Self::next_event) until `Ok(None)` — or
/// [`discard_events`](Self::discard_events) and [`feed`](Self::feed) when only the result
/// matters; [`end_input`](Self::end_input) and [`finish`](Self::finish) at the end of the body;
/// [`fail`](Self::fail) with an [`Error::new`] when the transport fails; an [`Error::status`]
/// for an error status; [`push_whole_body`](Self::push_whole_body) for a non-streamed JSON
/// answer; [`stop`](Self::stop) when the reader goes away. `tests/driver_seam.rs` drives it
/// over `std::net::TcpStream` this way.
///
/// [`framing::media_type`]: crate::framing::media_type
#[derive(Debug)]
pub struct Assembler {
    /// Framing and the dialect: what turns the bytes into deltas for the fold.
    driver: Driver,
    options: Options,
    /// The fold: the response so far, which the deltas go into.
    pub(super) state: ResponseState,
    lifecycle: Lifecycle,
    /// [`discard_events`](Assembler::discard_events) stopped the events for good.
    discarding: bool,
}

impl Default for Assembler {
    fn default() -> Self {
        Self::new()
    }
}

impl Assembler {
    /// An assembler that detects the dialect from the stream, strict, with default limits.
    pub fn new() -> Self {
        Self::with_options(Options::default())
    }

    /// An assembler with the given dialect, strictness and limits.
    pub fn with_options(options: Options) -> Self {
        let dialect = options.selected_dialect();
        Assembler {
            driver: Driver::new(&options),
            state: ResponseState::new(options.limits(), dialect.map_or("", Dialect::provider_name)),
            options,
            lifecycle: Lifecycle::Reading,
            discarding: false,
        }
    }

    /// The options this assembler runs with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Tells the assembler the response's `Content-Type`, before the first push:
    /// `text/event-stream` and `application/x-ndjson` fix the framing that would otherwise be
    /// guessed from the first bytes (a first line starting with `{` is NDJSON). Other types
    /// change nothing.
    pub fn set_content_type(&mut self, content_type: &str) {
        self.driver.set_content_type(content_type);
    }

    /// The stream's dialect: as chosen in the options, or as detected from the first payload
    /// (`None` until then).
    pub fn dialect(&self) -> Option<Dialect> {
        self.driver.dialect()
    }

    /// Appends bytes read from the stream; pull the events they complete with
    /// [`next_event`](Self::next_event). Bytes after the end of the answer (`[DONE]`) are ignored.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.lifecycle.is_reading() {
            self.driver.push(bytes);
        }
    }

    /// Pushes bytes and processes every event they complete, discarding the events — and any
    /// still unread from before: for callers that want the messages, not the events.
    ///
    /// Only these events are skipped, and none is even queued: bytes pushed afterwards with
    /// [`push`](Self::push) yield their events from [`next_event`](Self::next_event) as usual
    /// (unless [`discard_events`](Self::discard_events) stopped them for good).
    /// An event stream's events are framed where they lie in `bytes`, not copied; a large input
    /// is taken in slices, so the decoder never holds more than one slice plus one event,
    /// however much is fed at once.
    ///
    /// ```
    /// use deltafold::{Assembler, Event};
    ///
    /// let mut assembler = Assembler::new();
    /// assembler.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")?;
    /// assembler.push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n");
    /// let event = assembler.next_event()?.map(Event::into_owned);
    /// assert_eq!(event, Some(Event::TextDelta { choice: 0, text: "lo".into() }));
    /// assert_eq!(assembler.message(0).unwrap().text(), "Hello");
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), Error> {
        const SLICE: usize = 64 * 1024;
        self.state.record_events(false);
        let fed = bytes
            .chunks(SLICE)
            .try_for_each(|slice| self.take_in(slice));
        self.state.record_events(!self.discarding);
        fed
    }

    /// Processes every event `read` completes, as [`push`](Self::push) and reading
    /// [`next_event`](Self::next_event) until it returns `Ok(None)` would, but lending the read:
    /// the framer copies only what it cannot frame where it lies.
    fn take_in(&mut self, read: &[u8]) -> Result<(), Error> {
        let mut lent = self.lifecycle.is_reading().then(|| Lent::new(read));
        while self.next_event_after(lent.as_mut())?.is_some() {}
        Ok(())
    }

    /// Stops queuing events for good (until [`reset`](Self::reset)), dropping those not read
    /// yet: for a driver that reads the rest of the stream only for its result — it then
    /// [`feed`](Self::feed)s each read and calls [`finish`](Self::finish) at the end.
    ///
    /// ```
    /// let mut assembler = deltafold::Assembler::new();
    /// assembler.discard_events();
    /// assembler.push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n");
    /// assert!(assembler.next_event()?.is_none());
    /// assert_eq!(assembler.message(0).unwrap().text(), "hi");
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn discard_events(&mut self) {
        self.discarding = true;
        self.state.record_events(false);
    }

    /// Processes one event that was framed elsewhere (for example by `eventsource-stream`);
    /// `event` is its `event:` field. Pull the resulting events — and any error — with
    /// `next_event`.
    pub fn push_frame(&mut self, event: Option<&str>, data: &str) {
        if !self.lifecycle.is_reading() {
            return;
        }
        let applied = self
            .driver
            .push_frame(&mut self.state, &self.options, event, data);
        self.settle(match applied {
            Ok(()) => Step::Taken,
            Err(error) => Step::Failed(error),
        });
    }

    /// Takes a whole non-streamed body (a transport read it to its end, an `application/json`
    /// answer): a JSON array (Gemini's `streamGenerateContent` without `alt=sse`) through the
    /// framer, which cuts it into its elements; anything else as one pre-framed payload, since a
    /// non-streamed answer may span lines. End the input after it, as after any body.
    ///
    /// ```
    /// let body = "{\n  \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": \"hi\"},\n  \"finish_reason\": \"stop\"}]\n}";
    /// let mut assembler = deltafold::Assembler::new();
    /// assembler.push_whole_body(body);
    /// assert_eq!(assembler.finish()?.into_message().text(), "hi");
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn push_whole_body(&mut self, text: &str) {
        if text.trim_start().starts_with('[') {
            self.push(text.as_bytes());
        } else {
            self.push_frame(None, text);
        }
    }

    /// Says the input is over: the next calls to `next_event` process a final event left without
    /// its blank line and decide whether the stream was complete.
    pub fn end_input(&mut self) {
        if self.lifecycle.is_reading() {
            self.lifecycle = Lifecycle::InputEnded;
        }
    }

    /// Stops the stream with an error from outside the decoder — the transport failed, the
    /// connection went idle, the server answered an error status: like an error of its own, it
    /// comes out of [`next_event`](Self::next_event) after the events already queued, placed at
    /// the stream's [`location`](Self::location) and carrying the partial result. Ignored once
    /// the stream is over.
    ///
    /// ```
    /// use deltafold::{Assembler, Error, ErrorKind};
    ///
    /// let mut assembler = Assembler::new();
    /// assembler.push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n");
    /// assembler.fail(Error::new(ErrorKind::Transport, "the connection was reset"));
    /// while assembler.next_event().is_ok_and(|event| event.is_some()) {}
    /// let error = assembler.finish().unwrap_err();
    /// assert!(error.is_transport());
    /// ```
    ///
    /// The error itself, with the partial message, is the one `next_event` returns:
    ///
    /// ```
    /// # use deltafold::{Assembler, Error, ErrorKind};
    /// let mut assembler = Assembler::new();
    /// assembler.discard_events();
    /// assembler.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")?;
    /// assembler.fail(Error::new(ErrorKind::IdleTimeout, "no bytes for 30 s"));
    /// let error = assembler.next_event().unwrap_err();
    /// assert!(error.is_idle_timeout());
    /// assert_eq!(error.location().unwrap().event, 1);
    /// assert_eq!(error.partial().unwrap().message().unwrap().text(), "Hel");
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn fail(&mut self, error: Error) {
        if self.lifecycle.is_reading() {
            let error = error.at(self.location());
            self.settle(Step::Failed(error));
        }
    }

    /// The next event, or `Ok(None)` when more input is needed (or the stream is over).
    ///
    /// An error is returned after the events that preceded it, and carries the partial result;
    /// after it, the assembler yields nothing more.
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>, Error> {
        self.next_event_after(None)
    }

    /// The next event of the input pushed and then of `lent`, if a read is lent; `Ok(None)`
    /// once all of it is taken, or the stream is over.
    fn next_event_after(
        &mut self,
        mut lent: Option<&mut Lent<'_>>,
    ) -> Result<Option<Event<'_>>, Error> {
        loop {
            if self.state.has_pending_events() {
                return Ok(self.state.next_event());
            }
            match &mut self.lifecycle {
                Lifecycle::Failed { pending, .. } => {
                    return match pending.take() {
                        Some(error) => Err(self.with_partial(error)),
                        None => Ok(None),
                    };
                }
                Lifecycle::Complete | Lifecycle::Truncated(_) => return Ok(None),
                Lifecycle::Reading | Lifecycle::InputEnded => {}
            }
            if !self.advance(lent.as_deref_mut()) {
                return Ok(None);
            }
        }
    }
    /// Drops the stream so far, events and messages, and makes the assembler as
    /// [`with_options`](Self::with_options) made it, with the same options, but keeping the
    /// buffers it grew. Framing and dialect are found again from the next stream (a content
    /// type must be set again).
    pub fn reset(&mut self) {
        self.driver.reset(&self.options);
        let provider = self
            .options
            .selected_dialect()
            .map_or("", Dialect::provider_name);
        self.state.take(self.options.limits(), provider);
        self.lifecycle = Lifecycle::Reading;
        self.discarding = false;
    }

    /// Where the decoder stands: the events dispatched so far and the bytes consumed.
    pub fn location(&self) -> Location {
        self.driver.location()
    }

    /// Takes the next event through the driver and settles what it came to, or — once the
    /// input is over and every event taken — decides how the stream ended. False when more
    /// input is needed first.
    #[inline]
    fn advance(&mut self, lent: Option<&mut Lent<'_>>) -> bool {
        let input_ended = matches!(self.lifecycle, Lifecycle::InputEnded);
        let step = match self
            .driver
            .step(&mut self.state, &self.options, lent, input_ended)
        {
            // Nearly every event: nothing to settle.
            Progress::Taken if !self.state.is_done() => return true,
            Progress::Taken => Step::Taken,
            Progress::Ended(step) => step,
            Progress::NeedsInput => return false,
            Progress::Drained => self.end_of_input(),
        };
        self.settle(step);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn chunk(content: &str, finish: &str) -> String {
        let finish = if finish.is_empty() {
            String::new()
        } else {
            format!(",\"finish_reason\":\"{finish}\"")
        };
        format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{content}\"}}{finish}}}]}}\n\n"
        )
    }

    fn events(assembler: &mut Assembler) -> Vec<Event<'static>> {
        let mut events = Vec::new();
        while let Some(event) = assembler.next_event().unwrap() {
            events.push(event.into_owned());
        }
        events
    }

    #[test]
    fn pushes_after_a_feed_yield_their_events() {
        let mut assembler = Assembler::new();
        assembler.push(chunk("a", "").as_bytes());
        assembler.feed(chunk("b", "").as_bytes()).unwrap();
        assembler.push(chunk("c", "stop").as_bytes());
        assembler.push(b"data: [DONE]\n\n");
        assert_eq!(
            events(&mut assembler),
            [
                Event::TextDelta {
                    choice: 0,
                    text: "c".into()
                },
                Event::TextEnd {
                    choice: 0,
                    block: 0
                },
                Event::ChoiceFinished {
                    choice: 0,
                    reason: "stop".into()
                },
                Event::Done,
            ],
            "the events of the fed bytes, and those unread before, are skipped; later ones are not"
        );
        assert!(assembler.is_done());
        assert_eq!(assembler.finish().unwrap().into_message().text(), "abc");
    }

    #[test]
    fn discarded_events_stay_discarded_while_the_message_grows() {
        let mut assembler = Assembler::new();
        assembler.push(chunk("a", "").as_bytes());
        assembler.discard_events();
        assembler.push(chunk("b", "stop").as_bytes());
        assert!(events(&mut assembler).is_empty());
        assert_eq!(assembler.message(0).unwrap().text(), "ab");
        assembler.end_input();
        assert!(events(&mut assembler).is_empty());
        assert!(assembler.is_done(), "every choice finished");
    }

    #[test]
    fn an_error_waits_for_the_events_before_it_and_finish_repeats_it() {
        let mut assembler = Assembler::new();
        assembler.push(chunk("a", "").as_bytes());
        assembler.end_input();
        assert!(matches!(
            assembler.next_event().unwrap(),
            Some(Event::Started { .. })
        ));
        assert!(matches!(
            assembler.next_event().unwrap(),
            Some(Event::TextDelta { .. })
        ));
        let error = assembler.next_event().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Truncated);
        assert_eq!(error.partial().unwrap().message().unwrap().text(), "a");
        assert!(assembler.next_event().unwrap().is_none());
        assert!(!assembler.is_done());
        let again = assembler.finish().unwrap_err();
        assert_eq!(again.kind(), ErrorKind::Truncated);
        assert!(again.to_string().contains("the stream already failed"));
    }

    #[test]
    fn lenient_mode_ends_a_cut_stream_incomplete() {
        let mut assembler = Assembler::with_options(Options::new().lenient(true));
        assembler.push(chunk("a", "").as_bytes());
        assembler.end_input();
        assert_eq!(events(&mut assembler).len(), 2);
        let completion = assembler.finish().unwrap();
        assert!(!completion.complete);
        let message = completion.into_message();
        assert!(message
            .response_metadata
            .incomplete
            .is_some_and(|why| why.starts_with("truncated: ")));
    }
}
