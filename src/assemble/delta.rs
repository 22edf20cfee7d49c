//! The neutral deltas every dialect decodes its payloads into: the one vocabulary the assembler
//! understands, so that adding a provider never touches the state machine.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::ProviderError;
use crate::message::UsageReport;

/// One piece of a streamed answer, borrowed from the payload it came from.
#[derive(Debug)]
pub(crate) enum Delta<'a> {
    /// Response-level fields; the first non-empty value of each wins.
    Metadata(MetadataDelta<'a>),
    /// A provider field with no place in the model, kept in `extra` (first non-null wins), for a
    /// choice or (when `choice` is `None`) for the whole response.
    Extra {
        choice: Option<u32>,
        key: &'a str,
        value: &'a RawValue,
    },
    /// A choice exists, even if this payload brings nothing else for it.
    Choice {
        choice: u32,
    },
    Text {
        choice: u32,
        text: &'a str,
    },
    Reasoning {
        choice: u32,
        text: &'a str,
    },
    /// OpenRouter's structured reasoning entries (signatures, encrypted parts), merged by index.
    ReasoningDetails {
        choice: u32,
        details: Vec<Value>,
    },
    Refusal {
        choice: u32,
        text: &'a str,
    },
    /// Citations and other annotations on the choice's text, as sent.
    Annotations {
        choice: u32,
        annotations: Vec<Value>,
    },
    /// Content the model produced that has no standard block.
    NonStandard {
        choice: u32,
        value: Value,
    },
    ToolCall(ToolCallDelta<'a>),
    Logprobs {
        choice: u32,
        logprobs: &'a RawValue,
    },
    Usage(UsageReport),
    Finish {
        choice: u32,
        reason: &'a str,
    },
    Error(ProviderError),
    Done,
}

#[derive(Debug, Default)]
pub(crate) struct MetadataDelta<'a> {
    pub id: Option<&'a str>,
    pub model: Option<&'a str>,
    pub created: Option<i64>,
    pub system_fingerprint: Option<&'a str>,
    pub service_tier: Option<&'a str>,
}

/// A fragment of a tool call: any of its fields may be missing.
#[derive(Debug)]
pub(crate) struct ToolCallDelta<'a> {
    pub choice: u32,
    pub index: Option<u32>,
    pub id: Option<&'a str>,
    pub name: Option<&'a str>,
    pub arguments: &'a str,
}

/// Where a dialect sends the deltas it decodes.
pub(crate) trait DeltaSink {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), crate::Error>;
}
