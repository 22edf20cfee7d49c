//! The async layer: [`AssembleExt::assemble`] turns any `Stream` of byte chunks (a
//! `reqwest` body, a file read in chunks, a channel) into a `Stream` of [`Event`]s, with the
//! message so far on the side and the final [`Completion`] at the end.
//!
//! It is a thin driver over the sans-IO [`Assembler`]: it pushes each chunk, hands out the
//! events that chunk completed, and only then reads the next chunk — so it holds at most one
//! read's worth of unprocessed bytes, spawns nothing, and can be dropped at any point.

use std::error::Error as StdError;
use std::fmt;
use std::future::poll_fn;
use std::pin::{pin, Pin};
use std::task::{ready, Context, Poll};

use futures_core::stream::{FusedStream, Stream};
use pin_project::pin_project;

use crate::assemble::{Assembler, Event, Options};
use crate::error::{Error, ErrorKind};
use crate::message::Completion;
use crate::trace::StreamTrace;

mod abort;
mod input;
mod tee;

pub use self::abort::AbortHandle;
pub(crate) use self::abort::{cut_short, ABORTED};
pub use self::input::StreamInput;
#[cfg(feature = "reqwest")]
pub(crate) use self::tee::Feed;
pub use self::tee::{Tee, TeeCompletion};

/// The error type a byte stream may fail with: anything that converts into a boxed error.
type BoxError = Box<dyn StdError + Send + Sync>;

/// A stream of [`Event`]s assembled from a stream of byte chunks. Made by
/// [`AssembleExt::assemble`].
///
/// Each item is an event, or — once, at the end — the error that stopped the stream, carrying
/// the partial message. After the last event or the error the stream yields `None` for ever.
/// A failure of the underlying stream becomes an error of kind
/// [`Transport`](ErrorKind::Transport); a stream that ends before the answer is complete, one
/// of kind [`Truncated`](ErrorKind::Truncated) (or, in lenient mode, the end of the events and
/// an incomplete [`Completion`]).
///
/// Once the stream has sent `[DONE]` the underlying stream is not read any further — except an
/// HTTP [`ResponseStream`](crate::ResponseStream), which reads the rest of its body (at most
/// 64 KiB, for at most 1 s) before it ends, so that the connection goes back to the client's
/// pool. To pass every byte on to someone else, use [`AssembleExt::tee`]; to stop early with
/// what arrived, [`abort`](Self::abort).
///
/// Between events, [`assembler`](Self::assembler) shows the message so far;
/// [`completion`](Self::completion) reads the rest and returns the result:
///
/// ```
/// use deltafold::{AssembleExt, Event};
/// use futures::StreamExt;
///
/// let body = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",",
///     "\"function\":{\"name\":\"search\",\"arguments\":\"{\\\"query\\\": \\\"rust\"}}]}}]}\n\n",
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
///     "\"function\":{\"arguments\":\" streams\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let reads = futures::stream::iter(body.as_bytes().chunks(40).map(Ok::<_, std::io::Error>));
/// futures::executor::block_on(async {
///     let mut events = reads.assemble();
///     // Read until the first argument delta, then look at the call so far.
///     while let Some(event) = events.next().await {
///         if let Event::ToolCallArgumentsDelta { .. } = event? {
///             break;
///         }
///     }
///     let message = events.assembler().message(0).unwrap();
///     let call = message.tool_calls().next().unwrap();
///     assert_eq!(call.name(), "search");
///     assert_eq!(call.partial_value().unwrap()["query"], "rust");
///
///     let message = events.completion().await?.into_message();
///     let call = message.tool_calls().next().unwrap();
///     assert_eq!(call.args["query"], "rust streams");
///     Ok::<(), deltafold::Error>(())
/// })?;
/// # Ok::<(), deltafold::Error>(())
/// ```
#[pin_project]
#[must_use = "streams do nothing unless polled"]
pub struct AssembleStream<S> {
    #[pin]
    input: S,
    assembler: Assembler,
    progress: Progress,
    /// Reads what follows the end of the answer before the stream reports its end (an HTTP
    /// body read to its end returns its connection to the pool); `None` for plain streams,
    /// which are not read past the answer.
    drain: Option<Drain<S>>,
    /// The stream's span (feature `tracing`; nothing otherwise).
    trace: StreamTrace,
    /// Set once someone asked for an [`AbortHandle`].
    abort: Option<AbortHandle>,
    /// The handle ended the stream.
    aborted: bool,
}

