use super::choice::PartialMessage;
use super::state::ResponseState;
use super::{Event, Options};
use crate::dialect::{Dialect, StreamDecoder};
use crate::error::{Error, ErrorKind, Location};
use crate::framing::{Frame, FramingError};
use crate::framing::{Framer, Framing};
use crate::message::{Completion, ResponseMetadata};

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
    framer: Framer,
    decoder: StreamDecoder,
    options: Options,
    state: ResponseState,
    phase: Phase,
    /// Frames pushed pre-framed (not through `push`), for numbering.
    frames_pushed: u64,
    /// An error waiting until the events queued before it have been read.
    failure: Option<Error>,
    /// Why the stream is incomplete, in lenient mode.
    incomplete: Option<String>,
    /// The error already handed out, to answer a later `finish` truthfully.
    failed: Option<(ErrorKind, String, Option<Location>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Streaming,
    InputEnded,
    Ended,
    Failed,
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
            state: ResponseState::new(
                options.limits().clone(),
                dialect.map_or("", Dialect::provider_name),
            ),
            options,
            phase: Phase::Streaming,
            frames_pushed: 0,
            failure: None,
            incomplete: None,
            failed: None,
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
        if self.phase == Phase::Streaming && !self.state.is_done() {
            self.framer.push(bytes);
        }
    }

    /// Pushes bytes and processes every event they complete, discarding the events: for callers
    /// that only want the final message.
    ///
    /// A large input is pushed in slices, so the decoder never holds more than one slice plus
    /// one event, however much is fed at once.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), Error> {
        const SLICE: usize = 64 * 1024;
        self.state.set_record_events(false);
        for slice in bytes.chunks(SLICE) {
            self.push(slice);
            while self.next_event()?.is_some() {}
        }
        Ok(())
    }

    /// Processes one event that was framed elsewhere (for example by `eventsource-stream`);
    /// `event` is its `event:` field. Pull the resulting events — and any error — with
    /// `next_event`.
    pub fn push_frame(&mut self, event: Option<&str>, data: &str) {
        if self.phase != Phase::Streaming || self.state.is_done() || self.failure.is_some() {
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
        if let Err(error) = applied {
            self.failure = Some(self.fail(error));
        }
    }

    /// Says the input is over: the next calls to `next_event` process a final event left without
    /// its blank line and decide whether the stream was complete.
    pub fn end_input(&mut self) {
        if self.phase == Phase::Streaming {
            self.phase = Phase::InputEnded;
        }
    }

    /// Stops the stream with an error from outside the decoder (the transport failed, the
    /// connection went idle): like an error of its own, it comes after the events already
    /// queued, carries the location and the partial result. Ignored once the stream is over.
    pub(crate) fn fail_with(&mut self, error: Error) {
        if self.state.is_done() || self.failure.is_some() || self.phase != Phase::Streaming {
            return;
        }
        let error = error.at(self.location());
        self.failure = Some(self.fail(error));
    }

    /// The next event, or `Ok(None)` when more input is needed (or the stream is over).
    ///
    /// An error is returned after the events that preceded it, and carries the partial result;
    /// after it, the assembler yields nothing more.
    pub fn next_event(&mut self) -> Result<Option<Event<'_>>, Error> {
        loop {
            if self.state.has_pending_events() {
                return Ok(self.state.next_event());
            }
            if let Some(error) = self.failure.take() {
                return Err(self.take_failure(error));
            }
            match self.phase {
                Phase::Ended | Phase::Failed => return Ok(None),
                Phase::Streaming | Phase::InputEnded if self.state.is_done() => {
                    self.phase = Phase::Ended;
                    continue;
                }
                Phase::Streaming | Phase::InputEnded => {}
            }
            let input_ended = self.phase == Phase::InputEnded;
            let ndjson = self.framer.framing() == Some(Framing::Ndjson);
            let framed = match self.framer.next_frame() {
                Ok(None) if input_ended => self.framer.finish(),
                framed => framed,
            };
            match framed {
                Ok(Some(frame)) => {
                    let at = Location {
                        event: frame.number,
                        offset: frame.offset,
                    };
                    let cut = !frame.terminated;
                    let applied = apply_frame(
                        &self.options,
                        &mut self.decoder,
                        &mut self.state,
                        &frame,
                        ndjson,
                    );
                    match applied {
                        Err(error) if cut && error.is_malformed() => {
                            let reason =
                                format!("the stream ended in the middle of event {}", frame.number);
                            self.incomplete_end(&reason, at);
                        }
                        Err(error) => self.failure = Some(self.fail(error.at(at))),
                        // A JSON line delimits itself: a last line without its newline is whole.
                        Ok(()) if cut && !ndjson => self.incomplete_end(
                            "the stream ended without a blank line after its last event",
                            at,
                        ),
                        Ok(()) => {}
                    }
                }
                Ok(None) if input_ended => self.end_of_stream(),
                Ok(None) => return Ok(None),
                Err(framing) => {
                    let error = framing_error(framing, self.framer.events_dispatched());
                    self.failure = Some(self.fail(error));
                }
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
        self.end_input();
        self.state.set_record_events(false);
        while self.next_event()?.is_some() {}
        if let Some((kind, detail, location)) = self.failed {
            let error = Error::new(kind, format!("the stream already failed: {detail}"));
            return Err(match location {
                Some(location) => error.at(location),
                None => error,
            });
        }
        Ok(self.state.into_completion(self.incomplete))
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

    /// True once the stream ended cleanly.
    pub fn is_done(&self) -> bool {
        self.state.is_done()
    }

    /// Where the decoder stands: the events dispatched so far and the bytes consumed.
    pub fn location(&self) -> Location {
        Location {
            event: self.framer.events_dispatched().max(self.frames_pushed),
            offset: self.framer.bytes_consumed(),
        }
    }

    /// Input ended: complete if every choice finished, otherwise truncated.
    fn end_of_stream(&mut self) {
        if let Err(error) = self.decoder.end(&mut self.state) {
            let error = error.at(self.location());
            self.failure = Some(self.fail(error));
            return;
        }
        if self.state.is_done() {
            return;
        }
        if self.state.all_choices_finished() {
            self.state.mark_done();
            return;
        }
        let unfinished: Vec<String> = self
            .messages()
            .iter()
            .filter(|message| !message.is_finished())
            .map(|message| message.index().to_string())
            .collect();
        let reason = if unfinished.is_empty() {
            format!(
                "the stream ended after {} events without any answer (is this an event stream?)",
                self.location().event
            )
        } else {
            format!(
                "the stream ended without {} while choice {} was unfinished",
                self.dialect().map_or("[DONE]", Dialect::end_marker),
                unfinished.join(", ")
            )
        };
        self.incomplete_end(&reason, self.location());
    }

    fn incomplete_end(&mut self, reason: &str, at: Location) {
        if self.state.is_done() {
            return;
        }
        if self.options.is_lenient() {
            self.incomplete = Some(format!("truncated: {reason}"));
            self.phase = Phase::Ended;
        } else {
            let error = Error::new(ErrorKind::Truncated, reason).at(at);
            self.failure = Some(self.fail(error));
        }
    }

    /// Stops the assembler; the error is returned once the events before it have been read.
    fn fail(&mut self, error: Error) -> Error {
        self.phase = Phase::Failed;
        error
    }

    /// Attaches the partial result: every message so far, marked incomplete.
    fn take_failure(&mut self, error: Error) -> Error {
        self.failed = Some((error.kind(), error.detail().to_owned(), error.location()));
        let state = std::mem::replace(
            &mut self.state,
            ResponseState::new(self.options.limits().clone(), ""),
        );
        let partial = state.into_completion(Some(error.to_string()));
        error.with_partial(partial)
    }
}

/// Decodes one frame into the state (detecting the dialect from the first one); in lenient mode
/// a malformed payload becomes a warning.
fn apply_frame(
    options: &Options,
    decoder: &mut StreamDecoder,
    state: &mut ResponseState,
    frame: &Frame<'_>,
    ndjson: bool,
) -> Result<(), Error> {
    if let Some(dialect) = decoder.detect(frame, ndjson) {
        state.set_provider(dialect.provider_name());
    }
    match decoder.decode(frame, state) {
        Err(error) if error.is_malformed() && options.is_lenient() && frame.terminated => {
            state.warn(format!(
                "skipped event {} (byte {}): {error}",
                frame.number, frame.offset
            ));
            Ok(())
        }
        Err(error) => Err(error.at(Location {
            event: frame.number,
            offset: frame.offset,
        })),
        Ok(()) => Ok(()),
    }
}

fn framing_error(framing: FramingError, events: u64) -> Error {
    let (kind, offset) = match framing {
        FramingError::InvalidUtf8 { offset } => (ErrorKind::InvalidUtf8, offset),
        FramingError::EventTooLarge { offset, .. } => (ErrorKind::LimitExceeded, offset),
    };
    Error::new(kind, framing.to_string())
        .at(Location {
            event: events + 1,
            offset,
        })
        .with_source(framing)
}

/// Assembles a whole recorded stream at once.
///
/// ```
/// let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
/// let completion = deltafold::assemble(body, deltafold::Options::new())?;
/// assert_eq!(completion.into_message().text(), "hi");
/// # Ok::<(), deltafold::Error>(())
/// ```
pub fn assemble(bytes: &[u8], options: Options) -> Result<Completion, Error> {
    let mut assembler = Assembler::with_options(options);
    assembler.feed(bytes)?;
    assembler.finish()
}
