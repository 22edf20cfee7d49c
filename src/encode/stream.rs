//! The `Stream` adapter: an [`AssembleStream`]'s events re-encoded into a target's SSE text as
//! they arrive, one `String` per event that writes anything, then the closing events — with the
//! message kept on the side: the snapshot, the completion at the end (also when the client goes
//! away), abort.

use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{ready, Context, Poll, Waker};

use futures_core::Stream;
use pin_project::{pin_project, pinned_drop};

use super::{Encoder, Target};
use crate::assemble::Assembler;
use crate::error::Error;
use crate::message::Completion;
use crate::stream::{AbortHandle, AssembleStream, StreamInput, ABORTED};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// An [`AssembleStream`] re-encoded into `target`'s SSE: yields text as events arrive, and the
/// closing events after a clean end. Each event goes through [`Encoder::try_encode`], so what
/// the encoder holds stays within the message's budget. A stream error (or that limit) ends the stream: a UI target's error event
/// ([`Encoder::fail`]) is yielded first, then the error itself; a provider target writes no
/// closing events, so the client sees the cut.
///
/// The message is kept as [`AssembleStream`] keeps it: [`assembler`](Self::assembler) between
/// items, [`completion`](Self::completion) or [`abort`](Self::abort) when you own the stream,
/// an [`AbortHandle`] to stop it from anywhere — and, for a gateway that hands the stream to
/// its HTTP server, [`with_completion`](Self::with_completion): a future of the result that
/// resolves when the stream ends or is dropped (the client went away).
#[pin_project(PinnedDrop)]
#[must_use = "streams do nothing unless polled"]
#[derive(Debug)]
pub struct EncodeStream<S> {
    #[pin]
    events: AssembleStream<S>,
    encoder: Encoder,
    finished: bool,
    /// The source's error, yielded after the target's error event.
    failed: Option<Error>,
    /// Where the result goes once decided, after [`with_completion`](Self::with_completion).
    report: Option<Arc<Mutex<Slot>>>,
}

/// The result of an [`EncodeStream`] split off by [`EncodeStream::with_completion`]: ready
/// once the stream has ended, been aborted or been dropped. It does not read the input itself:
/// whoever polls the stream (the HTTP server writing it to the client) drives both.
///
/// - The stream ended: the result, as [`AssembleStream::completion`] gives it — a failed
///   stream's error carries the partial (the stream yields a copy of it without).
/// - Aborted ([`AbortHandle::abort`]): what arrived, `complete == false`, `"aborted"`.
/// - Dropped early (the client went away): the answer if it had ended, otherwise what arrived,
///   marked incomplete — an [`ErrorKind::Truncated`](crate::ErrorKind::Truncated) error
///   carrying it, or in lenient mode an incomplete [`Completion`], as a dropped
///   [`Tee`](crate::stream::Tee) does.
#[must_use = "futures do nothing unless polled"]
#[derive(Debug)]
pub struct EncodeCompletion {
    slot: Arc<Mutex<Slot>>,
}

#[derive(Debug, Default)]
struct Slot {
    result: Option<Result<Completion, Error>>,
    waker: Option<Waker>,
}

/// Why the result of a stream dropped before its end is incomplete.
const CLIENT_GONE: &str = "the re-encoded stream was dropped before the end of the answer";

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    // A result slot has no invariant a panic could break.
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Re-encoding for [`AssembleStream`].
///
/// ```
/// use deltafold::encode::{EncodeExt, Target};
/// use deltafold::{AssembleExt, Options};
/// use futures::{stream, StreamExt};
///
/// let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
/// let input = stream::iter([Ok::<_, std::io::Error>(body.as_bytes().to_vec())]);
/// let (sse, completion) = input.assemble_with(Options::default()).encode(Target::Gemini).with_completion();
/// futures::executor::block_on(async {
///     let sse: Vec<String> = sse.map(Result::unwrap).collect().await;
///     assert!(sse.concat().contains(r#""finishReason":"STOP""#));
///     assert_eq!(completion.await?.into_message().text(), "Hi");
///     Ok::<(), deltafold::Error>(())
/// })?;
/// # Ok::<(), deltafold::Error>(())
/// ```
pub trait EncodeExt: Sized {
    /// The byte stream the assembler reads.
    type Input;

    /// Re-encodes the events into `target`'s SSE.
    fn encode(self, target: Target) -> EncodeStream<Self::Input>;
}

impl<S> EncodeExt for AssembleStream<S> {
    type Input = S;

    fn encode(self, target: Target) -> EncodeStream<S> {
        EncodeStream {
            events: self,
            encoder: Encoder::new(target),
            finished: false,
            failed: None,
            report: None,
        }
    }
}

impl<S> EncodeStream<S> {
    /// The assembler, for the live snapshot between items: the message so far, tool calls with
    /// their partial arguments, usage ([`AssembleStream::assembler`]).
    pub fn assembler(&self) -> &Assembler {
        self.events.assembler()
    }

    /// A handle that ends the stream from anywhere: the next poll yields the end (no closing
    /// events: the answer did not end), and the result is what arrived, marked `"aborted"`.
    /// Take it before handing the stream on.
    pub fn abort_handle(&mut self) -> AbortHandle {
        self.events.abort_handle()
    }

