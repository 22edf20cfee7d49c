//! Stopping a stream before its end: the result of an assembler stopped early, and stopping
//! from anywhere: an [`AbortHandle`] held by another task (a UI's Stop
//! button) ends the stream it came from at its next poll, and wakes the task polling it so a
//! stream waiting on the network ends at once; and the [`AssembleStream`] calls that end it so
//! ([`abort_handle`](AssembleStream::abort_handle), [`stop`](AssembleStream::stop),
//! [`abort`](AssembleStream::abort)), apart from its polling in `mod.rs`.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Waker};

use super::{AssembleStream, Progress};
use crate::assemble::Assembler;
use crate::error::{Error, ErrorKind};
use crate::message::Completion;

/// Ends the stream it was taken from ([`AssembleStream::abort_handle`](super::AssembleStream::abort_handle),
/// [`Tee::abort_handle`](super::Tee::abort_handle),
/// [`EncodeStream::abort_handle`](crate::encode::EncodeStream::abort_handle)), like tokio-util's
/// `CancellationToken` or the `AbortSignal` of the web: clonable, `Send + Sync`, one atomic
/// flag.
///
/// After [`abort`](Self::abort) the stream's next poll yields its end and its result is what
/// arrived, with `complete == false` and `"aborted"` in each message's
/// `response_metadata.incomplete` (or the answer, if it had already ended). A task waiting for
/// the next read is woken at once.
#[derive(Clone, Debug, Default)]
pub struct AbortHandle {
    state: Arc<State>,
}

#[derive(Debug, Default)]
struct State {
    aborted: AtomicBool,
    /// The task that last polled the stream.
    waker: Mutex<Option<Waker>>,
}

