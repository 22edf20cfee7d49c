//! The output items of a Responses stream as `output_item.added` opens them and
//! `output_item.done` finishes them: function and custom tool calls (with their `fc_…` /
//! `ctc_…` item ids), reasoning items, message items (their citations), built-in tool items
//! ([`server_tools`](super::server_tools)), items that stream their input
//! ([`provider_items`](super::provider_items)), and any other item kept whole.

use serde_json::value::RawValue;
use serde_json::Value;

use super::payload::Item;
use super::{
    key, position_index, provider_items, server_tools, OpenAiResponsesDecoder, CHOICE, TEXT_ITEMS,
};
use crate::delta::{Delta, DeltaSink, Held, ToolCallDelta};
use crate::error::Error;
use crate::message::ToolCall;

impl OpenAiResponsesDecoder {
    /// The item an `output_item` event carries (`None` if it does not parse), its id
    /// remembered under `output_index`.
    fn read_item<'r>(
        &mut self,
        output_index: u32,
        raw: &'r RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<Option<Item<'r>>, Error> {
        self.streamed_at(output_index, sink)?;
        let Ok(item) = serde_json::from_str::<Item<'r>>(raw.get()) else {
            return Ok(None);
        };
        if let Some(id) = item.id.as_str() {
            self.remember_item(id, output_index, sink)?;
        }
        Ok(Some(item))
    }

    /// `output_item.added`: a call, reasoning item, server tool call or streamed item opens.
    pub(super) fn item_added(
        &mut self,
        output_index: u32,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Some(item) = self.read_item(output_index, raw, sink)? else {
            return Ok(());
        };
        let kind = item.kind.as_str().unwrap_or_default();
        if !TEXT_ITEMS.contains(&kind) && self.open_items.insert(output_index) {
            sink.apply(Delta::Held(Held {
                entries: 1,
                bytes: 0,
            }))?;
        }
        match kind {
            "function_call" => {
                sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice: CHOICE,
                    index: Some(output_index),
                    id: item.call_id.as_str(),
                    name: item.name.as_str(),
                    arguments: item.arguments.as_str().unwrap_or_default(),
                }))?;
                call_item_id(output_index, &item, sink)?;
                call_fields(output_index, raw, sink)
            }
            "custom_tool_call" => {
                self.start_custom_call(output_index, &item, sink)?;
                call_item_id(output_index, &item, sink)
            }
            "reasoning" => reasoning_item(output_index, &item, sink),
            "message" => match item.phase.as_str() {
                Some(phase) => {
                    sink.apply(Delta::Held(Held {
                        entries: 1,
                        bytes: phase.len(),
                    }))?;
                    self.phases.insert(output_index, phase.to_owned());
                    Ok(())
                }
                None => Ok(()),
            },
            kind if provider_items::streams(kind) => provider_items::item(output_index, raw, sink),
            kind => match server_tools::server_tool(kind, item.execution.as_str()) {
                Some(name) => {
                    let id = item.id.as_str().unwrap_or_default();
                    self.server_item_added(output_index, name, id, sink)
                }
                None => Ok(()),
            },
        }
    }

    /// `output_item.done`: the item as it ended, which wins over what streamed.
    pub(super) fn item_done(
        &mut self,
        output_index: u32,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Some(item) = self.read_item(output_index, raw, sink)? else {
            return Ok(());
        };
        self.open_items.remove(&output_index);
        match item.kind.as_str().unwrap_or_default() {
            "function_call" | "custom_tool_call" => {
                call_fields(output_index, raw, sink)?;
                self.item_final(output_index, item, sink)
            }
            "reasoning" => {
                reasoning_item(output_index, &item, sink)?;
                self.item_final(output_index, item, sink)
            }
            "message" => {
                for (part, content) in item.content.iter().flatten().enumerate() {
                    let key = key(output_index, position_index(part));
                    for value in content.annotations.iter().flatten() {
                        sink.apply(Delta::Annotation {
                            choice: CHOICE,
                            key: Some(key),
                            value: value.clone(),
                        })?;
                    }
                }
                self.item_final(output_index, item, sink)
            }
            kind => match serde_json::from_str(raw.get()) {
                Ok(Value::Object(object)) => match (
                    kind,
                    server_tools::server_tool(kind, item.execution.as_str()),
                ) {
                    (_, Some(name)) => {
                        self.server_item_done(output_index, kind, name, object, sink)
                    }
                    ("tool_search_output", None) if item.execution.as_str() != Some("client") => {
                        self.tool_search_output(object, sink)
                    }
                    ("mcp_approval_request", None) => sink.apply(Delta::Block {
                        choice: CHOICE,
                        block: server_tools::approval(object),
                    }),
                    // Kept whole under its output index, where a later copy replaces it.
                    _ => sink.apply(Delta::ProviderItem {
                        choice: CHOICE,
                        key: key(output_index, 0),
                        value: Value::Object(object),
                    }),
                },
                Ok(value) => sink.apply(Delta::NonStandard {
                    choice: CHOICE,
                    value,
                }),
                Err(_) => Ok(()),
            },
        }
    }
}

/// The output item id (`fc_…`, `ctc_…`) of a function or custom tool call, kept on the call as
/// LangChain keeps it (`extras.item_id`), to be sent back with it.
fn call_item_id(
    output_index: u32,
    item: &Item<'_>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    match item.id.as_str() {
        Some(id) => sink.apply(Delta::ToolCallExtra {
            choice: CHOICE,
            index: Some(output_index),
            name: ToolCall::ITEM_ID,
            value: Value::String(id.to_owned()),
        }),
        None => Ok(()),
    }
}

/// The members of a function or custom tool call item the call's own fields do not hold.
const CALL_MEMBERS: [&str; 7] = [
    "type",
    "id",
    "call_id",
    "name",
    "arguments",
    "input",
    "status",
];

/// Every other member of a function or custom tool call item — its `caller` (`{type: program,
/// caller_id}` for a call a program item made), `fingerprint`, `namespace`, `async`… — kept
/// in the call's `extras` under its own name, as LangChain keeps an Anthropic call's `caller`.
fn call_fields(output_index: u32, raw: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let Ok(Value::Object(item)) = serde_json::from_str(raw.get()) else {
        return Ok(());
    };
    for (name, value) in item {
        if !CALL_MEMBERS.contains(&name.as_str()) && !value.is_null() {
            sink.apply(Delta::ToolCallExtra {
                choice: CHOICE,
                index: Some(output_index),
                name: &name,
                value,
            })?;
        }
    }
    Ok(())
}

/// A reasoning item's id and encrypted content, on the block of its first summary part.
fn reasoning_item(
    output_index: u32,
    item: &Item<'_>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    let key = Some(key(output_index, 0));
    if let Some(id) = item.id.as_str() {
        sink.apply(Delta::ReasoningExtra {
            choice: CHOICE,
            key,
            name: "id",
            value: Value::String(id.to_owned()),
        })?;
    }
    match item.encrypted_content.as_str() {
        Some(data) => sink.apply(Delta::ReasoningData {
            choice: CHOICE,
            key,
            data,
        }),
        None => Ok(()),
    }
}
