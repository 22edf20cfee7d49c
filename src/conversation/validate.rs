//! The rules a conversation must keep for the providers to accept it, and the error naming the
//! message that breaks one.

use std::collections::HashMap;

use crate::message::{Content, ContentBlock, Message};
use crate::wire::WireFormat;

/// Why a message cannot join a conversation: each breaks a rule the providers enforce, so the
/// request would be refused anyway — this says which message and why before it is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConversationError {
    /// A tool message whose `tool_call_id` is not a call of the assistant message before it
    /// (or that follows no assistant message at all).
    #[error("tool message {index} answers call {tool_call_id:?}, which the assistant message before it did not make")]
    UnknownToolCall {
        /// The tool message's position.
        index: usize,
        /// The id it quotes.
        tool_call_id: String,
    },
    /// A second tool message for the same call.
    #[error("tool message {index} answers call {tool_call_id:?}, which is already answered")]
    DuplicateToolResult {
        /// The tool message's position.
        index: usize,
        /// The id it quotes.
        tool_call_id: String,
    },
    /// A message other than a tool message while calls of the assistant message before it are
    /// still unanswered.
    #[error("message {index} comes while tool calls {tool_call_ids:?} are unanswered")]
    UnansweredToolCalls {
        /// The position of the message that came too early.
        index: usize,
        /// The calls still waiting for an answer, in order.
        tool_call_ids: Vec<String>,
    },
    /// An approval answer quoting a request no assistant message of the conversation made.
    #[error("message {index} answers approval request {approval_request_id:?}, which no assistant message made")]
    UnknownApprovalRequest {
        /// The answering message's position.
        index: usize,
        /// The request id it quotes.
        approval_request_id: String,
    },
    /// A system message after the first user or assistant message, in a format that takes
    /// system instructions only at the start.
    #[error("message {index} is a system message after the conversation started, which {format} does not allow")]
    MisplacedSystemMessage {
        /// The system message's position.
        index: usize,
        /// The format that forbids it.
        format: WireFormat,
    },
}

/// What the rules need to know about the messages so far: the latest assistant message's calls
/// and which are answered.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct CallTracker {
    /// Calls of the latest assistant message, with whether each is answered; empty once any
    /// other message than a tool message follows it.
    calls: Vec<(String, bool)>,
    /// True once a message other than a system message arrived.
    started: bool,
    /// Ids of the approval requests made so far, with whether each is answered (one lookup per
    /// answer).
    approvals: HashMap<String, bool>,
}

impl CallTracker {
    /// Whether `message` may come next, at position `index`.
    pub(crate) fn check(
        &self,
        index: usize,
        message: &Message,
        format: Option<WireFormat>,
    ) -> Result<(), ConversationError> {
        if let Message::Tool(tool) = message {
            let id = &tool.tool_call_id;
            let call = self.calls.iter().find(|(call, _)| call == id);
            return match call {
                None => Err(ConversationError::UnknownToolCall {
                    index,
                    tool_call_id: id.clone(),
                }),
                Some((_, true)) => Err(ConversationError::DuplicateToolResult {
                    index,
                    tool_call_id: id.clone(),
                }),
                Some((_, false)) => Ok(()),
            };
        }
        for id in approval_answers(message) {
            if !self.approvals.contains_key(id) {
                return Err(ConversationError::UnknownApprovalRequest {
                    index,
                    approval_request_id: id.to_owned(),
                });
            }
        }
        let pending: Vec<String> = self.pending().map(str::to_owned).collect();
        if !pending.is_empty() {
            return Err(ConversationError::UnansweredToolCalls {
                index,
                tool_call_ids: pending,
            });
        }
        match format {
            Some(format)
                if message.is_system() && self.started && !format.allows_late_system_messages() =>
            {
                Err(ConversationError::MisplacedSystemMessage { index, format })
            }
            _ => Ok(()),
        }
    }

    /// Takes `message` into account (it passed [`check`](Self::check), or is trusted).
    pub(crate) fn record(&mut self, message: &Message) {
        for id in approval_answers(message) {
            if let Some(answered) = self.approvals.get_mut(id) {
                *answered = true;
            }
        }
        if let Message::Assistant(assistant) = message {
            for block in &assistant.content {
                if let ContentBlock::ToolApprovalRequest(request) = block {
                    self.approvals.insert(request.id.clone(), false);
                }
            }
        }
        match message {
            Message::Tool(tool) => {
                if let Some((_, answered)) = self
                    .calls
                    .iter_mut()
                    .find(|(call, _)| *call == tool.tool_call_id)
                {
                    *answered = true;
                }
            }
            Message::Assistant(_) => {
                self.calls = message
                    .tool_call_ids()
                    .map(|id| (id.to_owned(), false))
                    .collect();
                self.started = true;
            }
            other => {
                self.calls.clear();
                self.started |= !other.is_system();
            }
        }
    }

    /// True when an answer quotes the approval request `id`.
    pub(crate) fn is_answered(&self, id: &str) -> bool {
        self.approvals.get(id).copied().unwrap_or(false)
    }

    /// The latest assistant message's calls that no tool message answered yet.
    pub(crate) fn pending(&self) -> impl Iterator<Item = &str> {
        self.calls
            .iter()
            .filter(|(_, answered)| !answered)
            .map(|(id, _)| id.as_str())
    }
}

/// The approval requests a user message answers.
fn approval_answers(message: &Message) -> impl Iterator<Item = &str> {
    let blocks: &[ContentBlock] = match message {
        Message::User(user) => match &user.content {
            Content::Blocks(blocks) => blocks,
            Content::Text(_) => &[],
        },
        _ => &[],
    };
    blocks.iter().filter_map(|block| match block {
        ContentBlock::ToolApprovalResponse(answer) => Some(answer.approval_request_id.as_str()),
        _ => None,
    })
}
