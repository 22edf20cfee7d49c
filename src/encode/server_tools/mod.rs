//! Server-side tool activity and citations in each target's shapes, shared by the live and the
//! non-streamed halves: the inverse of the decoders' mappings (`src/dialect/anthropic/
//! server_tools.rs`, `src/dialect/openai_responses/server_tools.rs`).
//!
//! A call's or result's `extras` go back onto the block only when the message came from the
//! target's own provider (they hold that provider's native fields); a result's `output` is
//! written as the source sent it, so that the same blocks come back when the output is read
//! again, whatever the provider.
//!
//! Anthropic's shapes are in `anthropic`, Responses' in `responses`; chat's `url_citation`
//! annotations and what all of them share are here.

use serde_json::{json, Map, Value};

use crate::assemble::{PartialBlock, PartialMessage};
use crate::message::{Annotation, ContentBlock, ServerToolCall};

/// The keys the decoders move into `extras` that are not fields of the provider's block.
const DECODER_KEYS: &[&str] = &["tool_name", "partial_json", "block_type"];

fn string<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// Copies `extras` onto `object`, without the decoders' own keys and without overwriting.
fn restore(object: &mut Value, extras: &Map<String, Value>) {
    let Value::Object(object) = object else {
        return;
    };
    for (key, value) in extras {
        if !DECODER_KEYS.contains(&key.as_str()) && !object.contains_key(key) {
            object.insert(key.clone(), value.clone());
        }
    }
}

/// The call's arguments as JSON text (empty when there are none).
pub(super) fn args_text(call: &ServerToolCall) -> String {
    if call.args.is_empty() {
        String::new()
    } else {
        Value::Object(call.args.clone()).to_string()
    }
}

/// True when the source streams this call's arguments as raw text rather than JSON fragments
/// (Responses streams a code interpreter's code itself).
pub(super) fn streams_raw_code(source: Option<&str>, name: &str) -> bool {
    source == Some("openai") && name == "code_interpreter"
}

/// True when the call's start does not yet say what a target needs to open its block: a remote
/// MCP call whose tool name only its end gives (Responses' `mcp_call` items).
pub(super) fn needs_its_end(call: &ServerToolCall) -> bool {
    call.name == "remote_mcp" && string(&call.extras, "tool_name").is_none()
}

/// The citations with a URL on the message's text, in order: what the UI protocols carry as
/// sources.
pub(super) fn url_citations(
    message: &PartialMessage,
) -> impl Iterator<Item = (&str, Option<&str>)> {
    message.blocks().iter().flat_map(|block| {
        let annotations = match block {
            PartialBlock::Content(ContentBlock::Text { annotations, .. }) => annotations.as_slice(),
            _ => &[],
        };
        annotations
            .iter()
            .filter_map(|annotation| match annotation {
                Annotation::Citation(citation) => {
                    Some((citation.url.as_deref()?, citation.title.as_deref()))
                }
                _ => None,
            })
    })
}

mod anthropic;
mod responses;

pub(super) use anthropic::{
    anthropic_call, anthropic_citation, anthropic_expressible, anthropic_result, anthropic_upload,
};
pub(super) use responses::{
    responses_annotation, responses_approval, responses_item, responses_item_type,
    responses_progress,
};

// --- OpenAI chat -----------------------------------------------------------------------------

/// The `url_citation` annotations of a message's text, as chat completions carry them: only
/// citations with a URL have a place there, and their spans move by the text of the blocks
/// before theirs (chat has one text).
pub(super) fn chat_annotations<'a>(
    blocks: impl IntoIterator<Item = &'a ContentBlock>,
) -> Vec<Value> {
    let mut offset = 0;
    let mut annotations = Vec::new();
    for block in blocks {
        let ContentBlock::Text { text, .. } = block else {
            continue;
        };
        for citation in block.citations() {
            let Some(url) = citation.url.as_deref() else {
                continue;
            };
            annotations.push(json!({
                "type": "url_citation",
                "url_citation": {
                    "url": url,
                    "title": citation.title.as_deref().unwrap_or_default(),
                    "start_index": citation.start_index.unwrap_or(0) + offset,
                    "end_index": citation.end_index.unwrap_or(0) + offset,
                },
            }));
        }
        offset += text.chars().count() as u64;
    }
    annotations
}
