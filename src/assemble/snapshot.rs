//! The snapshot: what the [`Assembler`] has so far, read at any time between events — the live
//! [`PartialMessage`] of each choice, the response's metadata and usage, and the message so far
//! built as a finished message (what [`Assembler::finish`] would return now, for a caller that
//! wants the whole message dict mid-stream, as the Python package's `Assembler.message` does).

use super::assembler::Assembler;
use super::partial_message::PartialMessage;
use crate::message::{AiMessage, ResponseMetadata, UsageMetadata};

impl Assembler {
    /// The messages so far, one per choice, in order of first appearance.
    pub fn messages(&self) -> &[PartialMessage] {
        self.state.choices()
    }

    /// The message so far of one choice.
    pub fn message(&self, choice: u32) -> Option<&PartialMessage> {
        self.messages()
            .iter()
            .find(|message| message.index() == choice)
    }

    /// Response-level metadata so far (id, model…; finish reasons live on each message).
    pub fn metadata(&self) -> &ResponseMetadata {
        self.state.metadata()
    }

    /// The usage so far with the provider's raw object ([`Event::Usage`](super::Event::Usage) has only the counts).
    /// ```
    /// let mut assembler = deltafold::Assembler::new();
    /// assembler.feed(br#"data: {"choices":[],"usage":{"prompt_tokens":3,"cost":0.5}}"#)?;
    /// assembler.feed(b"\n\n")?;
    /// let raw = assembler.usage().unwrap().raw.as_ref().unwrap();
    /// assert_eq!(raw.get("cost"), Some(serde_json::json!(0.5)));
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn usage(&self) -> Option<&UsageMetadata> {
        self.state.usage()
    }

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
}
