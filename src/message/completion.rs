//! `Completion`: what one streamed response assembles into, a message per choice, and whether the
//! stream was complete.

use serde::{Deserialize, Serialize};

use super::{AiMessage, UsageMetadata};

/// Everything one streamed response assembled into: one message per choice, and the response's
/// token usage.
///
/// # Usage with several choices
///
/// Providers report usage once per response, for all its choices together (OpenAI's `n`,
/// Gemini's `candidateCount`). [`usage`](Self::usage) is that report. Each message carries a
/// copy as its `usage` too, as LangChain's `AIMessage.usage_metadata` does for every generation
/// of a response — so with several choices, count [`Completion::usage`], never the sum of the
/// messages' usage, which counts the response once per choice.
///
/// ```
/// let body = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"A\"},\"finish_reason\":\"stop\"},",
///     "{\"index\":1,\"delta\":{\"content\":\"B\"},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let completion = deltafold::assemble(body.as_bytes(), deltafold::Options::new())?;
/// assert_eq!(completion.usage.as_ref().map(|usage| usage.total_tokens), Some(11));
/// let summed: u64 = completion.messages().filter_map(|m| m.usage.as_ref()).map(|u| u.total_tokens).sum();
/// assert_eq!(summed, 22, "each message carries the whole response's usage");
/// # Ok::<(), deltafold::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Completion {
    /// The messages, ordered by choice index (most requests ask for one choice).
    pub choices: Vec<Choice>,
    /// False when the stream did not end cleanly (lenient mode, or the partial result carried by
    /// an error); each message then says why in `response_metadata.incomplete`.
    pub complete: bool,
    /// The response's token usage, for all its choices together; `None` when the provider
    /// reported none. The counts only: the provider's raw usage object is on a message's
    /// `usage.raw` (LangChain's `response_metadata.token_usage`): the first choice's message
    /// (the lowest index; the others carry the counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageMetadata>,
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
