//! Whole requests, both ways: the conversation and every setting a gateway must carry from one
//! provider's request to another's.
//!
//! ```
//! use deltafold::wire::request::{anthropic, openai_chat};
//!
//! let incoming = serde_json::json!({
//!     "model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true,
//!     "system": "Be brief.",
//!     "messages": [{"role": "user", "content": "Weather in Paris?"}],
//!     "tools": [{"name": "weather", "description": "Current weather",
//!                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
//!     "tool_choice": {"type": "any"},
//! });
//! let mut request = anthropic::decode(&incoming)?;
//! request.model = Some("gpt-4.1".into());
//! let outgoing = openai_chat::encode(&request)?;
//! assert_eq!(outgoing["max_completion_tokens"], 1024);
//! assert_eq!(outgoing["tool_choice"], "required");
//! assert_eq!(outgoing["tools"][0]["function"]["parameters"]["properties"]["city"]["type"], "string");
//! assert_eq!(outgoing["messages"][0], serde_json::json!({"role": "system", "content": "Be brief."}));
//! # Ok::<(), deltafold::wire::WireError>(())
//! ```
//!
//! [`Request`] is the neutral form; each submodule reads (`decode`) and writes (`encode`) one
//! format's request body. `decode(encode(x)) == x` for everything a format carries. The rules:
//!
//! - **Never silently dropped.** A setting the target cannot carry is a
//!   [`WireError::UnsupportedSetting`] naming it (stop sequences for Responses, `top_k` for
//!   OpenAI, a temperature above Anthropic's 1, a provider's built-in tool in another
//!   provider's request…), never a body the provider would reject. Dropping is the caller's
//!   explicit choice: [`Request::drop_unsupported`] removes and returns what the target has no
//!   field for (LiteLLM's `drop_params`); what would change the request's meaning stays an
//!   error.
//! - **Extras keep their format.** Top-level fields a decoder does not type are kept in
//!   [`Request::extra`] with the format they came in ([`Request::extra_format`]). That format's
//!   encoder writes them as they are; another writes those it has the same field for (Chat
//!   Completions and Responses share `metadata`, `store`, `user`, `prompt_cache_key`,
//!   `prompt_cache_retention`, `service_tier` and `stream_options.include_obfuscation`) and
//!   refuses the rest, naming them; so with a function tool's extra fields
//!   ([`ToolDefinition::extra`], Anthropic's `cache_control`). A setting that means the same
//!   in several formats is typed instead: the seed, the presence and frequency penalties and
//!   the number of answers (Chat Completions and Gemini), the end user's id (OpenAI's
//!   `safety_identifier`, Anthropic's `metadata.user_id`).
//! - **Anthropic requires `max_tokens`.** No default is guessed: encoding a request without
//!   [`Request::max_output_tokens`] to Anthropic is an error.
//! - **Reasoning** is an effort (`minimal`…`high`, OpenAI's words; `none` turns it off) or a
//!   token budget (Anthropic's and Gemini's; 0 turns it off), plus a summary request. Where the
//!   target takes the other one it is converted with [`effort_to_budget`] /
//!   [`budget_to_effort`]. With neither, Chat Completions sends OpenAI's default effort
//!   (`medium`), Anthropic its budget (8192), Gemini a dynamic budget (`-1`), Responses no
//!   effort. A summary is Responses' `summary` and Gemini's `includeThoughts`; Anthropic always
//!   returns its thinking; Chat Completions cannot carry one (an error).
//! - **Structured output** is a JSON schema with a name; Anthropic and Gemini have no field for
//!   the name (left out; their decoders name it `response`).
//! - **The system prompt** travels as system messages (Anthropic's `system`, Gemini's
//!   `systemInstruction`, Responses' `instructions` become a leading system message).
//! - **Usage while streaming**: Anthropic, Responses and Gemini always report it; the Anthropic
//!   and Responses decoders set [`Request::stream_usage`] when streaming, and only Chat
//!   Completions writes it (`stream_options.include_usage`).
//! - **Gemini** names the model and streaming in the URL, not the body: its encoder writes
//!   neither (see [`gemini::path`]); [`gemini::decode`] leaves both `None` and
//!   [`gemini::decode_with_path`] reads them from the request's URL path. Its decoder reads
//!   what google-genai sends: snake_case field names, counts as floats (`topK: 20.0`), and
//!   OpenAPI `Schema` objects (`parameters`, `responseSchema`: `type: OBJECT`…), which become
//!   JSON Schema for every format.
//! - LangChain's message dicts have no request form: a conversation translates with
//!   [`crate::wire::langchain`], settings do not.

use serde_json::{Map, Value};

use super::{WireError, WireFormat};
use crate::message::Message;

