//! Pass-through: forward every read of a stream unchanged while an assembler folds a copy, and
//! hand the result to a separate future once the forwarding ends.
//!
//! The two halves share one assembler behind a mutex; the forwarding half feeds it as items go
//! by and wakes the completion half when it ends or is dropped. No task is spawned, and the
//! completion never reads the input: whoever polls the forwarding half drives both.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use futures_core::stream::{FusedStream, Stream};
use pin_project::{pin_project, pinned_drop};

use super::{cut_short, AbortHandle, ABORTED};
use crate::assemble::{Assembler, Options};
use crate::error::{Error, ErrorKind};
use crate::message::Completion;

/// The forwarding half of [`AssembleExt::tee`](super::AssembleExt::tee): yields every item of
/// the input unchanged — the bytes after the end of the answer and the input's own errors
/// included — while a copy is assembled for the [`TeeCompletion`].
///
/// Dropping it before the input ended resolves the completion with what arrived: the answer if
/// it had already ended, otherwise the partial, marked incomplete — an
/// [`ErrorKind::Truncated`] error carrying it, or in lenient mode an incomplete
/// [`Completion`].
///
/// ```
/// use deltafold::{AssembleExt, Options};
/// use futures::StreamExt;
///
/// let body = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: [DONE]\n\n",
///     ": a proxy's trailing comment\n\n",
/// );
/// let reads = futures::stream::iter(body.as_bytes().chunks(10).map(Ok::<_, std::io::Error>));
/// let (forward, completion) = reads.tee(Options::new());
/// futures::executor::block_on(async {
///     // What the client of a gateway would receive: every byte, to the end.
///     let forwarded: Vec<u8> = forward.map(|read| read.unwrap().to_vec()).concat().await;
///     assert_eq!(forwarded, body.as_bytes());
///     let message = completion.await?.into_message();
///     assert_eq!(message.text(), "Hi");
///     Ok::<(), deltafold::Error>(())
/// })?;
/// # Ok::<(), deltafold::Error>(())
/// ```
#[pin_project(PinnedDrop)]
#[must_use = "streams do nothing unless polled"]
pub struct Tee<S> {
    #[pin]
    input: S,
    shared: Arc<Mutex<Shared>>,
    /// Set once someone asked for an [`AbortHandle`].
    abort: Option<AbortHandle>,
}

/// The completion half of a tee: a future of the assembled result, ready once the forwarding
/// [`Tee`] has ended or been dropped. It does not read the input itself: poll the `Tee` (on
/// another task, or joined with this future).
#[must_use = "futures do nothing unless polled"]
pub struct TeeCompletion {
    shared: Arc<Mutex<Shared>>,
}

/// How the reads are given to the assembler.
#[derive(Debug)]
pub(crate) enum Feed {
    /// As they come: an event stream or NDJSON.
    Chunks,
    /// Collected, then given as one frame at the end: a non-streamed JSON answer, which may span
    /// lines. `check` turns the whole body into the frame's text, or the reason it is none.
    #[cfg(feature = "reqwest")]
    Whole {
        body: Vec<u8>,
        max: usize,
        check: fn(&[u8]) -> Result<&str, Error>,
    },
}

impl Feed {
    /// Ends the input of an assembler fed this way, and decides the result.
    fn finish(&self, assembler: Assembler) -> Result<Completion, Error> {
        match self {
            Feed::Chunks => assembler.finish(),
            #[cfg(feature = "reqwest")]
            Feed::Whole { body, check, .. } => {
                let mut assembler = assembler;
                assembler.push_whole_body(check(body)?);
                assembler.finish()
            }
        }
    }
}

/// What the two halves share.
struct Shared {
    /// `None` once the result is decided (or nobody waits for it any more).
    assembler: Option<Assembler>,
    feed: Feed,
    result: Option<Result<Completion, Error>>,
    waker: Option<Waker>,
}

impl Shared {
    /// Decides the result and wakes the completion half.
    fn settle(&mut self, result: Result<Completion, Error>) {
        self.assembler = None;
        self.result = Some(result);
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }

    /// Takes in one read.
    fn take_in(&mut self, read: &[u8]) {
        let Some(assembler) = self.assembler.as_mut() else {
            return;
        };
        match &mut self.feed {
            Feed::Chunks => {
                if let Err(error) = assembler.feed(read) {
                    self.settle(Err(error));
                }
            }
            #[cfg(feature = "reqwest")]
            Feed::Whole { body, max, .. } => {
                if body.len() + read.len() > *max {
                    let error = Error::new(
                        ErrorKind::LimitExceeded,
                        format!("the JSON body exceeds {max} bytes (max_message_bytes)"),
                    );
                    self.settle(Err(error));
                } else {
                    body.extend_from_slice(read);
                }
            }
        }
    }

    /// The input ended: the result is what the assembler makes of it.
    fn input_ended(&mut self) {
        let Some(assembler) = self.assembler.take() else {
            return;
        };
        let result = self.feed.finish(assembler);
        self.settle(result);
    }

