//! Where one stream stands — reading, ended, complete, cut short or failed — and how a step of
//! it went: the states the [`Assembler`](super::Assembler) moves through.

use crate::error::{Error, ErrorKind, Location};

/// Where the stream stands: the one answer to whether it is over, and how.
#[derive(Debug)]
pub(super) enum Lifecycle {
    /// More input may come.
    Reading,
    /// The caller said the input is over: what the framer still holds is processed, then the
    /// end is decided.
    InputEnded,
    /// Over: the end marker came, or the input ended with every choice finished.
    Complete,
    /// Over early, in lenient mode: why the result is incomplete.
    Truncated(String),
    /// Over with an error. It waits in `pending` until the events queued before it have been
    /// read, and goes out with the partial result; `finish` then reports it again from the rest.
    Failed {
        pending: Option<Error>,
        kind: ErrorKind,
        detail: String,
        location: Option<Location>,
    },
}

impl Lifecycle {
    /// Failed with `error`, which waits for the events queued before it.
    pub(super) fn failed(error: Error) -> Self {
        let mut failed = Lifecycle::failed_by(&error);
        if let Lifecycle::Failed { pending, .. } = &mut failed {
            *pending = Some(error);
        }
        failed
    }

    /// Failed with `error`, already handed out.
    pub(super) fn failed_by(error: &Error) -> Self {
        Lifecycle::Failed {
            kind: error.kind(),
            detail: error.detail().to_owned(),
            location: error.location(),
            pending: None,
        }
    }

    pub(super) fn is_reading(&self) -> bool {
        matches!(self, Lifecycle::Reading)
    }
}

/// How one step of the stream went, for the assembler's `settle` to decide what follows.
pub(super) enum Step {
    /// The frame (or the end of the input) was taken in.
    Taken,
    /// The stream stopped short of its end.
    Cut { reason: String, at: Location },
    /// It failed.
    Failed(Error),
}
