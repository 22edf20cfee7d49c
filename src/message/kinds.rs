//! The kinds of message in a conversation (system, user, assistant, tool, custom role) and the
//! `Message` enum over them.

use serde_json::{Map, Value};

use super::{AiMessage, Content, Role, ToolCall, ToolStatus};

/// One message of a conversation, of any kind.
///
/// The kinds are LangChain's (`SystemMessage`, `HumanMessage`, `AIMessage`, `ToolMessage`,
/// `ChatMessage`) and Microsoft.Extensions.AI's roles; serde uses LangChain's message dict
/// (`{"type": "human", "content": …, …}`), and [`crate::wire`] converts to and from the
/// providers' request formats.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
// Assistant messages are half of any history; boxing them would cost an allocation each to save
// a few hundred bytes per message of a conversation that holds tens of them.
#[allow(clippy::large_enum_variant)]
pub enum Message {
    /// Instructions that frame the conversation.
    System(SystemMessage),
    /// What the person said.
    User(UserMessage),
    /// The model's answer, as assembled from its stream.
    Assistant(AiMessage),
    /// The result of one tool call.
    Tool(ToolMessage),
    /// A message with a role of its own (`developer`, `critic`…).
    Chat(ChatMessage),
}

/// Instructions that frame the conversation (`system`, or OpenAI's `developer`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SystemMessage {
    /// The instructions.
    pub content: Content,
    /// An id for the message, when the app or provider gave one.
    pub id: Option<String>,
    /// An optional participant name.
    pub name: Option<String>,
    /// Open properties that travel with the message (LangChain's `additional_kwargs`, MEAI's
    /// `AdditionalProperties`); wire formats that allow it send them as extra message fields.
    pub extra: Map<String, Value>,
}

/// What the person said: text, or text with images, audio, files….
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserMessage {
    /// The message.
    pub content: Content,
    /// An id for the message, when the app or provider gave one.
    pub id: Option<String>,
    /// An optional participant name.
    pub name: Option<String>,
    /// Open properties, as for [`SystemMessage::extra`].
    pub extra: Map<String, Value>,
}

/// The answer to one tool call, which the model reads on its next turn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolMessage {
    /// The id of the call this answers ([`ToolCall::id`]).
    pub tool_call_id: String,
    /// What the model is shown: the tool's output, or the error.
    pub content: Content,
    /// Whether the tool succeeded; providers that can mark an error (Anthropic's `is_error`)
    /// are told.
    pub status: ToolStatus,
    /// The tool's full output for the app, never sent to the model (LangChain's `artifact`).
    pub artifact: Option<Value>,
    /// An id for the message itself.
    pub id: Option<String>,
    /// The tool's name, when the app records it.
    pub name: Option<String>,
    /// Open properties, as for [`SystemMessage::extra`].
    pub extra: Map<String, Value>,
}

/// A message with any role, for roles the other kinds do not cover.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatMessage {
    /// The role, spelled as the wire format spells it.
    pub role: String,
    /// The message.
    pub content: Content,
    /// An id for the message.
    pub id: Option<String>,
    /// An optional participant name.
    pub name: Option<String>,
    /// Open properties, as for [`SystemMessage::extra`].
    pub extra: Map<String, Value>,
}

/// Builder methods shared by the message kinds that own an `extra` map.
macro_rules! common_builders {
    ($kind:ty) => {
        impl $kind {
            /// Sets the message id.
            pub fn with_id(mut self, id: impl Into<String>) -> Self {
                self.id = Some(id.into());
                self
            }

            /// Sets the participant name.
            pub fn with_name(mut self, name: impl Into<String>) -> Self {
                self.name = Some(name.into());
                self
            }

            /// Adds an open property.
            pub fn with_extra(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
                self.extra.insert(key.into(), value.into());
                self
            }

            /// All text joined.
            pub fn text(&self) -> String {
                self.content.text()
            }
        }
    };
}

common_builders!(SystemMessage);
common_builders!(UserMessage);
common_builders!(ToolMessage);
common_builders!(ChatMessage);

