//! `Conversation`: the messages of a chat, in order, kept valid as they are added, and rendered
//! in each wire format.

use serde_json::Value;

use super::validate::CallTracker;
use super::{trim_messages, ApproxTokenCounter, ConversationError, TokenCounter, Trim};
use crate::message::{ContentBlock, Message, ToolApprovalRequest, ToolApprovalResponse};
use crate::wire::{
    anthropic, gemini, langchain, openai_chat, openai_responses, WireError, WireFormat,
};

/// The messages of a conversation, in order, kept valid as they are added.
///
/// A model remembers nothing: the app sends the whole conversation every turn. `Conversation`
/// holds it — push the user's message, the assembled [`AiMessage`](crate::AiMessage), the
/// results of its tool calls — and refuses, with a [`ConversationError`], a message that would
/// make the providers refuse the request: a tool result for a call the assistant did not make,
/// a new turn while calls are unanswered, or (for a conversation made
/// [`for_format`](Self::for_format) Anthropic) a system message after the first turn. Render it
/// with [`to_openai_chat`](Self::to_openai_chat), [`to_anthropic`](Self::to_anthropic),
/// [`to_openai_responses`](Self::to_openai_responses), [`to_gemini`](Self::to_gemini) or
/// [`to_langchain`](Self::to_langchain); keep it within the context with
/// [`trim`](Self::trim).
///
/// ```
/// use deltafold::conversation::Conversation;
/// use deltafold::message::{AiMessage, ContentBlock, Message, ToolCall, ToolMessage};
///
/// let mut conversation = Conversation::new();
/// conversation.push(Message::user("Weather in Paris?"))?;
/// let call = ToolCall { id: "call_1".into(), name: "get_weather".into(), ..ToolCall::default() };
/// conversation.push(AiMessage { content: vec![ContentBlock::ToolCall(call)], ..AiMessage::default() })?;
/// assert_eq!(conversation.pending_tool_calls().collect::<Vec<_>>(), ["call_1"]);
///
/// // The next user turn must wait for the answer…
/// assert!(conversation.push(Message::user("Hello?")).is_err());
/// conversation.push(ToolMessage::new("call_1", "18°C, sunny"))?;
/// assert_eq!(conversation.pending_tool_calls().count(), 0);
/// assert_eq!(conversation.to_openai_chat().unwrap().len(), 3);
/// # Ok::<(), deltafold::conversation::ConversationError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conversation {
    messages: Vec<Message>,
    format: Option<WireFormat>,
    tracker: CallTracker,
}

impl Conversation {
    /// An empty conversation that allows system messages anywhere.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty conversation that also enforces `format`'s rules (Anthropic: system messages
    /// only at the start).
    pub fn for_format(format: WireFormat) -> Self {
        Conversation {
            format: Some(format),
            ..Self::default()
        }
    }

    /// A conversation of `messages`, checked in order; calls of the last assistant message may
    /// still be unanswered.
    pub fn from_messages(
        messages: impl IntoIterator<Item = Message>,
    ) -> Result<Self, ConversationError> {
        let mut conversation = Self::new();
        conversation.extend(messages)?;
        Ok(conversation)
    }

    /// The format whose rules are enforced, if one was chosen.
    pub fn format(&self) -> Option<WireFormat> {
        self.format
    }

    /// Adds a message at the end, if it may come next (see [`check`](Self::check)).
    pub fn push(&mut self, message: impl Into<Message>) -> Result<(), ConversationError> {
        let message = message.into();
        self.check(&message)?;
        self.tracker.record(&message);
        self.messages.push(message);
        Ok(())
    }

    /// Adds messages in order, stopping at the first that may not come next (the ones before it
    /// stay added).
    pub fn extend(
        &mut self,
        messages: impl IntoIterator<Item = Message>,
    ) -> Result<(), ConversationError> {
        messages
            .into_iter()
            .try_for_each(|message| self.push(message))
    }

    /// Whether `message` may come next, without adding it.
    pub fn check(&self, message: &Message) -> Result<(), ConversationError> {
        self.tracker
            .check(self.messages.len(), message, self.format)
    }

    /// Checks the whole conversation against `format`'s rules (for a conversation built for
    /// another format, or none).
    pub fn validate_for(&self, format: WireFormat) -> Result<(), ConversationError> {
        let mut tracker = CallTracker::default();
        for (index, message) in self.messages.iter().enumerate() {
            tracker.check(index, message, Some(format))?;
            tracker.record(message);
        }
        Ok(())
    }

