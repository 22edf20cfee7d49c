//! The serde types of a Gemini `GenerateContentResponse`, borrowed from the payload; fields
//! the dialect does not need read leniently, so that a change of their type never fails the
//! chunk.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::dialect::lenient::LenientText;

/// One event: a whole `GenerateContentResponse`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Chunk<'a> {
    #[serde(borrow, default)]
    pub(super) candidates: Option<Vec<Candidate<'a>>>,
    #[serde(borrow, default)]
    pub(super) usage_metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) model_version: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) response_id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) prompt_feedback: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) error: Option<&'a RawValue>,
}

/// One candidate: the new parts of one choice, and how it finished.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Candidate<'a> {
    #[serde(default)]
    pub(super) index: Option<u32>,
    #[serde(borrow, default)]
    pub(super) content: Option<CandidateContent<'a>>,
    #[serde(borrow, default)]
    pub(super) finish_reason: LenientText<'a>,
    #[serde(default)]
    pub(super) citation_metadata: Option<CitationMetadata>,
    #[serde(borrow, default)]
    pub(super) finish_message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) grounding_metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) safety_ratings: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) url_context_metadata: Option<&'a RawValue>,
}

/// A candidate's `content`, whose parts are read one by one (an odd part is kept whole).
#[derive(Deserialize)]
pub(super) struct CandidateContent<'a> {
    #[serde(borrow, default)]
    pub(super) parts: Option<Vec<&'a RawValue>>,
}

/// One part: text (answer or reasoning), a signature, a whole function call, or code that ran
/// and its result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Part<'a> {
    #[serde(borrow, default)]
    pub(super) text: LenientText<'a>,
    #[serde(default)]
    pub(super) thought: Option<bool>,
    #[serde(borrow, default)]
    pub(super) thought_signature: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) function_call: Option<FunctionCall<'a>>,
    #[serde(borrow, default)]
    pub(super) executable_code: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) code_execution_result: Option<&'a RawValue>,
    /// A built-in tool Gemini 3 ran (file search…), and what it gave back.
    #[serde(borrow, default)]
    pub(super) tool_call: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) tool_response: Option<&'a RawValue>,
    /// Media the model made (an image), read from the raw part.
    #[serde(borrow, default)]
    pub(super) inline_data: Option<&'a RawValue>,
}

/// A `functionCall` part: whole (`name` and `args`), or with Gemini 3 one piece of a streamed
/// call (`willContinue`, `partialArgs`), closed by a part without `willContinue`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct FunctionCall<'a> {
    #[serde(borrow, default)]
    pub(super) id: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) name: LenientText<'a>,
    #[serde(borrow, default)]
    pub(super) args: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) will_continue: Option<bool>,
    #[serde(borrow, default)]
    pub(super) partial_args: Option<Vec<PartialArg<'a>>>,
}

/// One path-addressed piece of a streamed call's arguments; exactly one value member is set.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PartialArg<'a> {
    #[serde(borrow, default)]
    pub(super) json_path: LenientText<'a>,
    /// Raw, so the escaped text goes into the arguments without a decode and a re-encode.
    #[serde(borrow, default)]
    pub(super) string_value: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) number_value: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) bool_value: Option<&'a RawValue>,
    /// Present in any form (`"NULL_VALUE"`, `{}`, `null`): the value is `null`.
    #[serde(default, deserialize_with = "present")]
    pub(super) null_value: Option<()>,
    #[serde(default)]
    pub(super) will_continue: Option<bool>,
}

/// AI Studio names the list `citationSources`, Vertex AI `citations`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CitationMetadata {
    #[serde(default, alias = "citations")]
    pub(super) citation_sources: Vec<Value>,
}

/// `promptFeedback`, read for its `blockReason`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PromptFeedback<'a> {
    #[serde(borrow, default)]
    pub(super) block_reason: LenientText<'a>,
}

/// `Some(())` for a member that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<()>, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| Some(()))
}
