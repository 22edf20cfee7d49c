//! Gemini's `extra_content: {google: {thought_signature}}` (its OpenAI-compatible endpoint). On a
//! tool call it is the call's signature (`ToolCall::SIGNATURE`, where the Gemini dialect keeps a
//! `functionCall` part's), which Gemini 3 needs back on the next turn; anything else there is the
//! call's `ToolCall::EXTRA_CONTENT` extra. On a delta (a text answer), its signature is the
//! choice's reasoning signature, as the Gemini dialect keeps a text part's; anything else there
//! is kept in the choice's metadata as `extra_content`.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::delta::{Delta, DeltaSink};
use crate::error::Error;
use crate::message::{extras_from_extra_content, ToolCall};

/// Puts a call's `extra_content` on the call the fragment before it went to.
pub(super) fn on_tool_call(
    choice: u32,
    raw: &RawValue,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
    for (name, value) in extras_from_extra_content(value) {
        sink.apply(Delta::ToolCallExtra {
            choice,
            index: None,
            name: &name,
            value,
        })?;
    }
    Ok(())
}

/// A delta's `extra_content`: Gemini's signature over the turn as the choice's reasoning
/// signature; the whole object in the choice's metadata when it holds more.
pub(super) fn on_delta(
    choice: u32,
    raw: &RawValue,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
    let mut extras = extras_from_extra_content(value);
    if let Some(Value::String(signature)) = extras.remove(ToolCall::SIGNATURE) {
        sink.apply(Delta::ReasoningSignature {
            choice,
            key: None,
            signature: &signature,
        })?;
    }
    if !extras.is_empty() {
        sink.apply(Delta::Extra {
            choice: Some(choice),
            key: ToolCall::EXTRA_CONTENT,
            value: raw,
        })?;
    }
    Ok(())
}