    /// The input failed with `error`, which is forwarded as it is; the assembly fails with a
    /// description of it.
    fn input_failed(&mut self, error: Error) {
        let Some(assembler) = self.assembler.as_mut() else {
            return;
        };
        assembler.fail(error);
        let result = match drain_events(assembler) {
            Err(error) => Err(error),
            Ok(()) => Err(Error::new(
                ErrorKind::Transport,
                "reading the stream failed",
            )),
        };
        self.settle(result);
    }

    /// The forwarding half went away before the input ended.
    fn forward_dropped(&mut self) {
        if let Some(assembler) = self.assembler.take() {
            self.settle(cut_short(assembler, FORWARD_DROPPED));
        }
    }

    /// The abort handle ended the forwarding: the result is what arrived, marked aborted.
    fn aborted(&mut self) {
        if let Some(assembler) = self.assembler.take() {
            self.settle(Ok(assembler.stop(ABORTED)));
        }
    }
}

/// Why the result of a tee whose forwarding half was dropped early is incomplete.
const FORWARD_DROPPED: &str = "the forwarding stream was dropped before the end of the answer";

/// Processes every event the assembler can complete, keeping none (nobody reads them).
fn drain_events(assembler: &mut Assembler) -> Result<(), Error> {
    while assembler.next_event()?.is_some() {}
    Ok(())
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // A panic while holding the lock leaves nothing half-written that matters here.
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<S> Tee<S> {
    /// Forwards `input` and assembles a copy with `options`.
    pub fn new(input: S, options: Options) -> (Self, TeeCompletion) {
        let mut assembler = Assembler::with_options(options);
        assembler.discard_events();
        Self::with_feed(input, assembler, Feed::Chunks)
    }

    /// Forwards `input` and assembles a copy with this assembler, fed as `feed` says.
    pub(crate) fn with_feed(
        input: S,
        mut assembler: Assembler,
        feed: Feed,
    ) -> (Self, TeeCompletion) {
        assembler.discard_events();
        let shared = Arc::new(Mutex::new(Shared {
            assembler: Some(assembler),
            feed,
            result: None,
            waker: None,
        }));
        let completion = TeeCompletion {
            shared: Arc::clone(&shared),
        };
        let tee = Tee {
            input,
            shared,
            abort: None,
        };
        (tee, completion)
    }

    /// The underlying stream (for an HTTP response, [`ResponseBody`](crate::http::ResponseBody) with
    /// the response's status and headers).
    pub fn get_ref(&self) -> &S {
        &self.input
    }

    /// A handle that ends the forwarding from anywhere: the next poll yields the end without
    /// reading further, and the [`TeeCompletion`] resolves with what arrived, marked
    /// `"aborted"` (see [`AbortHandle`]).
    pub fn abort_handle(&mut self) -> AbortHandle {
        self.abort.get_or_insert_with(AbortHandle::default).clone()
    }
}

impl<S, B, E> Stream for Tee<S>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: fmt::Display + 'static,
{
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.project();
        if this
            .abort
            .as_ref()
            .is_some_and(|abort| abort.poll_aborted(cx))
        {
            lock(this.shared).aborted();
            return Poll::Ready(None);
        }
        let read = std::task::ready!(this.input.poll_next(cx));
        let mut shared = lock(this.shared);
        match &read {
            Some(Ok(bytes)) => shared.take_in(bytes.as_ref()),
            Some(Err(error)) => shared.input_failed(described(error)),
            None => shared.input_ended(),
        }
        Poll::Ready(read)
    }
}

impl<S, B, E> FusedStream for Tee<S>
where
    S: FusedStream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: fmt::Display + 'static,
{
    fn is_terminated(&self) -> bool {
        self.input.is_terminated() || self.abort.as_ref().is_some_and(AbortHandle::is_aborted)
    }
}

/// The assembly's error for an input error that is forwarded as it is: a deltafold error (an
/// idle timeout, say) keeps its kind; anything else is a transport error quoting it.
fn described<E: fmt::Display + 'static>(error: &E) -> Error {
    match (error as &dyn Any).downcast_ref::<Error>() {
        Some(error) => Error::new(error.kind(), error.detail()),
        None => Error::new(
            ErrorKind::Transport,
            format!("reading the stream failed: {error}"),
        ),
    }
}

#[pinned_drop]
impl<S> PinnedDrop for Tee<S> {
    fn drop(self: Pin<&mut Self>) {
        lock(self.project().shared).forward_dropped();
    }
}

impl Future for TeeCompletion {
    type Output = Result<Completion, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut shared = lock(&self.shared);
        match shared.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for TeeCompletion {
    /// Nobody waits for the result: the forwarding half stops assembling.
    fn drop(&mut self) {
        lock(&self.shared).assembler = None;
    }
}

impl<S> fmt::Debug for Tee<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tee").finish_non_exhaustive()
    }
}

impl fmt::Debug for TeeCompletion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ready = lock(&self.shared).result.is_some();
        f.debug_struct("TeeCompletion")
            .field("ready", &ready)
            .finish()
    }
}
