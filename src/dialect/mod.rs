//! Dialects: each turns one provider's payloads into neutral deltas. The assembler behind them
//! is shared, so a provider is a decoder and nothing more.

mod openai_chat;
mod text;

use crate::assemble::delta::DeltaSink;
use crate::sse::Frame;
use crate::Error;

/// The wire format of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions (`chat.completion.chunk`) and its compatibles: Azure, DeepSeek,
    /// OpenRouter, Groq, Mistral, vLLM, Ollama's `/v1`, Gemini's compatibility endpoint…
    #[default]
    OpenAiChat,
}

impl Dialect {
    /// The name recorded as `response_metadata.model_provider`.
    pub fn provider_name(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai",
        }
    }

    /// Decodes one event into deltas.
    pub(crate) fn decode(self, frame: &Frame<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
        match self {
            Dialect::OpenAiChat => openai_chat::decode(frame, sink),
        }
    }
}