/// Reads the input past the end of the answer, within bounds of its own; ready when done.
pub(crate) type Drain<S> = fn(Pin<&mut S>, &mut Context<'_>) -> Poll<()>;

/// How far the stream has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// Reading input.
    Reading,
    /// The input ended or failed; the events left are being handed out.
    InputOver,
    /// Everything was handed out.
    Finished,
}

impl<S> AssembleStream<S> {
    /// Assembles `input` with the given options.
    pub fn new(input: S, options: Options) -> Self {
        Self::with_assembler(input, Assembler::with_options(options))
    }

    /// Continues with an assembler that may already hold input (a body read whole).
    pub(crate) fn with_assembler(input: S, assembler: Assembler) -> Self {
        AssembleStream {
            input,
            assembler,
            progress: Progress::Reading,
            drain: None,
            trace: StreamTrace::new(),
            abort: None,
            aborted: false,
        }
    }

    /// Reads the input on with `drain` after the end of the answer, before reporting the end.
    #[cfg(feature = "reqwest")]
    pub(crate) fn draining_with(mut self, drain: Drain<S>) -> Self {
        self.drain = Some(drain);
        self
    }

    /// The assembler, for the live snapshot between events: the message so far
    /// ([`Assembler::message`]), tool calls with their partial arguments, metadata, location.
    pub fn assembler(&self) -> &Assembler {
        &self.assembler
    }

    /// The assembler, to end the stream with an error raised beside it between events:
    /// [`Encoder::try_encode`](crate::encode::Encoder::try_encode) moves the message so far
    /// into its limit error. Input pushed here would mix with the stream's.
    pub fn assembler_mut(self: Pin<&mut Self>) -> &mut Assembler {
        self.project().assembler
    }

    /// The underlying stream.
    pub fn get_ref(&self) -> &S {
        &self.input
    }
}

impl<S, I, E> AssembleStream<S>
where
    S: Stream<Item = Result<I, E>>,
    I: StreamInput,
    E: Into<BoxError>,
{
    /// Reads the rest of the stream, skipping the events, and returns the final result.
    ///
    /// Works whether or not some events were read before: the result covers the whole stream.
    /// If the stream already yielded its error, this returns an error of the same kind again
    /// (the partial message went with the first one).
    pub async fn completion(self) -> Result<Completion, Error> {
        let mut stream = pin!(self);
        let read = poll_fn(|cx| stream.as_mut().poll_to_end(cx)).await;
        let this = stream.project();
        let assembler = std::mem::take(this.assembler);
        let result = match read {
            Ok(()) if *this.aborted => Ok(assembler.stop(ABORTED)),
            Ok(()) => assembler.finish(),
            Err(error) => Err(error),
        };
        match &result {
            Ok(completion) => this.trace.completion(completion),
            Err(error) => this.trace.error(error),
        }
        result
    }

    /// Reads input until the end of the answer without producing events.
    fn poll_to_end(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        self.as_mut().poll_aborted(cx);
        let mut this = self.project();
        // From here on only the final message matters: events are not even queued.
        this.assembler.discard_events();
        loop {
            if *this.progress == Progress::Finished {
                return Poll::Ready(Ok(()));
            }
            while this.assembler.next_event()?.is_some() {}
            if *this.progress == Progress::InputOver || this.assembler.is_done() {
                if let (Some(drain), Progress::Reading) = (*this.drain, *this.progress) {
                    ready!(drain(this.input.as_mut(), cx));
                }
                *this.progress = Progress::Finished;
                return Poll::Ready(Ok(()));
            }
            match ready!(this.input.as_mut().poll_next(cx)) {
                Some(Ok(input)) => input.take_into(this.assembler)?,
                read => read_into(this.assembler, this.progress, read),
            }
        }
    }
}

/// Hands one read of the input to the assembler.
fn read_into<I: StreamInput, E: Into<BoxError>>(
    assembler: &mut Assembler,
    progress: &mut Progress,
    read: Option<Result<I, E>>,
) {
    match read {
        Some(Ok(input)) => input.push_into(assembler),
        Some(Err(error)) => {
            assembler.fail(transport_error(error));
            *progress = Progress::InputOver;
        }
        None => {
            assembler.end_input();
            *progress = Progress::InputOver;
        }
    }
}

