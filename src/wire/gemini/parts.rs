//! Gemini parts for media and for code that ran: the inverse of the Gemini dialect's reading
//! (`dialect/gemini/server_tools/`), so a code run goes back as the `executableCode` /
//! `codeExecutionResult` parts it streamed, with `thought` and `thoughtSignature` where they
//! were, and a Gemini 3 built-in tool's run (file search…) as its `toolCall` / `toolResponse`
//! parts. The stream encoder writes another provider's code runs with the same functions, from
//! the call's arguments and the result's status and output only.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::GENERATED_CODE_ID;
use crate::message::{
    AiMessage, ContentBlock, MediaBlock, MediaSource, ServerToolCall, ServerToolResult, ToolStatus,
};
use crate::wire::At;

/// The outcome of code that ran, and of code that failed when the result names none.
const OUTCOME_OK: &str = "OUTCOME_OK";
const OUTCOME_FAILED: &str = "OUTCOME_FAILED";
/// Fields of a media part that travel in a media block's `extras` (other providers' options,
/// OpenAI's `detail` or Anthropic's `cache_control`, are not Gemini's).
pub(super) const PART_OPTIONS: &[&str] = &["videoMetadata", "mediaResolution", "partMetadata"];
/// Fields of a code call's or result's `extras` that are the part's, not the code's.
const PART_FIELDS: &[&str] = &["thought", "signature", "block_type", "partial_json"];

/// The ids of the code runs of `message` that go back as Gemini parts: `code_interpreter`
/// calls of a Gemini message. One of another provider's message is that provider's tool.
pub(super) fn gemini_code_calls(message: &AiMessage, gemini: bool) -> HashSet<&str> {
    if !gemini {
        return HashSet::new();
    }
    message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ServerToolCall(call) if call.name == "code_interpreter" => {
                Some(call.id.as_str())
            }
            _ => None,
        })
        .collect()
}

/// `{executableCode: {language, code, id?}, thought?, thoughtSignature?}`; `native` when the
/// call's `extras` are Gemini's (its part's fields), else they are left out.
pub(crate) fn executable_code(call: &ServerToolCall, native: bool) -> Value {
    let none = Map::new();
    let extras = if native { &call.extras } else { &none };
    let mut code = without_part_fields(extras);
    let language = call.args.get("language").cloned();
    code.insert(
        "language".into(),
        language.unwrap_or_else(|| "PYTHON".into()),
    );
    code.insert(
        "code".into(),
        call.args.get("code").cloned().unwrap_or_else(|| "".into()),
    );
    insert_id(&mut code, &call.id);
    part_of("executableCode", code, extras)
}

/// `{codeExecutionResult: {outcome, output, id?}, thought?, thoughtSignature?}`; a result
/// without an outcome has the one its status says, an output that is not text (another
/// provider's logs or stdout) its text.
pub(crate) fn code_execution_result(result: &ServerToolResult, native: bool) -> Value {
    let none = Map::new();
    let extras = if native { &result.extras } else { &none };
    let mut fields = without_part_fields(extras);
    fields.entry("outcome").or_insert_with(|| {
        match result.status {
            ToolStatus::Error => OUTCOME_FAILED,
            ToolStatus::Success => OUTCOME_OK,
        }
        .into()
    });
    if let Some(output) = result.output.as_ref().and_then(output_text) {
        fields.insert("output".into(), output.into());
    }
    insert_id(&mut fields, &result.tool_call_id);
    part_of("codeExecutionResult", fields, extras)
}

/// The key of a server tool call's `extras` that holds the `toolType` of the Gemini 3 `toolCall`
/// part it was read from (`FILE_SEARCH`…).
const TOOL_TYPE: &str = "toolType";
/// The `block_type` of a server tool result read from a Gemini 3 `toolResponse` part.
const TOOL_RESPONSE: &str = "tool_response";

/// True for a built-in tool call Gemini 3 named in a `toolCall` part (its `toolType` kept).
pub(super) fn is_tool_call_part(call: &ServerToolCall) -> bool {
    call.extras.get(TOOL_TYPE).is_some_and(Value::is_string)
}

/// True for the result of such a call, read from a `toolResponse` part.
pub(super) fn is_tool_response_part(result: &ServerToolResult) -> bool {
    result.extras.get("block_type").and_then(Value::as_str) == Some(TOOL_RESPONSE)
}

/// `{toolCall: {toolType, id?, args?, …}, thought?, thoughtSignature?}`: the part the call came
/// as, its signature on it (Gemini 3 refuses a turn whose built-in tool parts lost theirs).
pub(super) fn tool_call(call: &ServerToolCall) -> Value {
    let mut fields = without_part_fields(&call.extras);
    insert_id(&mut fields, &call.id);
    if !call.args.is_empty() {
        fields.insert("args".into(), Value::Object(call.args.clone()));
    }
    part_of("toolCall", fields, &call.extras)
}