pub mod anthropic;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

pub use carry::Dropped;

mod carry;
mod fields;
mod gemini_schema;
mod openai_shared;
mod responses_input;

/// A provider-neutral request.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Request {
    /// The model's name (for Gemini it goes in the URL).
    pub model: Option<String>,
    /// The conversation, system prompt included.
    pub messages: Vec<Message>,
    /// The functions the model may call.
    pub tools: Vec<ToolDefinition>,
    /// A provider's built-in tools (web search, code execution…), sent only to their format.
    pub native_tools: Vec<NativeTool>,
    /// Whether, and which, tool the model must call.
    pub tool_choice: Option<ToolChoice>,
    /// Whether the model may call several tools in one turn.
    pub parallel_tool_calls: Option<bool>,
    /// The most tokens the answer may take (reasoning included where the provider counts it).
    pub max_output_tokens: Option<u64>,
    /// Sequences that end the answer.
    pub stop: Vec<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
    /// Top-k sampling (Anthropic and Gemini).
    pub top_k: Option<u64>,
    /// Reasoning ("thinking") settings.
    pub reasoning: Option<Reasoning>,
    /// The answer's format: text, any JSON, or JSON following a schema.
    pub response_format: Option<ResponseFormat>,
    /// OpenAI's `verbosity` (Chat) / `text.verbosity` (Responses).
    pub verbosity: Option<String>,
    /// Whether the answer is streamed.
    pub stream: Option<bool>,
    /// Whether a streamed answer reports its usage.
    pub stream_usage: Option<bool>,
    /// The sampling seed (Chat Completions' `seed`, Gemini's `generationConfig.seed`).
    pub seed: Option<i64>,
    /// Penalises tokens already in the text (Chat Completions' `presence_penalty`, Gemini's
    /// `presencePenalty`).
    pub presence_penalty: Option<f64>,
    /// Penalises tokens by how often they occur (Chat Completions' `frequency_penalty`,
    /// Gemini's `frequencyPenalty`).
    pub frequency_penalty: Option<f64>,
    /// How many answers to generate (Chat Completions' `n`, Gemini's `candidateCount`; the
    /// others give one, so only more than one is refused there).
    pub choices: Option<u64>,
    /// An opaque id of the end user, for the provider's abuse detection (OpenAI's
    /// `safety_identifier`, Anthropic's `metadata.user_id`).
    pub user_id: Option<String>,
    /// Top-level fields no other field holds, as they came (a container's other members, such
    /// as Gemini's `generationConfig.responseModalities`, under the container's name).
    pub extra: Map<String, Value>,
    /// The format `extra` came in, set by each `decode`: that format's encoder writes `extra`
    /// as it is, another writes the fields it has a home for and refuses the rest (see
    /// [`Request::drop_unsupported`]). `None` (a request built by hand): every encoder
    /// writes `extra` as it is.
    pub extra_format: Option<WireFormat>,
}

impl Request {
    /// A request for `messages` with no setting.
    pub fn new(messages: Vec<Message>) -> Self {
        Request {
            messages,
            ..Self::default()
        }
    }
}

/// A function the model may call.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The function's name.
    pub name: String,
    /// What it does, for the model.
    pub description: Option<String>,
    /// Its arguments' JSON Schema (`None` for a function without parameters).
    pub parameters: Option<Value>,
    /// Whether the arguments must follow the schema exactly (OpenAI's and Anthropic's `strict`).
    pub strict: Option<bool>,
    /// Other fields of the tool (Anthropic's `cache_control`), in the request's
    /// [`Request::extra_format`]: written back as they are to that format, refused by another.
    pub extra: Map<String, Value>,
}

impl ToolDefinition {
    /// A function named `name` taking arguments that follow `parameters`.
    pub fn new(name: impl Into<String>, parameters: Value) -> Self {
        ToolDefinition {
            name: name.into(),
            parameters: Some(parameters),
            ..Self::default()
        }
    }
}

/// A provider's built-in tool, kept whole with the format it belongs to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NativeTool {
    /// The format whose request it came in.
    pub format: WireFormat,
    /// The tool as that format spells it.
    pub tool: Value,
}

/// Whether, and which, tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool call.
    None,
    /// Some tool call (OpenAI `required`, Anthropic `any`, Gemini `ANY`).
    Required,
    /// This function.
    Tool(String),
}

/// Reasoning settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Reasoning {
    /// OpenAI's effort (`none`, `minimal`, `low`, `medium`, `high`…; Gemini's `thinkingLevel`).
    pub effort: Option<String>,
    /// Anthropic's `budget_tokens`, Gemini's `thinkingBudget` (`0` turns reasoning off).
    pub budget_tokens: Option<u64>,
    /// The reasoning summary asked for (Responses' `summary`; Gemini's `includeThoughts`
    /// is `auto`).
    pub summary: Option<String>,
}

