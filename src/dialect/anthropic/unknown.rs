//! What the Anthropic decoder does not know, kept rather than dropped: a delta type newer than
//! it (the event becomes a `non_standard` block), and fields added to the events that come a few
//! times a stream (response-level extras).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::delta::DeltaSink;
use crate::dialect::payload::{keep_unknown_members, Members};
use crate::dialect::text::Text;
use crate::error::Error;

/// A block start's block, to tell its kind.
#[derive(Deserialize, Default)]
struct Inner<'a> {
    #[serde(borrow, default)]
    content_block: Option<&'a RawValue>,
}

/// Whether the decoder reads a `content_block_delta` of this `type` (none: read as ever); another
/// one is kept whole, as a `non_standard` block.
pub(super) fn is_known_delta(kind: Option<&str>) -> bool {
    kind.is_none_or(|kind| KNOWN_DELTAS.contains(&kind))
}

const KNOWN_DELTAS: [&str; 5] = [
    "text_delta",
    "thinking_delta",
    "signature_delta",
    "input_json_delta",
    "citations_delta",
];

/// Keeps the fields a provider adds to the events that come a few times a stream (never a
/// `content_block_delta`): the event's own members, `message_start`'s message, a block start's
/// block (of a kind the decoder types) and `message_delta`'s delta, as response-level extras
/// (Bedrock's `amazon-bedrock-invocationMetrics` on `message_stop`…).
pub(super) fn keep_new_fields(
    kind: &str,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    const EVENT: [&str; 6] = [
        "type",
        "index",
        "message",
        "content_block",
        "delta",
        "usage",
    ];
    const MESSAGE: [&str; 9] = [
        "id",
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
        "container",
    ];
    const STOP: [&str; 5] = [
        "stop_reason",
        "stop_sequence",
        "stop_details",
        "container",
        "type",
    ];
    // The members of the block kinds the decoder types; the others are kept whole.
    const BLOCK: [&str; 11] = [
        "type",
        "id",
        "name",
        "input",
        "text",
        "thinking",
        "signature",
        "data",
        "citations",
        "caller",
        "toolset_name",
    ];
    let block = match kind {
        "content_block_start" => serde_json::from_str::<Inner<'_>>(data)
            .ok()
            .and_then(|inner| inner.content_block)
            .is_some_and(|block| is_typed_block(block.get())),
        "message_start" | "message_delta" | "content_block_stop" | "message_stop" => false,
        // The deltas, and the events kept whole or read whole.
        _ => return Ok(()),
    };
    let nested = [
        ("message", Members::flat(&MESSAGE)),
        ("delta", Members::flat(&STOP)),
        ("content_block", Members::flat(&BLOCK)),
    ];
    // A block of another kind is kept whole by the decoder: its members are not new fields.
    let nested = if block { &nested[..] } else { &nested[..2] };
    let members = Members {
        known: &EVENT,
        nested,
    };
    keep_unknown_members(data, &members, None, sink)
}

/// Whether a block start is of a kind the decoder types member by member (the server-side tool
/// blocks and unknown kinds are kept whole).
fn is_typed_block(raw: &str) -> bool {
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<Text<'a>>,
    }
    serde_json::from_str::<Kind<'_>>(raw).is_ok_and(|block| {
        matches!(
            block.kind.as_ref().map(Text::as_str),
            Some("text" | "thinking" | "redacted_thinking" | "tool_use")
        )
    })
}
