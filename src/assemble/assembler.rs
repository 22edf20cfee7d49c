//! The assembler's lifecycle: bytes or frames in, events out, the message so far on the side,
//! and the one place that decides how the stream ended — complete, truncated, or failed.

use super::fold::ResponseState;
use super::frame_apply::apply_frame;
use super::lifecycle::{Lifecycle, Step};
use super::partial_message::PartialMessage;
use super::{Event, Options};
use crate::dialect::{Dialect, StreamDecoder};
use crate::error::{Error, ErrorKind, Location};
use crate::framing::{Frame, FrameDecoder, Framer, Framing, Lent};
use crate::message::{Completion, ResponseMetadata, UsageMetadata};

/// Folds a streamed answer into messages: push bytes in, pull [`Event`]s out, read the message
/// so far at any time, and [`finish`](Self::finish) into a [`Completion`].
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
#[derive(Debug)]
pub struct Assembler {
    pub(super) framer: Framer,
    pub(super) decoder: StreamDecoder,
    pub(super) options: Options,
    pub(super) state: ResponseState,
    pub(super) lifecycle: Lifecycle,
    /// Frames pushed pre-framed (not through `push`), for numbering.
    frames_pushed: u64,
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
            framer: Framer::new(options.limits().max_event_bytes),
            decoder: StreamDecoder::new(dialect, options.extracts_think_tags()),
            state: ResponseState::new(options.limits(), dialect.map_or("", Dialect::provider_name)),
            options,
            lifecycle: Lifecycle::Reading,
            frames_pushed: 0,
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
        if let Some(framing) = Framing::from_content_type(content_type) {
            self.framer.set_framing(framing);
        }
    }

    /// The stream's dialect: as chosen in the options, or as detected from the first payload
    /// (`None` until then).
    pub fn dialect(&self) -> Option<Dialect> {
        self.decoder.dialect()
    }

    /// Appends bytes read from the stream; pull the events they complete with
    /// [`next_event`](Self::next_event). Bytes after the end of the answer (`[DONE]`) are ignored.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.lifecycle.is_reading() {
            self.framer.push(bytes);
        }
    }

    /// Pushes bytes and processes every event they complete, discarding the events — and any
    /// still unread from before: for callers that want the messages, not the events.
    ///
    /// Only these events are skipped, and none is even queued: bytes pushed afterwards with
    /// [`push`](Self::push) yield their events from [`next_event`](Self::next_event) as usual.
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
        self.state.record_events(true);
        fed
    }

    /// Processes every event `read` completes, as [`push`](Self::push) and reading
    /// [`next_event`](Self::next_event) until it returns `Ok(None)` would, but lending the read:
    /// the framer copies only what it cannot frame where it lies.
    pub(crate) fn take_in(&mut self, read: &[u8]) -> Result<(), Error> {
        let mut lent = self.lifecycle.is_reading().then(|| Lent::new(read));
        while self.next_event_after(lent.as_mut())?.is_some() {}
        Ok(())
    }

    /// Stops queuing events for good, dropping those not read yet: for a caller that reads the
    /// rest of the stream only for its result (`finish`, a stream's `completion`).
    pub(crate) fn discard_events(&mut self) {
        self.state.record_events(false);
    }

    /// Processes one event that was framed elsewhere (for example by `eventsource-stream`);
    /// `event` is its `event:` field. Pull the resulting events — and any error — with
    /// `next_event`.
    pub fn push_frame(&mut self, event: Option<&str>, data: &str) {
        if !self.lifecycle.is_reading() {
            return;
        }
        self.frames_pushed += 1;
        let frame = Frame {
            event,
            data,
            id: None,
            retry: None,
            number: self.frames_pushed,
            offset: 0,
            terminated: true,
        };
        let applied = apply_frame(
            &self.options,
            &mut self.decoder,
            &mut self.state,
            &frame,
            false,
        );
        self.settle(match applied {
            Ok(()) => Step::Taken,
            Err(error) => Step::Failed(error),
        });
    }

    /// Takes a whole non-streamed body (a transport read it to its end): a JSON array (Gemini's
    /// `streamGenerateContent` without `alt=sse`) through the framer, which cuts it into its
    /// elements; anything else as one pre-framed payload, since a non-streamed answer may span
    /// lines.
    #[cfg(feature = "reqwest")]
    pub(crate) fn push_whole_body(&mut self, text: &str) {
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

    /// Stops the stream with an error from outside the decoder (the transport failed, the
    /// connection went idle): like an error of its own, it comes after the events already
    /// queued, carries the location and the partial result. Ignored once the stream is over.
    pub(crate) fn fail_with(&mut self, error: Error) {
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

    /// Ends the input, processes what is left and builds the messages.
    ///
    /// A stream that ended without `[DONE]` while a choice was unfinished is an
    /// [`ErrorKind::Truncated`] error carrying the partial result — or, in lenient mode, a
    /// [`Completion`] with `complete == false`.
    ///
    /// After `next_event` returned an error, `finish` returns an error of the same kind again
    /// (without the partial result, which went with the first one).
    pub fn finish(mut self) -> Result<Completion, Error> {
        self.conclude()
    }

    /// Like [`finish`](Self::finish), then [`reset`](Self::reset): for a gateway that assembles
    /// stream after stream with one assembler and its buffers.
    ///
    /// ```
    /// let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    /// let mut assembler = deltafold::Assembler::new();
    /// for _ in 0..3 {
    ///     assembler.feed(body)?;
    ///     assert_eq!(assembler.finish_and_reset()?.into_message().text(), "hi");
    /// }
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn finish_and_reset(&mut self) -> Result<Completion, Error> {
        let concluded = self.conclude();
        self.reset();
        concluded
    }

    /// Drops the stream so far, events and messages, and makes the assembler as
    /// [`with_options`](Self::with_options) made it, with the same options, but keeping the
    /// buffers it grew. Framing and dialect are found again from the next stream (a content
    /// type must be set again).
    pub fn reset(&mut self) {
        let dialect = self.options.selected_dialect();
        self.framer.reset(self.options.limits().max_event_bytes);
        self.decoder
            .reset(dialect, self.options.extracts_think_tags());
        let provider = dialect.map_or("", Dialect::provider_name);
        self.state.take(self.options.limits(), provider);
        self.lifecycle = Lifecycle::Reading;
        self.frames_pushed = 0;
    }

    /// What [`finish`](Self::finish) returns; leaves the state empty.
    pub(super) fn conclude(&mut self) -> Result<Completion, Error> {
        self.end_input();
        self.discard_events();
        while self.next_event()?.is_some() {}
        match self.lifecycle {
            Lifecycle::Failed {
                kind,
                ref detail,
                location,
                ..
            } => {
                let error = Error::new(kind, format!("the stream already failed: {detail}"));
                Err(match location {
                    Some(location) => error.at(location),
                    None => error,
                })
            }
            Lifecycle::Truncated(ref reason) => {
                let incomplete = Some(reason.clone());
                Ok(self.take_state().into_completion(incomplete))
            }
            Lifecycle::Reading | Lifecycle::InputEnded | Lifecycle::Complete => {
                Ok(self.take_state().into_completion(None))
            }
        }
    }

    /// The state of the stream, a new one left in its place.
    fn take_state(&mut self) -> ResponseState {
        self.state.take(self.options.limits(), "")
    }

    /// The messages so far, one per choice, in order of first appearance.
    pub fn messages(&self) -> &[PartialMessage] {
        self.state.choices()
    }

    /// The message so far of one choice.
    pub fn message(&self, choice: u32) -> Option<&PartialMessage> {
        self.messages()
            .iter()
            .find(|message| message.index() == choice)
    }

    /// Response-level metadata so far (id, model…; finish reasons live on each message).
    pub fn metadata(&self) -> &ResponseMetadata {
        self.state.metadata()
    }

    /// The usage so far with the provider's raw object ([`Event::Usage`] has only the counts).
    /// ```
    /// let mut assembler = deltafold::Assembler::new();
    /// assembler.feed(br#"data: {"choices":[],"usage":{"prompt_tokens":3,"cost":0.5}}"#)?;
    /// assembler.feed(b"\n\n")?;
    /// let raw = assembler.usage().unwrap().raw.as_ref().unwrap();
    /// assert_eq!(raw.get("cost"), Some(serde_json::json!(0.5)));
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn usage(&self) -> Option<&UsageMetadata> {
        self.state.usage()
    }

    /// True once the stream ended cleanly.
    pub fn is_done(&self) -> bool {
        matches!(self.lifecycle, Lifecycle::Complete)
    }

    /// Where the decoder stands: the events dispatched so far and the bytes consumed.
    pub fn location(&self) -> Location {
        Location {
            event: self.framer.counts().frames.max(self.frames_pushed),
            offset: self.framer.counts().bytes_consumed,
        }
    }

    /// The one place the end of the stream is decided, after each step while it is read: an
    /// error ends it failed; otherwise, once the fold has taken in the end, it is complete; a
    /// stream cut short is a truncation error, or in lenient mode an incomplete result.
    pub(super) fn settle(&mut self, step: Step) {
        self.lifecycle = match step {
            Step::Failed(error) => Lifecycle::failed(error),
            _ if self.state.is_done() => Lifecycle::Complete,
            Step::Taken => return,
            Step::Cut { reason, .. } if self.options.is_lenient() => {
                Lifecycle::Truncated(format!("truncated: {reason}"))
            }
            Step::Cut { reason, at } => {
                Lifecycle::failed(Error::new(ErrorKind::Truncated, reason).at(at))
            }
        };
    }

    /// Attaches the partial result to the error going out: every message so far, marked
    /// incomplete.
    fn with_partial(&mut self, error: Error) -> Error {
        let state = std::mem::replace(
            &mut self.state,
            ResponseState::new(self.options.limits(), ""),
        );
        let partial = state.into_completion(Some(error.to_string()));
        error.with_partial(partial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