/// The answer's format.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResponseFormat {
    /// Plain text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON following a schema.
    JsonSchema {
        /// The schema's name (OpenAI requires one; Gemini and Anthropic have none, and
        /// their decoders name it `response`).
        name: String,
        /// What it is for.
        description: Option<String>,
        /// The JSON Schema.
        schema: Value,
        /// Whether the answer must follow it exactly.
        strict: Option<bool>,
    },
}

/// The schema name given when the format has none.
const DEFAULT_SCHEMA_NAME: &str = "response";

/// The token budget an effort stands for, where the target takes a budget: `none` 0,
/// `minimal` 1024 (Anthropic's least), `low` 2048, `medium` 8192, `high` 24576, and
/// `xhigh` 32768; `None` for another word.
pub fn effort_to_budget(effort: &str) -> Option<u64> {
    Some(match effort {
        "none" => 0,
        "minimal" => 1024,
        "low" => 2048,
        "medium" => 8192,
        "high" => 24576,
        "xhigh" => 32768,
        _ => return None,
    })
}

/// The effort a token budget stands for, where the target takes an effort: the least effort
/// whose budget ([`effort_to_budget`]) is at least `budget`.
pub fn budget_to_effort(budget: u64) -> &'static str {
    match budget {
        0 => "none",
        1..=1024 => "minimal",
        1025..=2048 => "low",
        2049..=8192 => "medium",
        8193..=24576 => "high",
        _ => "xhigh",
    }
}

impl Reasoning {
    /// The effort, or the one the budget stands for, or `medium`.
    fn effort_or_converted(&self) -> String {
        match (&self.effort, self.budget_tokens) {
            (Some(effort), _) => effort.clone(),
            (None, Some(budget)) => budget_to_effort(budget).to_owned(),
            (None, None) => "medium".to_owned(),
        }
    }

    /// The budget, or the one the effort stands for, or `medium`'s.
    fn budget_or_converted(&self, format: WireFormat) -> Result<u64, WireError> {
        match (self.budget_tokens, &self.effort) {
            (Some(budget), _) => Ok(budget),
            (None, Some(effort)) => effort_to_budget(effort)
                .ok_or_else(|| unsupported(format, format!("the reasoning effort {effort:?}"))),
            (None, None) => Ok(8192),
        }
    }
}

/// A [`WireError::UnsupportedSetting`].
fn unsupported(format: WireFormat, what: impl Into<String>) -> WireError {
    WireError::UnsupportedSetting {
        format,
        what: what.into(),
    }
}

/// A [`WireError::MalformedRequest`].
fn malformed(format: WireFormat, reason: impl Into<String>) -> WireError {
    WireError::MalformedRequest {
        format,
        reason: reason.into(),
    }
}

/// How an error names a built-in tool: its `type` (and `name`), or the keys that say its kind
/// (Gemini's `{"googleSearch": {}}`), sorted, so the text does not depend on key order.
fn tool_label(tool: &Value) -> String {
    let text = |key| tool.get(key).and_then(Value::as_str);
    match (text("type"), text("name")) {
        (Some(kind), Some(name)) => format!("`{kind}` named `{name}`"),
        (Some(kind), None) => format!("`{kind}`"),
        _ => {
            let mut keys: Vec<&str> = tool
                .as_object()
                .map(|object| object.keys().map(String::as_str).collect())
                .unwrap_or_default();
            keys.sort_unstable();
            format!("`{}`", keys.join("`, `"))
        }
    }
}

/// Writes `tools`: the functions, then the request's built-in tools, which must belong to
/// `format` (an error names the first that does not, or the first function with extra fields
/// of another format); nothing when there is none.
fn write_tools(
    body: &mut Map<String, Value>,
    mut functions: Vec<Value>,
    request: &Request,
    format: WireFormat,
) -> Result<(), WireError> {
    carry::refuse_tool_extra(request, format)?;
    for native in &request.native_tools {
        if native.format != format {
            return Err(unsupported(
                format,
                format!(
                    "the {} built-in tool {}",
                    native.format,
                    tool_label(&native.tool)
                ),
            ));
        }
        functions.push(native.tool.clone());
    }
    if !functions.is_empty() {
        body.insert("tools".into(), functions.into());
    }
    Ok(())
}

/// Errors unless `what` is absent: for settings the target has no field for.
fn refuse<T>(value: &Option<T>, format: WireFormat, what: &str) -> Result<(), WireError> {
    match value {
        Some(_) => Err(unsupported(format, what)),
        None => Ok(()),
    }
}
