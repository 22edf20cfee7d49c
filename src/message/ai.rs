//! The assistant's answer as one value: content blocks in stream order, usage and metadata. Its
//! serde form, LangChain's `AIMessage` dict, is written beside the other LangChain dicts in
//! [`crate::wire::langchain`].

use serde_json::{Map, Value};

use super::{ContentBlock, FinishKind, InvalidToolCall, ResponseMetadata, ToolCall, UsageMetadata};

/// The assistant's answer, assembled.
///
/// `content` is the one source of truth, in stream order; tool calls are content blocks too, and
/// [`tool_calls`](Self::tool_calls) reads them back. Serde uses LangChain's `AIMessage` dict
/// (`{"type": "ai", "content": "…", "tool_calls": […], "usage_metadata": {…}, "content_blocks":
/// […], …}`), which Python loads with `AIMessage.model_validate`, and which deserialises back
/// into the same `AiMessage` (see [`crate::wire::langchain`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AiMessage {
    /// The provider's response id.
    pub id: Option<String>,
    /// An optional participant name.
    pub name: Option<String>,
    /// Reasoning, text, refusal and tool-call blocks in the order they began.
    pub content: Vec<ContentBlock>,
    /// Token counts, when the provider reported them.
    pub usage: Option<UsageMetadata>,
    /// Finish reason, model, ids and every other field the provider sent.
    pub response_metadata: ResponseMetadata,
    /// Open properties of the message itself (LangChain's `additional_kwargs`, MAF's
    /// `AdditionalProperties`); wire formats that allow it send them as extra message fields.
    pub extra: Map<String, Value>,
}

impl AiMessage {
    /// All text blocks joined.
    pub fn text(&self) -> String {
        self.join(|block| match block {
            ContentBlock::Text { text, .. } => Some(text),
            _ => None,
        })
    }

    /// All reasoning text joined.
    pub fn reasoning(&self) -> String {
        self.join(|block| match block {
            ContentBlock::Reasoning { text, .. } => Some(text),
            _ => None,
        })
    }

    /// The refusal text, if the model refused.
    pub fn refusal(&self) -> Option<String> {
        let mut refusals = self.content.iter().filter_map(|block| match block {
            ContentBlock::Refusal { refusal, .. } => Some(refusal.as_str()),
            _ => None,
        });
        let first = refusals.next()?;
        Some(refusals.fold(first.to_owned(), |mut all, next| {
            all.push_str(next);
            all
        }))
    }

    /// The tool calls whose arguments parsed, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|block| match block {
            ContentBlock::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// The tool calls whose arguments did not parse, in order.
    pub fn invalid_tool_calls(&self) -> impl Iterator<Item = &InvalidToolCall> {
        self.content.iter().filter_map(|block| match block {
            ContentBlock::InvalidToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// True when the message asks for at least one tool call, valid or not.
    pub fn has_tool_calls(&self) -> bool {
        self.content.iter().any(|block| {
            matches!(
                block,
                ContentBlock::ToolCall(_) | ContentBlock::InvalidToolCall(_)
            )
        })
    }

    /// Why the model stopped, comparable across providers; `None` when the stream never said.
    /// A plain stop on a message that asks for tool calls (Gemini's `STOP`, Responses'
    /// `completed`) is [`FinishKind::ToolCalls`]: the model waits for their results; one on a
    /// message that holds a refusal (Responses' `completed`) is [`FinishKind::Refusal`].
    ///
    /// ```
    /// use deltafold::message::FinishKind;
    ///
    /// let body = b"{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"now\",\"args\":{}}}]},\"finishReason\":\"STOP\"}]}\n";
    /// let message = deltafold::assemble(body, deltafold::Options::new())?.into_message();
    /// assert_eq!(message.response_metadata.finish_reason, "STOP");
    /// assert_eq!(message.finish_kind(), Some(FinishKind::ToolCalls));
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn finish_kind(&self) -> Option<FinishKind> {
        match self.response_metadata.finish_reason.kind()? {
            FinishKind::Stop if self.has_tool_calls() => Some(FinishKind::ToolCalls),
            FinishKind::Stop if self.has_refusal() => Some(FinishKind::Refusal),
            kind => Some(kind),
        }
    }

    fn has_refusal(&self) -> bool {
        let refusal = |block: &ContentBlock| matches!(block, ContentBlock::Refusal { .. });
        self.content.iter().any(refusal)
    }

    fn join<'a>(&'a self, pick: impl Fn(&'a ContentBlock) -> Option<&'a String>) -> String {
        let mut joined = String::new();
        for text in self.content.iter().filter_map(pick) {
            joined.push_str(text);
        }
        joined
    }
}