/// A failure of the input stream. An error that already is a deltafold [`Error`] (an idle
/// timeout, say) keeps its kind; anything else is a transport error naming its causes.
fn transport_error(error: impl Into<BoxError>) -> Error {
    match error.into().downcast::<Error>() {
        Ok(error) => *error,
        Err(error) => Error::new(
            ErrorKind::Transport,
            format!("reading the stream failed: {}", causes(error.as_ref())),
        )
        .with_source(error),
    }
}

/// The error and its sources, joined: `error decoding response body: connection reset`.
pub(crate) fn causes(error: &(dyn StdError + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl<S, I, E> Stream for AssembleStream<S>
where
    S: Stream<Item = Result<I, E>>,
    I: StreamInput,
    E: Into<BoxError>,
{
    type Item = Result<Event<'static>, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.as_mut().poll_aborted(cx);
        let mut this = self.project();
        loop {
            if *this.progress == Progress::Finished {
                return Poll::Ready(None);
            }
            match this.assembler.next_event() {
                Ok(Some(event)) => {
                    let event = event.into_owned();
                    this.trace.event(&event, this.assembler);
                    return Poll::Ready(Some(Ok(event)));
                }
                Err(error) => {
                    *this.progress = Progress::Finished;
                    this.trace.error(&error);
                    return Poll::Ready(Some(Err(error)));
                }
                Ok(None) => {}
            }
            if *this.progress == Progress::InputOver || this.assembler.is_done() {
                if let (Some(drain), Progress::Reading) = (*this.drain, *this.progress) {
                    ready!(drain(this.input.as_mut(), cx));
                }
                *this.progress = Progress::Finished;
                return Poll::Ready(None);
            }
            let read = ready!(this.input.as_mut().poll_next(cx));
            read_into(this.assembler, this.progress, read);
        }
    }
}

impl<S, I, E> FusedStream for AssembleStream<S>
where
    S: Stream<Item = Result<I, E>>,
    I: StreamInput,
    E: Into<BoxError>,
{
    fn is_terminated(&self) -> bool {
        self.progress == Progress::Finished
    }
}

impl<S> fmt::Debug for AssembleStream<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AssembleStream")
            .field("assembler", &self.assembler)
            .field("progress", &self.progress)
            .finish_non_exhaustive()
    }
}

/// Adds [`assemble`](Self::assemble) to every stream of byte chunks, in the manner of
/// `http-body-util`'s `BodyExt`.
///
/// ```
/// use deltafold::{AssembleExt, Event};
/// use futures::StreamExt;
///
/// let reads: Vec<Result<&[u8], std::io::Error>> = vec![
///     Ok(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel"),
///     Ok(b"lo\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"),
///     Ok(b"data: [DONE]\n\n"),
/// ];
/// futures::executor::block_on(async {
///     let mut events = futures::stream::iter(reads).assemble();
///     while let Some(event) = events.next().await {
///         if let Event::TextDelta { text, .. } = event? {
///             print!("{text}");
///         }
///     }
///     let message = events.completion().await?.into_message();
///     assert_eq!(message.text(), "Hello");
///     Ok::<(), deltafold::Error>(())
/// })?;
/// # Ok::<(), deltafold::Error>(())
/// ```
pub trait AssembleExt: Stream + Sized {
    /// Assembles this stream with the default [`Options`].
    fn assemble(self) -> AssembleStream<Self> {
        self.assemble_with(Options::default())
    }

    /// Assembles this stream with the given dialect, strictness and limits.
    fn assemble_with(self, options: Options) -> AssembleStream<Self> {
        AssembleStream::new(self, options)
    }

    /// Passes the stream through unchanged and assembles a copy on the side: for a gateway
    /// that forwards the provider's bytes to its client and wants the message (usage, tool
    /// calls) for itself. See [`Tee`].
    fn tee(self, options: Options) -> (Tee<Self>, TeeCompletion) {
        Tee::new(self, options)
    }
}

impl<S, B, E> AssembleExt for S
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: Into<BoxError>,
{
}

#[cfg(feature = "eventsource-stream")]
pub use self::eventsource::{AssembleEventsExt, EventSourceFrame, EventSourceFrames};

#[cfg(feature = "eventsource-stream")]
mod eventsource;
