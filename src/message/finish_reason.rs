//! `FinishReason`: why the model stopped, kept as the provider spelled it.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Why the model stopped. An open string: providers send values beyond OpenAI's (`end_turn`,
/// `MAX_TOKENS`, `eos`…) and each is kept as sent. The empty string means "not reported".
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FinishReason(Cow<'static, str>);

impl FinishReason {
    /// The model finished its answer.
    pub const STOP: FinishReason = FinishReason(Cow::Borrowed("stop"));
    /// The output hit the token limit.
    pub const LENGTH: FinishReason = FinishReason(Cow::Borrowed("length"));
    /// The model asked for tool calls.
    pub const TOOL_CALLS: FinishReason = FinishReason(Cow::Borrowed("tool_calls"));
    /// The provider's content filter stopped the answer.
    pub const CONTENT_FILTER: FinishReason = FinishReason(Cow::Borrowed("content_filter"));
    /// No reason reported (yet).
    pub const NONE: FinishReason = FinishReason(Cow::Borrowed(""));

    /// A reason as the provider spelled it.
    pub fn new(reason: impl Into<String>) -> Self {
        FinishReason(Cow::Owned(reason.into()))
    }

    /// The reason as sent; `""` when none was reported.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when no reason has been reported.
    pub fn is_none(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FinishReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for FinishReason {
    fn from(reason: &str) -> Self {
        FinishReason::new(reason)
    }
}

impl PartialEq<str> for FinishReason {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for FinishReason {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}
