//! `ResponseMetadata`: what the provider said about a response besides its content.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{FinishReason, Logprobs};

/// What the provider said about the response besides its content, in LangChain's
/// `response_metadata` shape. Every top-level field the provider sent that has no field here is
/// kept in [`extra`](Self::extra), so nothing is silently dropped.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResponseMetadata {
    /// Why the model stopped; empty when the stream never said.
    #[serde(default, skip_serializing_if = "FinishReason::is_none")]
    pub finish_reason: FinishReason,
    /// The model that answered, as the provider names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// The provider's response id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Creation time, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<i64>,
    /// The backend configuration fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_fingerprint: Option<String>,
    /// The service tier that served the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Which wire dialect produced the message (`openai`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_provider: Option<String>,
    /// Log probabilities, as `{"content": [...], "refusal": [...]}` with every streamed entry
    /// appended in order, held as JSON text (a stream of millions of entries held as parsed
    /// values would cost tens of times its size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Logprobs>,
    /// Set when the message is not the whole answer (the stream was cut or failed), saying why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    /// Problems that were tolerated in lenient mode (a skipped malformed event, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Every other field the provider sent (OpenRouter's `provider` and `native_finish_reason`,
    /// Azure's content filter results…); the first non-null value of each wins. A field sent
    /// beside the choices is on the first choice's message alone, as the provider's raw usage
    /// is; a field of a choice is on that choice's message.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