impl SystemMessage {
    /// A system message saying `content`.
    pub fn new(content: impl Into<Content>) -> Self {
        SystemMessage {
            content: content.into(),
            ..SystemMessage::default()
        }
    }
}

impl UserMessage {
    /// A user message saying `content`.
    pub fn new(content: impl Into<Content>) -> Self {
        UserMessage {
            content: content.into(),
            ..UserMessage::default()
        }
    }
}

impl ToolMessage {
    /// A successful result of the call `tool_call_id`.
    pub fn new(tool_call_id: impl Into<String>, content: impl Into<Content>) -> Self {
        ToolMessage {
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            ..ToolMessage::default()
        }
    }

    /// A failed result of the call `tool_call_id`; `content` tells the model what went wrong.
    pub fn error(tool_call_id: impl Into<String>, content: impl Into<Content>) -> Self {
        ToolMessage {
            status: ToolStatus::Error,
            ..ToolMessage::new(tool_call_id, content)
        }
    }

    /// Attaches the tool's full output for the app.
    pub fn with_artifact(mut self, artifact: impl Into<Value>) -> Self {
        self.artifact = Some(artifact.into());
        self
    }

    /// True when the tool failed.
    pub fn is_error(&self) -> bool {
        self.status == ToolStatus::Error
    }
}

impl ChatMessage {
    /// A message with `role` saying `content`.
    pub fn new(role: impl Into<String>, content: impl Into<Content>) -> Self {
        ChatMessage {
            role: role.into(),
            content: content.into(),
            ..ChatMessage::default()
        }
    }
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<Content>) -> Self {
        Message::System(SystemMessage::new(content))
    }

    /// A user message.
    pub fn user(content: impl Into<Content>) -> Self {
        Message::User(UserMessage::new(content))
    }

    /// An assistant message with text only (an assembled answer is pushed as it is:
    /// `Message::from(ai_message)`).
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::Assistant(AiMessage {
            content: vec![super::ContentBlock::text(text)],
            ..AiMessage::default()
        })
    }

    /// A successful tool result.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<Content>) -> Self {
        Message::Tool(ToolMessage::new(tool_call_id, content))
    }

    /// A message with a role of its own.
    pub fn chat(role: impl Into<String>, content: impl Into<Content>) -> Self {
        Message::Chat(ChatMessage::new(role, content))
    }

    /// Who wrote the message.
    pub fn role(&self) -> Role {
        match self {
            Message::System(_) => Role::System,
            Message::User(_) => Role::User,
            Message::Assistant(_) => Role::Assistant,
            Message::Tool(_) => Role::Tool,
            Message::Chat(chat) => Role::Custom(chat.role.clone()),
        }
    }

    /// All text blocks joined.
    pub fn text(&self) -> String {
        match self {
            Message::System(message) => message.text(),
            Message::User(message) => message.text(),
            Message::Assistant(message) => message.text(),
            Message::Tool(message) => message.text(),
            Message::Chat(message) => message.text(),
        }
    }

    /// The message id, if any.
    pub fn id(&self) -> Option<&str> {
        match self {
            Message::System(message) => message.id.as_deref(),
            Message::User(message) => message.id.as_deref(),
            Message::Assistant(message) => message.id.as_deref(),
            Message::Tool(message) => message.id.as_deref(),
            Message::Chat(message) => message.id.as_deref(),
        }
    }

    /// The participant (or tool) name, if any.
    pub fn name(&self) -> Option<&str> {
        match self {
            Message::System(message) => message.name.as_deref(),
            Message::User(message) => message.name.as_deref(),
            Message::Assistant(message) => message.name.as_deref(),
            Message::Tool(message) => message.name.as_deref(),
            Message::Chat(message) => message.name.as_deref(),
        }
    }

    /// The open properties (LangChain's `additional_kwargs`).
    pub fn extra(&self) -> &Map<String, Value> {
        match self {
            Message::System(message) => &message.extra,
            Message::User(message) => &message.extra,
            Message::Assistant(message) => &message.extra,
            Message::Tool(message) => &message.extra,
            Message::Chat(message) => &message.extra,
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&AiMessage> {
        match self {
            Message::Assistant(message) => Some(message),
            _ => None,
        }
    }

    /// The tool message, if this is one.
    pub fn as_tool(&self) -> Option<&ToolMessage> {
        match self {
            Message::Tool(message) => Some(message),
            _ => None,
        }
    }

    /// True for a system message.
    pub fn is_system(&self) -> bool {
        matches!(self, Message::System(_))
    }

    /// True for a user message.
    pub fn is_user(&self) -> bool {
        matches!(self, Message::User(_))
    }

    /// True for an assistant message.
    pub fn is_assistant(&self) -> bool {
        matches!(self, Message::Assistant(_))
    }

    /// True for a tool message.
    pub fn is_tool(&self) -> bool {
        matches!(self, Message::Tool(_))
    }

    /// The tool calls an assistant message asks for (empty for other kinds).
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.as_assistant()
            .into_iter()
            .flat_map(|message| message.tool_calls())
    }

    /// The ids of every call an assistant message asks for, valid or not, and of the actions
    /// it asks the app to carry out ([`ClientAction`](super::ClientAction)): each needs a tool
    /// message in answer.
    pub fn tool_call_ids(&self) -> impl Iterator<Item = &str> {
        self.as_assistant().into_iter().flat_map(|message| {
            message.content.iter().filter_map(|block| match block {
                super::ContentBlock::ToolCall(call) => Some(call.id.as_str()),
                super::ContentBlock::InvalidToolCall(call) => Some(call.id.as_str()),
                other => super::ClientAction::from_block(other).map(|action| action.call_id),
            })
        })
    }
}

