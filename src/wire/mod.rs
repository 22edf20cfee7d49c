//! Request formats: a conversation as each provider's API (or LangChain) spells it, both ways.
//!
//! - [`openai_chat`]: the `messages` array of an OpenAI Chat Completions request;
//! - [`anthropic`]: the `system` and `messages` of an Anthropic Messages request;
//! - [`openai_responses`]: the `input` items of an OpenAI Responses request;
//! - [`gemini`]: the `systemInstruction` and `contents` of a Gemini `generateContent` request;
//! - [`langchain`]: LangChain's `messages_to_dict` / `messages_from_dict` format.
//!
//! [`request`] translates whole requests (tools, sampling, reasoning, output format…);
//! [`error_body`] writes an upstream provider's error as a format's error body.
//!
//! Each converts losslessly where the format can carry a field; what it cannot carry is either
//! an error ([`WireError::Unsupported`]: an image by file id for OpenAI, a video for Anthropic…)
//! or, where leaving it out is what the provider expects, documented on the function (reasoning
//! is not sent to OpenAI; reasoning without a signature is not sent to Anthropic).

use std::fmt;

use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::message::ContentBlock;

pub mod anthropic;
pub mod error_body;
pub mod gemini;
pub mod langchain;
pub mod openai_chat;
pub mod openai_responses;
pub mod request;

/// A wire format, for errors and for format-specific validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WireFormat {
    /// OpenAI Chat Completions request messages.
    OpenAiChat,
    /// Anthropic Messages request.
    Anthropic,
    /// OpenAI Responses request `input` items.
    OpenAiResponses,
    /// Gemini `generateContent` request `systemInstruction` and `contents`.
    Gemini,
    /// LangChain's message dicts.
    LangChain,
}

/// The request format of a provider whose stream this dialect reads; a dialect with no request
/// format here (Ollama, Bedrock, Cohere) is given back. See [`Target`](crate::encode::Target)'s
/// conversions for why the three provider enums stay apart.
impl TryFrom<Dialect> for WireFormat {
    type Error = Dialect;

    fn try_from(dialect: Dialect) -> Result<Self, Dialect> {
        match dialect {
            Dialect::OpenAiChat => Ok(WireFormat::OpenAiChat),
            Dialect::Anthropic => Ok(WireFormat::Anthropic),
            Dialect::OpenAiResponses => Ok(WireFormat::OpenAiResponses),
            Dialect::Gemini => Ok(WireFormat::Gemini),
            other => Err(other),
        }
    }
}

/// The dialect of the provider whose request format this is; LangChain's dicts, which no
/// provider streams, are given back.
impl TryFrom<WireFormat> for Dialect {
    type Error = WireFormat;

    fn try_from(format: WireFormat) -> Result<Self, WireFormat> {
        match format {
            WireFormat::OpenAiChat => Ok(Dialect::OpenAiChat),
            WireFormat::Anthropic => Ok(Dialect::Anthropic),
            WireFormat::OpenAiResponses => Ok(Dialect::OpenAiResponses),
            WireFormat::Gemini => Ok(Dialect::Gemini),
            other => Err(other),
        }
    }
}

impl WireFormat {
    /// True when the format accepts a system message after the first user or assistant turn.
    /// Anthropic takes system instructions only as the request's `system` field, Gemini only as
    /// its `systemInstruction`.
    pub fn allows_late_system_messages(self) -> bool {
        !matches!(self, WireFormat::Anthropic | WireFormat::Gemini)
    }
}

impl fmt::Display for WireFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WireFormat::OpenAiChat => "OpenAI Chat Completions",
            WireFormat::Anthropic => "Anthropic Messages",
            WireFormat::OpenAiResponses => "OpenAI Responses",
            WireFormat::Gemini => "Gemini",
            WireFormat::LangChain => "LangChain",
        })
    }
}

