//! Gemini's `finishReason`, applied at the end of the input rather than when it comes: older
//! models (gemini-pro, and the JSON-array stream) send `STOP` on every chunk and the real reason
//! (`SAFETY`, with a chunk that has no content) only last, while the assembler keeps the first
//! reason of a choice. The last reason of each choice wins; a stream that ends without one is
//! truncated as before.

use crate::delta::{Delta, DeltaSink};
use crate::error::Error;

/// The latest `finishReason` of each choice, not applied yet.
#[derive(Debug, Default)]
pub(super) struct FinishReasons {
    latest: Vec<(u32, String)>,
}

impl FinishReasons {
    /// Remembers `reason` for `choice`, replacing an earlier one.
    pub(super) fn note(&mut self, choice: u32, reason: &str) {
        match self.latest.iter_mut().find(|(known, _)| *known == choice) {
            Some((_, latest)) if latest != reason => reason.clone_into(latest),
            Some(_) => {}
            None => self.latest.push((choice, reason.to_owned())),
        }
    }

    /// The input ended: each choice finishes with its last reason, in the order they came.
    pub(super) fn apply(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        for (choice, reason) in self.latest.drain(..) {
            sink.apply(Delta::Finish {
                choice,
                reason: &reason,
            })?;
        }
        Ok(())
    }
}