impl From<SystemMessage> for Message {
    fn from(message: SystemMessage) -> Self {
        Message::System(message)
    }
}

impl From<UserMessage> for Message {
    fn from(message: UserMessage) -> Self {
        Message::User(message)
    }
}

impl From<AiMessage> for Message {
    fn from(message: AiMessage) -> Self {
        Message::Assistant(message)
    }
}

impl From<ToolMessage> for Message {
    fn from(message: ToolMessage) -> Self {
        Message::Tool(message)
    }
}

impl From<ChatMessage> for Message {
    fn from(message: ChatMessage) -> Self {
        Message::Chat(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ContentBlock, InvalidToolCall};

    #[test]
    fn every_kind_has_a_role_and_text() {
        let messages = [
            (Message::system("be brief"), Role::System),
            (Message::user("hi"), Role::User),
            (Message::assistant("hello"), Role::Assistant),
            (Message::tool("call_1", "18°C"), Role::Tool),
            (
                Message::chat("critic", "meh"),
                Role::Custom("critic".into()),
            ),
        ];
        for (message, role) in &messages {
            assert_eq!(&message.role(), role);
            assert!(!message.text().is_empty());
        }
    }

    #[test]
    fn tool_call_ids_include_invalid_calls() {
        let message = Message::from(AiMessage {
            content: vec![
                ContentBlock::ToolCall(ToolCall {
                    id: "a".into(),
                    name: "f".into(),
                    args: Map::new(),
                    ..ToolCall::default()
                }),
                ContentBlock::InvalidToolCall(InvalidToolCall {
                    id: "b".into(),
                    name: "f".into(),
                    args: "{".into(),
                    error: "EOF".into(),
                    ..InvalidToolCall::default()
                }),
            ],
            ..AiMessage::default()
        });
        assert_eq!(message.tool_call_ids().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(message.tool_calls().count(), 1);
        assert_eq!(Message::user("x").tool_call_ids().count(), 0);
    }

    #[test]
    fn builders_set_the_common_fields() {
        let tool = ToolMessage::error("c1", "timeout")
            .with_name("weather")
            .with_artifact(serde_json::json!({"elapsed_ms": 5000}))
            .with_extra("trace", "t-1");
        assert!(tool.is_error());
        assert_eq!(tool.name.as_deref(), Some("weather"));
        let message = Message::from(tool);
        assert_eq!(message.extra()["trace"], "t-1");
        assert_eq!(message.name(), Some("weather"));
    }
}
