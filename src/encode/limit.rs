//! An encoder within the message's budget: what it holds for the events it still has to write,
//! with what the assembler holds, may not pass `max_message_bytes` ([`Encoder::try_encode`]).

use super::{Encoder, Inner, Target};
use crate::assemble::{Assembler, Event};
use crate::error::{Error, ErrorKind};

impl Encoder {
    /// [`encode`](Self::encode) within the assembler's budget: what the encoder holds for the
    /// events it still has to write (Responses repeats every closed item in
    /// `response.completed`; Anthropic and Responses hold text behind a call that streams), with
    /// what the assembler holds, may not pass `max_message_bytes`. Past it, the assembler's
    /// stream fails: a [`LimitExceeded`](ErrorKind::LimitExceeded) error at its location,
    /// carrying the message so far (moved out of the assembler, which yields nothing more, so
    /// that the message is not held twice); this event's output is written, and the stream
    /// should be left cut (no [`finish`](Self::finish)), as for any failed source. `encode`
    /// alone holds what the target needs without this check.
    pub fn try_encode(
        &mut self,
        event: &Event<'_>,
        snapshot: &mut Assembler,
        out: &mut String,
    ) -> Result<(), Error> {
        self.encode(event, snapshot, out);
        let held = self.held_bytes();
        let max = snapshot.options().limits().max_message_bytes;
        let assembled = snapshot.held_bytes();
        // An assembler past the budget says so itself, after the events queued before its error.
        if assembled > max || held.saturating_add(assembled) <= max {
            return Ok(());
        }
        let error = Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "re-encoding into {} holds {held} bytes for the events still to write, past \
                 the message's budget of {max} bytes (max_message_bytes)",
                self.target()
            ),
        );
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

    /// The bytes the encoder holds for what it still has to write.
    fn held_bytes(&self) -> usize {
        match &self.inner {
            Inner::OpenAiChat(encoder) => encoder.held_bytes(),
            Inner::Anthropic(encoder) => encoder.held_bytes(),
            Inner::OpenAiResponses(encoder) => encoder.held_bytes(),
            Inner::Gemini(encoder) => encoder.held_bytes(),
            Inner::VercelUi(encoder) => encoder.held_bytes(),
            Inner::AgUi(encoder) => encoder.held_bytes(),
        }
    }
}