/// Why a conversation could not be written in, or read from, a wire format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// A message holds something the format cannot carry.
    #[error("{format} cannot carry {what} (message {index})")]
    Unsupported {
        /// The target format.
        format: WireFormat,
        /// The message's position in the conversation.
        index: usize,
        /// What could not be carried.
        what: String,
    },
    /// A message read from the wire is not what the format defines.
    #[error("message {index} is not a valid {format} message: {reason}")]
    Malformed {
        /// The source format.
        format: WireFormat,
        /// The message's position in the input.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A request setting (not a message) the target format cannot carry: see [`request`].
    #[error("{format} requests cannot carry {what}")]
    UnsupportedSetting {
        /// The target format.
        format: WireFormat,
        /// What could not be carried.
        what: String,
    },
    /// A request's setting read from the wire is not what the format defines.
    #[error("not a valid {format} request: {reason}")]
    MalformedRequest {
        /// The source format.
        format: WireFormat,
        /// What is wrong with it.
        reason: String,
    },
    /// A system message after the first turn, in a format that takes system instructions only
    /// at the start.
    #[error("message {index} is a system message after the conversation started, which {format} does not allow")]
    MisplacedSystem {
        /// The target format.
        format: WireFormat,
        /// The system message's position in the conversation.
        index: usize,
    },
}

/// Builds [`WireError`]s for one message of one format.
#[derive(Clone, Copy)]
pub(crate) struct At {
    pub format: WireFormat,
    pub index: usize,
}

impl At {
    pub fn unsupported(self, what: impl Into<String>) -> WireError {
        WireError::Unsupported {
            format: self.format,
            index: self.index,
            what: what.into(),
        }
    }

    pub fn malformed(self, reason: impl Into<String>) -> WireError {
        WireError::Malformed {
            format: self.format,
            index: self.index,
            reason: reason.into(),
        }
    }
}

/// A string field of a wire object; `None` when absent or null, an error when another type.
pub(crate) fn optional_string(
    object: &Map<String, Value>,
    key: &str,
    at: At,
) -> Result<Option<String>, WireError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(at.malformed(format!("`{key}` is {other}, not a string"))),
    }
}

/// A required string field of a wire object.
pub(crate) fn required_string(
    object: &Map<String, Value>,
    key: &str,
    at: At,
) -> Result<String, WireError> {
    optional_string(object, key, at)?.ok_or_else(|| at.malformed(format!("`{key}` is missing")))
}

/// The value as a JSON object, or a malformed-message error naming `what`.
pub(crate) fn as_object<'a>(
    value: &'a Value,
    what: &str,
    at: At,
) -> Result<&'a Map<String, Value>, WireError> {
    value
        .as_object()
        .ok_or_else(|| at.malformed(format!("{what} is {value}, not an object")))
}

/// The fields of `object` other than `known`, for a message's or block's `extra`.
pub(crate) fn other_fields(object: &Map<String, Value>, known: &[&str]) -> Map<String, Value> {
    object
        .iter()
        .filter(|(key, _)| !known.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// The name of a block kind, for errors.
pub(crate) fn block_name(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text { .. } => "text",
        ContentBlock::Reasoning { .. } => "reasoning",
        ContentBlock::Refusal { .. } => "a refusal",
        ContentBlock::ToolCall(_) => "a tool call",
        ContentBlock::InvalidToolCall(_) => "an invalid tool call",
        ContentBlock::Image(_) => "an image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::Video(_) => "a video",
        ContentBlock::File(_) => "a file",
        ContentBlock::PlainText(_) => "plain-text data",
        ContentBlock::ServerToolCall(_) => "a server-side tool call",
        ContentBlock::ServerToolResult(_) => "a server-side tool result",
        ContentBlock::ToolApprovalRequest(_) => "a tool approval request",
        ContentBlock::ToolApprovalResponse(_) => "a tool approval response",
        _ => "a non-standard block",
    }
}