    /// Ids of the last assistant message's tool calls that no tool message answers yet.
    pub fn pending_tool_calls(&self) -> impl Iterator<Item = &str> {
        self.tracker.pending()
    }

    /// The messages, in order.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Iterates over the messages.
    pub fn iter(&self) -> std::slice::Iter<'_, Message> {
        self.messages.iter()
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// True when there is no message.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The last message.
    pub fn last(&self) -> Option<&Message> {
        self.messages.last()
    }

    /// Takes the messages out.
    pub fn into_messages(self) -> Vec<Message> {
        self.messages
    }

    /// The messages as OpenAI Chat Completions request messages.
    pub fn to_openai_chat(&self) -> Result<Vec<Value>, WireError> {
        openai_chat::encode(&self.messages)
    }

    /// The messages as OpenAI Chat Completions request messages, with options (system messages
    /// as `developer`…).
    pub fn to_openai_chat_with(
        &self,
        options: &openai_chat::EncodeOptions,
    ) -> Result<Vec<Value>, WireError> {
        openai_chat::encode_with(&self.messages, options)
    }

    /// The messages as an OpenAI Responses request's `input` items.
    pub fn to_openai_responses(&self) -> Result<Vec<Value>, WireError> {
        openai_responses::encode(&self.messages)
    }

    /// The messages as an OpenAI Responses request's `input` items, with options (`store`).
    pub fn to_openai_responses_with(
        &self,
        options: &openai_responses::EncodeOptions,
    ) -> Result<Vec<Value>, WireError> {
        openai_responses::encode_with(&self.messages, options)
    }

    /// Answers an approval request of the conversation (a
    /// [`ToolApprovalRequest`] block of an assistant message): a user message holding the
    /// answer, which the Responses wire format sends as an `mcp_approval_response` item.
    pub fn answer_approval(
        &mut self,
        response: ToolApprovalResponse,
    ) -> Result<(), ConversationError> {
        self.push(Message::user(vec![ContentBlock::ToolApprovalResponse(
            response,
        )]))
    }

    /// The approval requests of the conversation that no answer quotes yet, in order.
    pub fn pending_approvals(&self) -> impl Iterator<Item = &ToolApprovalRequest> {
        self.messages
            .iter()
            .filter_map(Message::as_assistant)
            .flat_map(|message| &message.content)
            .filter_map(|block| match block {
                ContentBlock::ToolApprovalRequest(request) => Some(request),
                _ => None,
            })
            .filter(|request| !self.tracker.is_answered(&request.id))
    }

    /// The messages as an Anthropic Messages request's `system` and `messages`.
    pub fn to_anthropic(&self) -> Result<anthropic::AnthropicRequest, WireError> {
        anthropic::encode(&self.messages)
    }

    /// The messages as a Gemini request's `systemInstruction` and `contents`, with the model
    /// turns' parts and thought signatures as Gemini streamed them.
    pub fn to_gemini(&self) -> Result<gemini::GeminiRequest, WireError> {
        gemini::encode(&self.messages)
    }

    /// The messages as LangChain's `messages_to_dict` writes them.
    pub fn to_langchain(&self) -> Vec<Value> {
        langchain::messages_to_dict(&self.messages)
    }

    /// The conversation trimmed as `trim` says, counting tokens with [`ApproxTokenCounter`].
    pub fn trim(&self, trim: &Trim) -> Conversation {
        self.trim_with(trim, &ApproxTokenCounter::default())
    }

    /// The conversation trimmed as `trim` says, counting tokens with `counter`.
    pub fn trim_with(&self, trim: &Trim, counter: &dyn TokenCounter) -> Conversation {
        let messages = trim_messages(&self.messages, trim, counter);
        // Trimming keeps or drops assistant messages with their tool messages and never starts
        // on a tool message, so what it keeps of a valid conversation is valid.
        let mut tracker = CallTracker::default();
        for message in &messages {
            tracker.record(message);
        }
        Conversation {
            messages,
            format: self.format,
            tracker,
        }
    }
}

impl AsRef<[Message]> for Conversation {
    fn as_ref(&self) -> &[Message] {
        &self.messages
    }
}

impl<'a> IntoIterator for &'a Conversation {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;

    fn into_iter(self) -> Self::IntoIter {
        self.messages.iter()
    }
}

impl IntoIterator for Conversation {
    type Item = Message;
    type IntoIter = std::vec::IntoIter<Message>;

    fn into_iter(self) -> Self::IntoIter {
        self.messages.into_iter()
    }
}
