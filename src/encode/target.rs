//! [`Target`]: what an [`Encoder`](super::Encoder) writes — a provider's dialect or a UI stream
//! protocol — with its names (the CLI's and serde's) and its conversions to and from
//! [`Dialect`]. Apart from the encoder, which only dispatches on it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::dialect::Dialect;

/// The dialect to encode into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Target {
    /// OpenAI chat completions: `chat.completion.chunk` events and `data: [DONE]`.
    #[serde(rename = "openai")]
    OpenAiChat,
    /// Anthropic messages: `message_start`, `content_block_*`, `message_delta`, `message_stop`.
    Anthropic,
    /// OpenAI Responses: `response.created`, `response.output_item.*`, … `response.completed`.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Gemini `streamGenerateContent?alt=sse`: one `GenerateContentResponse` per event.
    Gemini,
    /// The Vercel AI SDK's UI message stream (v5+, what `useChat` reads): `start`,
    /// `text-delta`, `tool-input-*`, … `finish`, `data: [DONE]`; its non-streamed form is the
    /// `UIMessage` the stream folds into (choice 0).
    #[serde(rename = "vercel-ui")]
    VercelUi,
    /// AG-UI events (CopilotKit and the agent frameworks): `RUN_STARTED`, `TEXT_MESSAGE_*`,
    /// `REASONING_*`, `TOOL_CALL_*`, … `RUN_FINISHED`; its non-streamed form is a
    /// `MESSAGES_SNAPSHOT` event (choice 0).
    #[serde(rename = "ag-ui")]
    AgUi,
}

impl Target {
    /// The provider targets: a dialect reads them back ([`dialect`](Self::dialect)).
    pub const PROVIDERS: [Target; 4] = [
        Target::OpenAiChat,
        Target::Anthropic,
        Target::OpenAiResponses,
        Target::Gemini,
    ];

    /// Every target: the providers, then the UI stream protocols.
    pub const ALL: [Target; 6] = [
        Target::OpenAiChat,
        Target::Anthropic,
        Target::OpenAiResponses,
        Target::Gemini,
        Target::VercelUi,
        Target::AgUi,
    ];

    /// The dialect that reads this target's stream back; `None` for a UI stream protocol,
    /// which only a browser reads.
    pub fn dialect(self) -> Option<Dialect> {
        match self {
            Target::OpenAiChat => Some(Dialect::OpenAiChat),
            Target::Anthropic => Some(Dialect::Anthropic),
            Target::OpenAiResponses => Some(Dialect::OpenAiResponses),
            Target::Gemini => Some(Dialect::Gemini),
            Target::VercelUi | Target::AgUi => None,
        }
    }

    /// The name the CLI and serde use: `openai`, `anthropic`, `openai-responses`, `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Target::OpenAiChat => "openai",
            Target::Anthropic => "anthropic",
            Target::OpenAiResponses => "openai-responses",
            Target::Gemini => "gemini",
            Target::VercelUi => "vercel-ui",
            Target::AgUi => "ag-ui",
        }
    }
}

/// A provider target is read back by its dialect; a UI stream protocol has none, so the
/// target is given back. The three provider enums differ because their sets do: [`Dialect`]
/// is what is read (seven providers), `Target` what is written (four providers and the UI
/// protocols), [`WireFormat`](crate::wire::WireFormat) a request format (four providers and
/// LangChain's dicts); each converts to the others where the sets meet.
impl TryFrom<Target> for Dialect {
    type Error = Target;

    fn try_from(target: Target) -> Result<Self, Target> {
        target.dialect().ok_or(target)
    }
}

/// The target that writes what this dialect reads; a dialect deltafold does not write
/// (Ollama, Bedrock, Cohere) is given back.
impl TryFrom<Dialect> for Target {
    type Error = Dialect;

    fn try_from(dialect: Dialect) -> Result<Self, Dialect> {
        Target::PROVIDERS
            .into_iter()
            .find(|target| target.dialect() == Some(dialect))
            .ok_or(dialect)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Target::ALL
            .into_iter()
            .find(|target| target.name() == name)
            .ok_or_else(|| {
                format!(
                    "unknown target `{name}`: openai, anthropic, openai-responses, gemini, \
                     vercel-ui or ag-ui"
                )
            })
    }
}