impl AbortHandle {
    /// Ends the stream at its next poll, and wakes the task polling it. Idempotent.
    pub fn abort(&self) {
        self.state.aborted.store(true, Ordering::Release);
        let waker = lock(&self.state.waker).take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether [`abort`](Self::abort) was called.
    pub fn is_aborted(&self) -> bool {
        self.state.aborted.load(Ordering::Acquire)
    }

    /// Whether the stream must stop: remembers the polling task first, so that an abort after
    /// this check wakes it.
    pub(crate) fn poll_aborted(&self, cx: &Context<'_>) -> bool {
        if self.is_aborted() {
            return true;
        }
        {
            let mut waker = lock(&self.state.waker);
            match waker.as_ref() {
                Some(stored) if stored.will_wake(cx.waker()) => {}
                _ => *waker = Some(cx.waker().clone()),
            }
        }
        self.is_aborted()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A waker slot has no invariant a panic could break.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What [`AssembleStream::abort`] says on each message.
pub(crate) const ABORTED: &str = "aborted";

/// The result of an assembler whose reader went away before its input ended: the answer if it
/// had already ended, otherwise the partial marked incomplete for `reason` — an
/// [`ErrorKind::Truncated`] error carrying it, or in lenient mode the incomplete completion.
pub(crate) fn cut_short(assembler: Assembler, reason: &str) -> Result<Completion, Error> {
    let lenient = assembler.options().is_lenient();
    let answer_ended = assembler.is_done();
    let completion = assembler.stop(reason);
    if answer_ended || lenient {
        Ok(completion)
    } else {
        Err(Error::new(ErrorKind::Truncated, reason).with_partial(completion))
    }
}

/// Ending an [`AssembleStream`] before its end: from anywhere through its handle, or by its
/// holder with what arrived.
impl<S> AssembleStream<S> {
    /// A handle that ends this stream from anywhere (another task, a UI's Stop button): the
    /// next poll yields the end, and [`completion`](Self::completion) returns what arrived,
    /// marked `"aborted"` as [`abort`](Self::abort) does. Take it before handing the stream
    /// on.
    ///
    /// ```
    /// use deltafold::{AssembleExt, Event};
    /// use futures::StreamExt;
    ///
    /// let first = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once upon\"}}]}\n\n";
    /// // A stream that would go on for ever.
    /// let reads = futures::stream::iter([first]).chain(futures::stream::pending());
    /// let mut events = reads.map(Ok::<_, std::io::Error>).assemble();
    /// let stop = events.abort_handle();
    /// futures::executor::block_on(async {
    ///     while let Some(event) = events.next().await {
    ///         if let Event::TextDelta { .. } = event? {
    ///             stop.abort(); // from anywhere: the handle is Clone + Send + Sync
    ///         }
    ///     }
    ///     let completion = events.completion().await?;
    ///     assert!(!completion.complete);
    ///     let message = completion.into_message();
    ///     assert_eq!(message.text(), "Once upon");
    ///     assert_eq!(message.response_metadata.incomplete.as_deref(), Some("aborted"));
    ///     Ok::<(), deltafold::Error>(())
    /// })?;
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn abort_handle(&mut self) -> AbortHandle {
        self.abort.get_or_insert_with(AbortHandle::default).clone()
    }

    /// Whether the abort handle ended the stream (checked at each poll; remembers the task).
    pub(super) fn poll_aborted(self: Pin<&mut Self>, cx: &Context<'_>) -> bool {
        let this = self.project();
        if !*this.aborted
            && this
                .abort
                .as_ref()
                .is_some_and(|abort| abort.poll_aborted(cx))
        {
            *this.aborted = true;
            *this.progress = Progress::Finished;
        }
        *this.aborted
    }

    /// Ends the stream where it stands, for a driver that holds it pinned (an adapter such as
    /// [`EncodeStream`](crate::encode::EncodeStream)): returns without reading further what
    /// [`completion`](Self::completion) would, and the stream yields `None` from here on.
    ///
    /// After the stream's end, the result; after an [abort](Self::abort_handle), what arrived
    /// marked `"aborted"`; before the end, what arrived as an early drop leaves it: the answer
    /// if it had already ended, otherwise an [`ErrorKind::Truncated`] error carrying the
    /// partial (in lenient mode an incomplete [`Completion`]), marked with `reason`.
    pub fn stop(self: Pin<&mut Self>, reason: &str) -> Result<Completion, Error> {
        let this = self.project();
        let assembler = std::mem::take(this.assembler);
        let progress = std::mem::replace(this.progress, Progress::Finished);
        let result = if *this.aborted {
            Ok(assembler.stop(ABORTED))
        } else if progress == Progress::Finished {
            assembler.finish()
        } else {
            cut_short(assembler, reason)
        };
        match &result {
            Ok(completion) => this.trace.completion(completion),
            Err(error) => this.trace.error(error),
        }
        result
    }

    /// Stops here: closes the input (for an HTTP response, the connection) without reading
    /// further, and returns what arrived.
    ///
    /// Bytes already read but not yet turned into events are taken in. Unless the answer had
    /// already ended (`[DONE]` or its dialect's end), the result has `complete == false` and each
    /// message says `"aborted"` in `response_metadata.incomplete`. After the stream yielded its
    /// error, the partial went with that error and this returns an empty, incomplete result.
    ///
    /// ```
    /// use deltafold::{AssembleExt, Event};
    /// use futures::StreamExt;
    ///
    /// let first = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once upon\"}}]}\n\n";
    /// // A stream that would go on for ever: the app stops it after the first delta.
    /// let reads = futures::stream::iter([first]).chain(futures::stream::pending());
    /// let mut events = reads.map(Ok::<_, std::io::Error>).assemble();
    /// futures::executor::block_on(async {
    ///     while let Some(event) = events.next().await {
    ///         if let Event::TextDelta { .. } = event? {
    ///             break;
    ///         }
    ///     }
    ///     Ok::<(), deltafold::Error>(())
    /// })?;
    /// let completion = events.abort();
    /// assert!(!completion.complete);
    /// let message = completion.into_message();
    /// assert_eq!(message.text(), "Once upon");
    /// assert_eq!(message.response_metadata.incomplete.as_deref(), Some("aborted"));
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn abort(self) -> Completion {
        let AssembleStream {
            input,
            assembler,
            mut trace,
            ..
        } = self;
        drop(input);
        let completion = assembler.stop(ABORTED);
        trace.completion(&completion);
        completion
    }
}
