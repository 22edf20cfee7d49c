//! The message so far as a finished message: what [`Assembler::finish`] would return now, for a
//! caller that wants the whole message dict mid-stream (the Python package's
//! `Assembler.message`) rather than the live [`PartialMessage`](super::PartialMessage) view.

use super::assembler::Assembler;
use crate::message::{AiMessage, Choice, Completion, UsageMetadata};

impl Assembler {
    /// The message so far of one choice, built as [`finish`](Self::finish) would build it from
    /// what arrived: tool calls still streaming are parsed as they stand (an invalid call when
    /// their arguments are cut), nothing is marked incomplete, and the stream goes on.
    ///
    /// It copies the message, so it costs as much as the message is long: for a look now and
    /// then, not after every event — [`message`](Self::message) is the live view that costs
    /// nothing.
    ///
    /// ```
    /// let mut assembler = deltafold::Assembler::new();
    /// assembler.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")?;
    /// let message = assembler.message_so_far(0).unwrap();
    /// assert_eq!(message.text(), "Hel");
    /// assert_eq!(message.response_metadata.model_provider.as_deref(), Some("openai"));
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn message_so_far(&self, choice: u32) -> Option<AiMessage> {
        self.state.message_so_far(choice)
    }

    /// What the message budget counts so far (`max_message_bytes`): an encoder holding more for
    /// the same response stays within the same budget.
    pub(crate) fn held_bytes(&self) -> usize {
        self.state.held_bytes()
    }

    /// Every choice's [`message_so_far`](Self::message_so_far) as an incomplete
    /// [`Completion`]: the partial of an error raised beside the assembler (an encoder's limit).
    pub(crate) fn completion_so_far(&self) -> Completion {
        let choices = self
            .messages()
            .iter()
            .filter_map(|partial| {
                let message = self.message_so_far(partial.index())?;
                Some(Choice {
                    index: partial.index(),
                    message,
                })
            })
            .collect();
        Completion {
            choices,
            complete: false,
            usage: self.usage().map(UsageMetadata::counts),
        }
    }
}