/// `{toolResponse: {toolType?, id?, response?, …}, thought?, thoughtSignature?}`: the part the
/// result came as.
pub(super) fn tool_response(result: &ServerToolResult) -> Value {
    let mut fields = without_part_fields(&result.extras);
    insert_id(&mut fields, &result.tool_call_id);
    if let Some(output) = &result.output {
        fields.insert("response".into(), output.clone());
    }
    part_of("toolResponse", fields, &result.extras)
}

/// The id of a call Gemini named (not one deltafold made up).
fn insert_id(fields: &mut Map<String, Value>, id: &str) {
    if !id.is_empty() && !id.starts_with(GENERATED_CODE_ID) {
        fields.insert("id".into(), id.into());
    }
}

/// A code run's output as Gemini's text: a string as it is, Responses' `logs` outputs and
/// Anthropic's `stdout` / `stderr` joined, anything else as JSON.
fn output_text(output: &Value) -> Option<String> {
    match output {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        Value::Array(outputs) if outputs.iter().all(|output| output.get("logs").is_some()) => Some(
            outputs
                .iter()
                .filter_map(|output| output["logs"].as_str())
                .collect(),
        ),
        Value::Object(fields) if fields.contains_key("stdout") => Some(
            ["stdout", "stderr"]
                .iter()
                .filter_map(|key| fields.get(*key).and_then(Value::as_str))
                .collect(),
        ),
        other => Some(other.to_string()),
    }
}

fn without_part_fields(extras: &Map<String, Value>) -> Map<String, Value> {
    extras
        .iter()
        .filter(|(key, _)| !PART_FIELDS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// The part holding `inner` under `key`, marked as the block's extras say it streamed.
fn part_of(key: &str, inner: Map<String, Value>, extras: &Map<String, Value>) -> Value {
    let mut part = Map::new();
    part.insert(key.into(), Value::Object(inner));
    part_of_marked(Value::Object(part), extras)
}

/// `part` with `thought` and `thoughtSignature` as the block's extras say it streamed.
fn part_of_marked(mut part: Value, extras: &Map<String, Value>) -> Value {
    if let Value::Object(part) = &mut part {
        if extras.get("thought") == Some(&Value::Bool(true)) {
            part.insert("thought".into(), true.into());
        }
        if let Some(signature) = extras.get("signature").filter(|value| value.is_string()) {
            part.insert("thoughtSignature".into(), signature.clone());
        }
    }
    part
}

/// An image, audio, video, file or plain-text block as `inlineData` or `fileData`; `None` for a
/// block that is not media. `native` when the block is Gemini's own (an image a Gemini model
/// made): its `thought` and `signature` extras go back as the part's `thought` and
/// `thoughtSignature`.
pub(super) fn media(
    block: &ContentBlock,
    native: bool,
    at: At,
) -> Result<Option<Value>, super::WireError> {
    let Some(media) = block.media() else {
        return Ok(None);
    };
    let part = match &media.source {
        MediaSource::Base64(data) => {
            let Some(mime_type) = &media.mime_type else {
                return Err(at.unsupported(format!(
                    "{} in base64 without a MIME type",
                    super::block_name(block)
                )));
            };
            json!({"inlineData": {"mimeType": mime_type, "data": data}})
        }
        MediaSource::Url(uri) => file_data(uri, media),
        MediaSource::FileId(uri) if uri.contains("://") => file_data(uri, media),
        MediaSource::FileId(id) => {
            return Err(at.unsupported(format!(
                "the file id {id:?} (Gemini refers to its files by URI; this is another \
                 provider's file)"
            )))
        }
        // Plain text given inline is text to Gemini.
        MediaSource::Text(text) => json!({ "text": text }),
    };
    let mut part = part;
    if let Value::Object(fields) = &mut part {
        for key in PART_OPTIONS {
            if let Some(value) = media.extras.get(*key) {
                fields.insert((*key).into(), value.clone());
            }
        }
    }
    if native {
        part = part_of_marked(part, &media.extras);
    }
    Ok(Some(part))
}

/// True for a file a provider's server-side tool made (Anthropic's `container_upload`): an
/// artifact of that provider's tool, which goes where its tool goes.
pub(super) fn is_tool_artifact(block: &ContentBlock) -> bool {
    block
        .media()
        .is_some_and(|media| media.extras.contains_key("block_type"))
}

/// `fileData {mimeType?, fileUri}`: a URL, or a file of Gemini's Files API by its URI.
fn file_data(uri: &str, media: &MediaBlock) -> Value {
    let mut data = Map::new();
    if let Some(mime_type) = &media.mime_type {
        data.insert("mimeType".into(), mime_type.clone().into());
    }
    data.insert("fileUri".into(), uri.into());
    json!({ "fileData": data })
}

/// A non-standard block: a Gemini part kept as sent (an image the model made, a part of a kind
/// deltafold does not know). Another provider's block (one with a `type`) is no Gemini part.
pub(super) fn non_standard(value: &Value, at: At) -> Result<Value, super::WireError> {
    match value {
        Value::Object(part) if !part.contains_key("type") => Ok(value.clone()),
        _ => {
            let kind = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("untyped");
            Err(at.unsupported(format!(
                "another provider's `{kind}` block (Gemini parts have no `type`)"
            )))
        }
    }
}
