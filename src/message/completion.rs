//! `Completion`: what one streamed response assembles into, a message per choice, and whether the
//! stream was complete.

use serde::{Deserialize, Serialize};

use super::AiMessage;

/// Everything one streamed response assembled into: one message per choice.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Completion {
    /// The messages, ordered by choice index (most requests ask for one choice).
    pub choices: Vec<Choice>,
    /// False when the stream did not end cleanly (lenient mode, or the partial result carried by
    /// an error); each message then says why in `response_metadata.incomplete`.
    pub complete: bool,
}

/// One choice of a [`Completion`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Choice {
    /// The provider's choice index.
    pub index: u32,
    /// The assembled message.
    pub message: AiMessage,
}

impl Completion {
    /// The first choice's message (the only one unless the request asked for several).
    pub fn message(&self) -> Option<&AiMessage> {
        self.choices.first().map(|choice| &choice.message)
    }

    /// Takes the first choice's message; an empty message when the stream had no choice.
    pub fn into_message(self) -> AiMessage {
        self.choices
            .into_iter()
            .next()
            .map(|choice| choice.message)
            .unwrap_or_default()
    }

    /// The messages in choice order.
    pub fn messages(&self) -> impl Iterator<Item = &AiMessage> {
        self.choices.iter().map(|choice| &choice.message)
    }

    /// Marks the result as not the whole answer, saying why on every message (a reason already
    /// there, from a truncation or an error, is replaced: the caller's is the one that ended it).
    pub(crate) fn mark_incomplete(&mut self, reason: &str) {
        self.complete = false;
        for choice in &mut self.choices {
            choice.message.response_metadata.incomplete = Some(reason.to_owned());
        }
    }
}
