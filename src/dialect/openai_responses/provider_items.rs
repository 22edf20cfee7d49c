//! Responses items with no standard block that stream their input: a `shell_call` (its
//! commands, by `response.shell_call_command.added` and `.delta`) and an `apply_patch_call`
//! (its diff, by `response.apply_patch_call_operation_diff.delta`). LangChain keeps such items
//! whole as non-standard blocks, and so does deltafold: the item opens its block at
//! `output_item.added`, each streamed piece grows the string it belongs to inside it — a live
//! event each — and the finished item at `output_item.done` replaces it, so what the deltas
//! built never outlives the item's own word. The `.done` events repeat what streamed and carry
//! nothing else. Every other item with no standard block (a `compaction`, a `program`, a type
//! newer than deltafold) is kept whole the same way from its `.done` on, and `response.completed`'s
//! copy of an item replaces it too ([`kept_whole`]).

use serde_json::value::RawValue;
use serde_json::Value;

use super::payload::Event;
use super::{key, server_tools, CHOICE, TEXT_ITEMS};
use crate::delta::{Delta, DeltaSink, ItemField};
use crate::error::Error;

/// The item types whose input streams, kept whole under their output index.
const STREAMED_ITEMS: &[&str] = &["shell_call", "apply_patch_call"];

/// Whether an item of this type streams its input.
pub(super) fn streams(kind: &str) -> bool {
    STREAMED_ITEMS.contains(&kind)
}

/// The item, as added or finished: it opens or replaces its block.
pub(super) fn item(
    output_index: u32,
    raw: &RawValue,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(value) => sink.apply(Delta::ProviderItem {
            choice: CHOICE,
            key: key(output_index, 0),
            value,
        }),
        Err(_) => Ok(()),
    }
}

/// A streamed piece of an item's input; `false` for any other event.
pub(super) fn input(
    kind: &str,
    output_index: u32,
    event: &Event<'_>,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    let command = || {
        let index = event.command_index.0.unwrap_or(0);
        ItemField::Element(
            "action",
            "commands",
            u32::try_from(index).unwrap_or(u32::MAX),
        )
    };
    let (field, text) = match kind {
        "response.shell_call_command.added" => (command(), event.command.as_str()),
        "response.shell_call_command.delta" => (command(), event.delta.as_str()),
        "response.apply_patch_call_operation_diff.delta" => {
            (ItemField::Member("operation", "diff"), event.delta.as_str())
        }
        "response.shell_call_command.done" | "response.apply_patch_call_operation_diff.done" => {
            return Some(Ok(()))
        }
        _ => return None,
    };
    Some(match text {
        Some(text) if !text.is_empty() => sink.apply(Delta::ItemInput {
            choice: CHOICE,
            key: key(output_index, 0),
            field,
            text,
        }),
        _ => Ok(()),
    })
}

/// Whether an item of this type is kept whole, as a non-standard block under its output index:
/// one with no typed block (a `shell_call`, a `compaction`, a `program`, a type newer than this
/// decoder). A later copy of the item replaces it: a `compaction`'s `encrypted_content` and a
/// `program`'s `fingerprint` differ at `output_item.added`, `.done` and `response.completed`,
/// and the last is the one a client sends back.
pub(super) fn kept_whole(kind: &str, execution: Option<&str>) -> bool {
    !TEXT_ITEMS.contains(&kind)
        && server_tools::server_tool(kind, execution).is_none()
        && !(kind == "tool_search_output" && execution != Some("client"))
        && kind != "mcp_approval_request"
}