    /// Splits off the result: the stream goes to whoever writes it to the client, the
    /// [`EncodeCompletion`] to whoever keeps the message (usage, tool calls) — resolved when
    /// the stream ends, is aborted or is dropped.
    pub fn with_completion(mut self) -> (Self, EncodeCompletion) {
        let slot = Arc::new(Mutex::new(Slot::default()));
        self.report = Some(Arc::clone(&slot));
        (self, EncodeCompletion { slot })
    }

    /// Stops here without reading further and returns what arrived, as
    /// [`AssembleStream::abort`] does (the [`EncodeCompletion`], if split off, gets it too).
    pub fn abort(self) -> Completion {
        let mut stream = pin!(self);
        let completion = match stream.as_mut().project().events.stop(ABORTED) {
            Ok(completion) => completion,
            Err(error) => error.into_partial().unwrap_or_default(),
        };
        stream.settle(|| Ok(completion.clone()));
        completion
    }

    /// Hands the result to the split-off completion, once.
    fn settle(self: Pin<&mut Self>, result: impl FnOnce() -> Result<Completion, Error>) {
        if let Some(slot) = self.project().report.take() {
            let mut slot = lock(&slot);
            slot.result = Some(result());
            if let Some(waker) = slot.waker.take() {
                waker.wake();
            }
        }
    }

    /// Ends the assembly here (for `reason` if before its end) and reports the result.
    fn stop(mut self: Pin<&mut Self>, reason: &str) {
        if self.report.is_some() {
            let result = self.as_mut().project().events.stop(reason);
            self.settle(|| result);
        }
    }

    /// Gives the split-off completion the result, if there is one, and returns the caller's
    /// share: the completion itself, or for an error a copy without the partial (which goes to
    /// the [`EncodeCompletion`]).
    fn share(self: Pin<&mut Self>, result: Result<Completion, Error>) -> Result<Completion, Error> {
        match result {
            Ok(completion) if self.report.is_some() => {
                self.settle(|| Ok(completion.clone()));
                Ok(completion)
            }
            Ok(completion) => Ok(completion),
            Err(error) => Err(self.share_error(error)),
        }
    }

    /// [`share`](Self::share) for an error.
    fn share_error(self: Pin<&mut Self>, error: Error) -> Error {
        if self.report.is_none() {
            return error;
        }
        let copy = Error::new(error.kind(), error.to_string());
        self.settle(|| Err(error));
        copy
    }
}

impl<S, I, E> EncodeStream<S>
where
    S: Stream<Item = Result<I, E>>,
    I: StreamInput,
    E: Into<BoxError>,
{
    /// Reads the rest of the stream without encoding it, and returns the final result, as
    /// [`AssembleStream::completion`] does. After [`with_completion`](Self::with_completion)
    /// the [`EncodeCompletion`] gets it too (an error's partial goes there).
    pub async fn completion(self) -> Result<Completion, Error> {
        let mut stream = pin!(self);
        let ended = poll_fn(|cx| {
            let mut this = stream.as_mut().project();
            while let Some(event) = ready!(this.events.as_mut().poll_next(cx)) {
                event?;
            }
            Poll::Ready(Ok(()))
        })
        .await;
        let result = match ended {
            Ok(()) => stream.as_mut().project().events.stop(CLIENT_GONE),
            Err(error) => Err(error),
        };
        stream.share(result)
    }
}

impl<S, I, E> Stream for EncodeStream<S>
where
    S: Stream<Item = Result<I, E>>,
    I: StreamInput,
    E: Into<BoxError>,
{
    type Item = Result<String, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            let mut this = self.as_mut().project();
            if *this.finished {
                return Poll::Ready(this.failed.take().map(Err));
            }
            let mut out = String::new();
            match ready!(this.events.as_mut().poll_next(cx)) {
                Some(Ok(event)) => {
                    let encoded = this.encoder.try_encode(
                        &event,
                        this.events.as_mut().assembler_mut(),
                        &mut out,
                    );
                    if let Err(error) = encoded {
                        // Past the budget: the client gets the cut (a UI target's error event)
                        // and the error, the split-off completion the error with its partial.
                        *this.finished = true;
                        this.encoder.fail(&error.to_string(), &mut out);
                        let error = self.as_mut().share_error(error);
                        *self.as_mut().project().failed = Some(error);
                    }
                }
                Some(Err(error)) => {
                    *this.finished = true;
                    this.encoder.fail(&error.to_string(), &mut out);
                    // The split-off completion keeps the error with its partial; the client
                    // gets a copy.
                    let error = self.as_mut().share_error(error);
                    if out.is_empty() {
                        return Poll::Ready(Some(Err(error)));
                    }
                    *self.as_mut().project().failed = Some(error);
                }
                None => {
                    *this.finished = true;
                    if this.events.assembler().is_done() {
                        this.encoder.finish(&mut out);
                    }
                    self.as_mut().stop(CLIENT_GONE);
                }
            }
            if !out.is_empty() {
                return Poll::Ready(Some(Ok(out)));
            }
        }
    }
}

#[pinned_drop]
impl<S> PinnedDrop for EncodeStream<S> {
    fn drop(self: Pin<&mut Self>) {
        self.stop(CLIENT_GONE);
    }
}

impl Future for EncodeCompletion {
    type Output = Result<Completion, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = lock(&self.slot);
        match slot.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
