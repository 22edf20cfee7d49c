//! An encoder within the message's budget: what it holds for the events it still has to write,
//! with what the assembler holds, may not pass `max_message_bytes`, and what it will write at
//! once when an open call ends stays within what reading allows ([`Encoder::try_encode`]).

use super::skeleton::Holdings;
use super::{Encoder, Inner, Target};
use crate::assemble::{Assembler, Event};
use crate::error::{Error, ErrorKind};

/// What the text held behind an open call may write at once when it ends: this much, plus
/// [`AT_ONCE_PER_INPUT`] times the bytes read so far.
const AT_ONCE_ALLOWANCE: usize = 256 * 1024;

/// Text behind a call writes about 4 times itself (Responses: delta, done, part and item), and
/// every delta that brought it was read: text in runs of any ordinary length passes. Runs far
/// shorter than their events do not: one-byte parts taking turns write 890 bytes each for 57
/// read, and once wrote 150 MB in one event's output for 9.7 MB read.
const AT_ONCE_PER_INPUT: usize = 4;

impl Encoder {
    /// [`encode`](Self::encode) within the assembler's budget: what the encoder holds for the
    /// events it still has to write (Responses repeats every closed item in
    /// `response.completed`; Anthropic and Responses hold text behind a call that streams), with
    /// what the assembler holds, may not pass `max_message_bytes`; and the text held behind an
    /// open call, all written when it ends, may not write more than 256 KiB plus 4 times the
    /// bytes read (Responses writes about 890 bytes for a one-byte part: such parts taking
    /// turns behind a call once wrote 150 MB in one output for 9.7 MB read). Past either, the
    /// assembler's stream fails: a [`LimitExceeded`](ErrorKind::LimitExceeded) error at its
    /// location, carrying the message so far (moved out of the assembler, which yields nothing
    /// more, so that the message is not held twice); this event's output is written, and the
    /// stream should be left cut (no [`finish`](Self::finish)), as for any failed source.
    /// `encode` alone holds what the target needs without this check.
    pub fn try_encode(
        &mut self,
        event: &Event<'_>,
        snapshot: &mut Assembler,
        out: &mut String,
    ) -> Result<(), Error> {
        self.encode(event, snapshot, out);
        let held = self.holdings();
        let limits = snapshot.options().limits();
        let assembled = snapshot.held_bytes();
        // An assembler past the budget says so itself, after the events queued before its error.
        if assembled > limits.max_message_bytes {
            return Ok(());
        }
        let read = usize::try_from(snapshot.location().offset).unwrap_or(usize::MAX);
        let at_once = AT_ONCE_ALLOWANCE.saturating_add(read.saturating_mul(AT_ONCE_PER_INPUT));
        let detail = if held.behind_call > at_once {
            format!(
                "re-encoding into {} would write {} bytes at once when the open call ends (the \
                 text held behind it), past {AT_ONCE_ALLOWANCE} bytes plus {AT_ONCE_PER_INPUT} \
                 times the {read} bytes read",
                self.target(),
                held.behind_call,
            )
        } else if held.total.saturating_add(assembled) > limits.max_message_bytes {
            format!(
                "re-encoding into {} holds {} bytes for the events still to write, past the \
                 message's budget of {} bytes (max_message_bytes)",
                self.target(),
                held.total,
                limits.max_message_bytes
            )
        } else {
            return Ok(());
        };
        let error = Error::new(ErrorKind::LimitExceeded, detail);
        Err(snapshot.fail_now(error))
    }

    /// The target this encoder writes.
    pub fn target(&self) -> Target {
        match &self.inner {
            Inner::OpenAiChat(_) => Target::OpenAiChat,
            Inner::Anthropic(_) => Target::Anthropic,
            Inner::OpenAiResponses(_) => Target::OpenAiResponses,
            Inner::Gemini(_) => Target::Gemini,
            Inner::VercelUi(_) => Target::VercelUi,
            Inner::AgUi(_) => Target::AgUi,
        }
    }

    /// What the encoder holds for what it still has to write.
    fn holdings(&self) -> Holdings {
        match &self.inner {
            Inner::OpenAiChat(encoder) => encoder.holdings(),
            Inner::Anthropic(encoder) => encoder.holdings(),
            Inner::OpenAiResponses(encoder) => encoder.holdings(),
            Inner::Gemini(encoder) => encoder.holdings(),
            Inner::VercelUi(encoder) => encoder.holdings(),
            Inner::AgUi(encoder) => encoder.holdings(),
        }
    }
}
