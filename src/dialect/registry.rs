//! The registry of dialects: the [`Dialect`] enum, the names the CLI and `FromStr` know them by,
//! and the words error messages use for each.

use std::fmt;
use std::str::FromStr;

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
/// assert_eq!("cohere".parse::<Dialect>()?, Dialect::Cohere);
/// assert!("titan".parse::<Dialect>().is_err());
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
    /// AWS Bedrock `ConverseStream`, and `InvokeModelWithResponseStream` for Anthropic models,
    /// over the binary `application/vnd.amazon.eventstream` framing.
    Bedrock,
    /// Cohere v2 chat (`message-start`, `content-delta`, `tool-call-*`, … events).
    Cohere,
}

impl Dialect {
    /// Every dialect, in the order the CLI lists them.
    pub const ALL: [Dialect; 7] = [
        Dialect::OpenAiChat,
        Dialect::Anthropic,
        Dialect::OpenAiResponses,
        Dialect::Gemini,
        Dialect::Ollama,
        Dialect::Bedrock,
        Dialect::Cohere,
    ];

    /// The dialect's name, as `FromStr` and `Display` spell it: `openai`, `anthropic`,
    /// `openai-responses`, `gemini`, `ollama`, `bedrock`, `cohere`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Gemini => "gemini",
            Dialect::Ollama => "ollama",
            Dialect::Bedrock => "bedrock",
            Dialect::Cohere => "cohere",
        }
    }

    /// The name recorded as `response_metadata.model_provider`, as LangChain names providers.
    pub fn provider_name(self) -> &'static str {
        match self {
            Dialect::OpenAiChat | Dialect::OpenAiResponses => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "google_genai",
            Dialect::Ollama => "ollama",
            Dialect::Bedrock => "bedrock_converse",
            Dialect::Cohere => "cohere",
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
            Dialect::Bedrock => "messageStop",
            Dialect::Cohere => "message-end",
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
            Dialect::Bedrock => "AWS Bedrock",
            Dialect::Cohere => "Cohere v2 chat",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
            "bedrock" | "aws-bedrock" | "bedrock-converse" | "converse" => Dialect::Bedrock,
            "cohere" | "cohere-v2" => Dialect::Cohere,
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
        let error = "titan".parse::<Dialect>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown dialect \"titan\" (expected one of: openai, anthropic, openai-responses, \
             gemini, ollama, bedrock, cohere)"
        );
    }
}
