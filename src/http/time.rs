//! The time bounds of one exchange: the idle timeout between reads and the overall deadline.
//!
//! A fast stream must not pay for them on every chunk, so a read only reads the clock; the
//! timers are polled, and re-armed, only while the body is waiting for bytes.

use std::future::Future;
use std::pin::Pin;
use std::task::Context;
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use crate::error::{Error, ErrorKind};

/// The instant by which the whole answer must be in, with the duration it was set as (for the
/// error message).
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    at: Instant,
    after: Duration,
}

impl Deadline {
    /// A deadline `after` from now.
    pub(super) fn starting_now(after: Duration) -> Self {
        Deadline {
            at: Instant::now() + after,
            after,
        }
    }

    fn error(&self, what: &str) -> Error {
        Error::new(
            ErrorKind::DeadlineExceeded,
            format!("{what} within {:?} (deadline)", self.after),
        )
    }
}

fn idle_error(what: &str, timeout: Duration) -> Error {
    Error::new(
        ErrorKind::IdleTimeout,
        format!("{what} within {timeout:?} (idle_timeout)"),
    )
}

/// Waits for `future` — the response headers — failing when the deadline passes or, before it,
/// the idle timeout; `what` names what did not come.
pub(super) async fn within<T>(
    future: impl Future<Output = T>,
    idle_timeout: Option<Duration>,
    deadline: Option<Deadline>,
    what: &str,
) -> Result<T, Error> {
    let idle_bounded = async {
        match idle_timeout {
            Some(timeout) => tokio::time::timeout(timeout, future)
                .await
                .map_err(|_| idle_error(what, timeout)),
            None => Ok(future.await),
        }
    };
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline.at, idle_bounded)
            .await
            .map_err(|_| deadline.error(what))?,
        None => idle_bounded.await,
    }
}

/// The bounds of reading one body.
pub(super) struct BodyTimers {
    idle: Option<IdleTimer>,
    deadline: Option<DeadlineTimer>,
}

impl BodyTimers {
    pub(super) fn new(idle_timeout: Option<Duration>, deadline: Option<Deadline>) -> Self {
        BodyTimers {
            idle: idle_timeout.map(IdleTimer::new),
            deadline: deadline.map(DeadlineTimer::new),
        }
    }

    /// Bytes arrived: the idle timer starts again. Past the deadline they come too late, and
    /// this is the deadline's error.
    pub(super) fn bytes_arrived(&mut self) -> Result<(), Error> {
        if self.idle.is_none() && self.deadline.is_none() {
            return Ok(());
        }
        let now = Instant::now();
        if let Some(idle) = self.idle.as_mut() {
            idle.deadline = now + idle.timeout;
        }
        match &self.deadline {
            Some(deadline) if now >= deadline.deadline.at => Err(deadline.error()),
            _ => Ok(()),
        }
    }

    /// No bytes are ready: the error of the bound that ran out, or `None` once the waker is
    /// registered with both timers.
    pub(super) fn poll_expired(&mut self, cx: &mut Context<'_>) -> Option<Error> {
        if let Some(deadline) = self.deadline.as_mut() {
            if deadline.sleep.as_mut().poll(cx).is_ready() {
                return Some(deadline.error());
            }
        }
        let idle = self.idle.as_mut()?;
        idle.poll_expired(cx)
            .then(|| idle_error("no bytes arrived", idle.timeout))
    }

    pub(super) fn idle_timeout(&self) -> Option<Duration> {
        self.idle.as_ref().map(|idle| idle.timeout)
    }

    pub(super) fn deadline(&self) -> Option<Duration> {
        self.deadline
            .as_ref()
            .map(|deadline| deadline.deadline.after)
    }
}

/// The deadline, armed once: unlike the idle timer it never moves.
struct DeadlineTimer {
    deadline: Deadline,
    sleep: Pin<Box<Sleep>>,
}

impl DeadlineTimer {
    fn new(deadline: Deadline) -> Self {
        DeadlineTimer {
            deadline,
            sleep: Box::pin(tokio::time::sleep_until(deadline.at)),
        }
    }

    fn error(&self) -> Error {
        self.deadline.error("the answer did not complete")
    }
}

/// The idle timeout. A read only records the new deadline; the timer is re-armed when it
/// fires early, so a fast stream does not touch the timer wheel on every chunk.
struct IdleTimer {
    timeout: Duration,
    deadline: Instant,
    sleep: Pin<Box<Sleep>>,
}

impl IdleTimer {
    fn new(timeout: Duration) -> Self {
        let deadline = Instant::now() + timeout;
        IdleTimer {
            timeout,
            deadline,
            sleep: Box::pin(tokio::time::sleep_until(deadline)),
        }
    }

    /// True once the deadline passed with no bytes; otherwise the waker is registered.
    fn poll_expired(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            if self.sleep.as_mut().poll(cx).is_pending() {
                return false;
            }
            if self.sleep.deadline() >= self.deadline {
                return true;
            }
            self.sleep.as_mut().reset(self.deadline);
        }
    }
}
