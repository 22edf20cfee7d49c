//! How a stream ends — the one place that decides it: complete, truncated (an error, or in lenient
//! mode an incomplete result) or failed, and what the caller gets then ([`Assembler::finish`],
//! [`Assembler::stop`], the partial result an error carries). Apart from the input and output
//! calls in `mod.rs`, which only report each step here.

use super::Assembler;
use crate::assemble::fold::ResponseState;
use crate::assemble::lifecycle::{Lifecycle, Step};
use crate::dialect::Dialect;
use crate::error::{Error, ErrorKind};
use crate::message::Completion;

impl Assembler {
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

    /// Ends the stream before its input ended — the reader went away, or aborted it: the answer
    /// if it had ended, otherwise what arrived, every message marked incomplete for `reason`
    /// (what arrived before an error the stream failed with, too). Never an error: a driver that
    /// owes its caller one for a stream cut short makes it with
    /// [`Error::with_partial`].
    ///
    /// ```
    /// let mut assembler = deltafold::Assembler::new();
    /// assembler.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")?;
    /// let completion = assembler.stop("aborted");
    /// assert!(!completion.complete);
    /// let message = completion.into_message();
    /// assert_eq!(message.text(), "Hel");
    /// assert_eq!(message.response_metadata.incomplete.as_deref(), Some("aborted"));
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn stop(mut self, reason: &str) -> Completion {
        let answer_ended = self.is_done();
        let mut completion = match self.conclude() {
            Ok(completion) => completion,
            Err(error) => error.into_partial().unwrap_or_default(),
        };
        if !answer_ended {
            completion.mark_incomplete(reason);
        }
        completion
    }

    /// What [`finish`](Self::finish) returns; leaves the state empty.
    pub(in crate::assemble) fn conclude(&mut self) -> Result<Completion, Error> {
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

    /// Ends the stream with `error` now, the events not read yet dropped, and returns it at the
    /// stream's location carrying the partial result — moved out of the assembler, not copied
    /// beside it: for an error raised beside the assembler between events (an encoder's limit,
    /// [`Encoder::try_encode`](crate::encode::Encoder::try_encode)). Afterwards nothing more
    /// comes out, and `finish` reports an error of the same kind.
    pub(crate) fn fail_now(&mut self, error: Error) -> Error {
        let error = error.at(self.location());
        self.discard_events();
        self.lifecycle = Lifecycle::failed_by(&error);
        self.with_partial(error)
    }

    /// The state of the stream, a new one left in its place.
    fn take_state(&mut self) -> ResponseState {
        self.state.take(self.options.limits(), "")
    }

    /// True once the stream ended cleanly.
    pub fn is_done(&self) -> bool {
        matches!(self.lifecycle, Lifecycle::Complete)
    }

    /// The input ended with every event taken in: complete if every choice finished, otherwise
    /// cut short.
    pub(super) fn end_of_input(&mut self) -> Step {
        if let Err(error) = self.driver.end(&mut self.state) {
            return Step::Failed(error.at(self.location()));
        }
        if self.state.is_done() {
            return Step::Taken;
        }
        if self.state.all_choices_finished() {
            self.state.mark_done();
            return Step::Taken;
        }
        let unfinished: Vec<String> = self
            .messages()
            .iter()
            .filter(|message| !message.is_finished())
            .map(|message| message.index().to_string())
            .collect();
        let reason = if unfinished.is_empty() {
            let events = self.location().event;
            let plural = if events == 1 { "" } else { "s" };
            format!(
                "the stream ended after {events} event{plural} without any answer (is this an event stream?)"
            )
        } else {
            format!(
                "the stream ended without {} while choice {} was unfinished",
                self.dialect().map_or("[DONE]", Dialect::end_marker),
                unfinished.join(", ")
            )
        };
        Step::Cut {
            reason,
            at: self.location(),
        }
    }

    /// The one place the end of the stream is decided, after each step while it is read: an
    /// error ends it failed; otherwise, once the fold has taken in the end, it is complete; a
    /// stream cut short is a truncation error, or in lenient mode an incomplete result.
    #[inline]
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
    pub(super) fn with_partial(&mut self, error: Error) -> Error {
        let state = std::mem::replace(
            &mut self.state,
            ResponseState::new(self.options.limits(), ""),
        );
        let partial = state.into_completion(Some(error.to_string()));
        error.with_partial(partial)
    }
}
