//! `UsageMetadata`: token counts in LangChain's `usage_metadata` shape. How a provider's reports
//! fold into it is the delta contract's rule (`delta::usage`).

use serde::{Deserialize, Serialize};

use super::ProviderUsage;

/// Token counts in LangChain's `usage_metadata` shape, plus the provider's own usage object.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsageMetadata {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Generated tokens, reasoning included.
    pub output_tokens: u64,
    /// As reported, or input + output when the provider sent no total.
    pub total_tokens: u64,
    /// Where the input tokens came from, when the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_token_details: Option<InputTokenDetails>,
    /// What the output tokens were spent on, when the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_token_details: Option<OutputTokenDetails>,
    /// The provider's usage object, merged field by field across reports, so no field is lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<ProviderUsage>,
}

/// Breakdown of [`UsageMetadata::input_tokens`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct InputTokenDetails {
    /// Audio input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<u64>,
    /// Tokens read from the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<u64>,
    /// Tokens written to the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation: Option<u64>,
}

/// Breakdown of [`UsageMetadata::output_tokens`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct OutputTokenDetails {
    /// Audio output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<u64>,
    /// Tokens spent reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
}

impl UsageMetadata {
    /// The counts alone, without the provider's raw object (which stays on each message).
    pub(crate) fn counts(&self) -> UsageMetadata {
        UsageMetadata {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            total_tokens: self.total_tokens,
            input_token_details: self.input_token_details,
            output_token_details: self.output_token_details,
            raw: None,
        }
    }
}

impl InputTokenDetails {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl OutputTokenDetails {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}
