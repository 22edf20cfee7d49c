//! Stopping a stream before its end: the result of an assembler stopped early, and stopping
//! from anywhere: an [`AbortHandle`] held by another task (a UI's Stop
//! button) ends the stream it came from at its next poll, and wakes the task polling it so a
//! stream waiting on the network ends at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Waker};

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
