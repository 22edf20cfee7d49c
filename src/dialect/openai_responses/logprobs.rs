//! The log probabilities of Responses text deltas (`response.output_text.delta.logprobs`, a list
//! of `{token, logprob, bytes, top_logprobs}`), kept where a chat completion's are: appended to
//! `response_metadata.logprobs.content` in the order the deltas came, the shape LangChain's
//! OpenAI integration keeps for chat completions (langchain-openai keeps none for Responses).

use serde_json::value::RawValue;

use super::CHOICE;
use crate::delta::{Delta, DeltaSink};
use crate::error::Error;

/// The key of the token list, as in a chat completion's `logprobs`.
const TOKENS: &str = "content";

/// Appends one delta's token list (nothing for `null` or an empty list). The list is wrapped
/// as `{"content": …}` once, a copy of its text: linear in the stream.
pub(super) fn token_logprobs(logprobs: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let list = logprobs.get().trim_ascii();
    if !list.starts_with('[') || list[1..].trim_ascii_start().starts_with(']') {
        return Ok(());
    }
    let wrapped = format!("{{\"{TOKENS}\":{list}}}");
    // The payload's parse checked the list: wrapped, it is JSON too.
    let Ok(wrapped) = RawValue::from_string(wrapped) else {
        return Ok(());
    };
    sink.apply(Delta::Logprobs {
        choice: CHOICE,
        logprobs: &wrapped,
    })
}
