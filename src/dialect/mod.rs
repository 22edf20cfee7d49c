//! Dialects: each turns one provider's payloads into neutral deltas. The assembler behind them
//! is shared, so a provider is a decoder and nothing more.
//!
//! The dialect of a stream is detected from its first payload (and the framing: an NDJSON stream
//! is Ollama's native API unless its payloads say otherwise) unless
//! [`Options::dialect`](crate::Options::dialect) names it. A payload of another dialect later in
//! the stream is a [`Malformed`](crate::ErrorKind::Malformed) error that names both.
//!
//! ```
//! use deltafold::{Assembler, Dialect};
//!
//! let body = concat!(
//!     "event: message_start\n",
//!     "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-sonnet-4-5\",",
//!     "\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":90,\"output_tokens\":1}}}\n\n",
//!     "event: content_block_start\n",
//!     "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
//!     "event: content_block_delta\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi!\"}}\n\n",
//!     "event: message_delta\n",
//!     "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n",
//!     "event: message_stop\n",
//!     "data: {\"type\":\"message_stop\"}\n\n",
//! );
//! let mut assembler = Assembler::new();
//! assembler.feed(body.as_bytes())?;
//! assert_eq!(assembler.dialect(), Some(Dialect::Anthropic));
//! let message = assembler.finish()?.into_message();
//! assert_eq!(message.text(), "Hi!");
//! assert_eq!(message.response_metadata.finish_reason, "end_turn");
//! // Anthropic's input tokens leave cache reads out; deltafold counts them in.
//! assert_eq!(message.usage.unwrap().input_tokens, 100);
//! # Ok::<(), deltafold::Error>(())
//! ```

mod anthropic;
mod cursor;
mod decoder;
mod detect;
mod gemini;
mod lenient;
mod ollama;
mod openai_chat;
mod openai_responses;
#[cfg(test)]
mod test_support;
mod text;

use std::fmt;
use std::str::FromStr;

pub(crate) use decoder::Decoder;

/// The wire format of a stream.
///
/// Parses from the names the CLI's `--dialect` takes (see [`name`](Self::name)), with a few
/// aliases:
///
/// ```
/// use deltafold::Dialect;
///
/// assert_eq!("anthropic".parse::<Dialect>()?, Dialect::Anthropic);
/// assert_eq!("responses".parse::<Dialect>()?, Dialect::OpenAiResponses);
/// assert_eq!(Dialect::Gemini.to_string(), "gemini");
/// assert!("cohere".parse::<Dialect>().is_err());
/// # Ok::<(), deltafold::dialect::ParseDialectError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions (`chat.completion.chunk`) and its compatibles: Azure, DeepSeek,
    /// OpenRouter, Groq, Mistral, vLLM, Ollama's `/v1`, Gemini's compatibility endpoint…
    #[default]
    OpenAiChat,
    /// Anthropic Messages (`message_start`, `content_block_delta`, … events).
    Anthropic,
    /// OpenAI Responses (`response.*` events).
    OpenAiResponses,
    /// Gemini `streamGenerateContent?alt=sse` (Google AI Studio and Vertex AI).
    Gemini,
    /// Ollama's native `/api/chat` (newline-delimited JSON).
    Ollama,
}

impl Dialect {
    /// Every dialect, in the order the CLI lists them.
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenAiChat,
        Dialect::Anthropic,
        Dialect::OpenAiResponses,
        Dialect::Gemini,
        Dialect::Ollama,
    ];

    /// The dialect's name, as `FromStr` and `Display` spell it: `openai`, `anthropic`,
    /// `openai-responses`, `gemini`, `ollama`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Gemini => "gemini",
            Dialect::Ollama => "ollama",
        }
    }

    /// The name recorded as `response_metadata.model_provider`, as LangChain names providers.
    pub fn provider_name(self) -> &'static str {
        match self {
            Dialect::OpenAiChat | Dialect::OpenAiResponses => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "google_genai",
            Dialect::Ollama => "ollama",
        }
    }

    /// What marks the end of a complete stream, for error messages.
    pub(crate) fn end_marker(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "[DONE]",
            Dialect::Anthropic => "message_stop",
            Dialect::OpenAiResponses => "response.completed",
            Dialect::Gemini => "a finishReason",
            Dialect::Ollama => "\"done\": true",
        }
    }

    /// A human description, for error messages.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "OpenAI chat-completion",
            Dialect::Anthropic => "Anthropic Messages",
            Dialect::OpenAiResponses => "OpenAI Responses",
            Dialect::Gemini => "Gemini",
            Dialect::Ollama => "Ollama native",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A payload the dialect cannot read, quoted in the error.
fn malformed_payload(error: serde_json::Error, data: &str) -> crate::Error {
    crate::Error::new(
        crate::ErrorKind::Malformed,
        format!("{error} in payload {}", crate::error::snippet(data)),
    )
    .with_source(error)
}

impl FromStr for Dialect {
    type Err = ParseDialectError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let dialect = match name.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "openai" | "openai-chat" | "chat" | "chat-completions" => Dialect::OpenAiChat,
            "anthropic" | "claude" => Dialect::Anthropic,
            "openai-responses" | "responses" => Dialect::OpenAiResponses,
            "gemini" | "google" | "google-genai" | "vertex" => Dialect::Gemini,
            "ollama" | "ollama-native" => Dialect::Ollama,
            _ => return Err(ParseDialectError(name.to_owned())),
        };
        Ok(dialect)
    }
}

/// A dialect name that [`Dialect`] does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDialectError(String);

impl fmt::Display for ParseDialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown dialect {:?} (expected one of: ", self.0)?;
        for (position, dialect) in Dialect::ALL.iter().enumerate() {
            if position > 0 {
                f.write_str(", ")?;
            }
            f.write_str(dialect.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for ParseDialectError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        for dialect in Dialect::ALL {
            assert_eq!(dialect.name().parse::<Dialect>(), Ok(dialect));
            assert_eq!(dialect.to_string().parse::<Dialect>(), Ok(dialect));
        }
        assert_eq!(" OpenAI_Responses ".parse(), Ok(Dialect::OpenAiResponses));
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let error = "bedrock".parse::<Dialect>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown dialect \"bedrock\" (expected one of: openai, anthropic, openai-responses, \
             gemini, ollama)"
        );
    }
}
