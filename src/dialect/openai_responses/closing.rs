//! What the closing events of a Responses stream say the answer was — `output_text.done`,
//! `content_part.done`, `output_item.done`, `response.completed` — handed on as
//! [`Final`] values, which win over what the deltas added up to (a proxy that drops or samples
//! deltas), and the end of the response itself.
//!
//! `response.completed` lists the items by position; each is matched to the item that streamed
//! by its id, not by its position (a recording or proxy may leave an item's events out, which
//! shifts the positions): an item whose id never streamed is read as its events would have
//! been, under an output index of its own, so it is neither lost nor added twice.

use std::collections::HashSet;

use serde_json::value::RawValue;
use serde_json::Value;

use super::payload::{ContentPart, Item, ResponseObject};
use super::provider_items::{self, kept_whole};
use super::reasoning::Part;
use super::{key, position_index, OpenAiResponsesDecoder, CHOICE, TEXT_ITEMS};
use crate::delta::{BlockKey, Delta, DeltaSink, Final, Held, MetadataDelta, TextKind, UsageReport};
use crate::dialect::usage::{apply_usage, UsageObject};
use crate::error::Error;

impl OpenAiResponsesDecoder {
    /// The end of `response.completed` or `.incomplete` (or of a whole body): the final
    /// metadata and usage, the items' authoritative content, the finish reason.
    pub(super) fn complete(
        &mut self,
        response: &ResponseObject<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        self.terminal(response, sink)?;
        let output = response.output.as_deref().unwrap_or_default();
        // The output indexes items streamed under, and the first one past all of them and the
        // listed positions, for items that never streamed.
        let taken: HashSet<u32> = self.items.values().copied().collect();
        let mut fresh = taken
            .iter()
            .map(|index| index.saturating_add(1))
            .max()
            .unwrap_or(0)
            .max(position_index(output.len()));
        let items: Vec<Option<Item<'_>>> = output
            .iter()
            .map(|raw| serde_json::from_str::<Item<'_>>(raw.get()).ok())
            .collect();
        // Ids that change from event to event (GitHub Copilot gives every event, and every item
        // in `response.completed`, a new id): when none of the listed ids streamed although
        // items did, the ids say nothing and the positions are the items'.
        let rotating = !self.items.is_empty()
            && !items.iter().flatten().any(|item| {
                item.id
                    .as_str()
                    .is_some_and(|id| self.items.contains_key(id))
            });
        for (position, (raw, item)) in output.iter().zip(items).enumerate() {
            let Some(item) = item else {
                continue;
            };
            let streamed = match item.id.as_str() {
                Some(_) if rotating => None,
                id => id.map(|id| self.items.get(id).copied()),
            };
            match streamed {
                Some(Some(index)) => {
                    if let (Some("reasoning"), Some(data)) =
                        (item.kind.as_str(), item.encrypted_content.as_str())
                    {
                        sink.apply(Delta::Final(Final::ReasoningData {
                            choice: CHOICE,
                            key: key(index, 0),
                            data,
                        }))?;
                    }
                    let kind = item.kind.as_str().unwrap_or_default();
                    if self.open_items.contains(&index) {
                        // Opened, and never ended by its `.done` (a recorded MCP tool list):
                        // the item as the response lists it, which the `.done` would have said.
                        self.item_done(index, raw, sink)?
                    } else if kept_whole(kind, item.execution.as_str()) {
                        // The item as the final response has it replaces its `.done` copy.
                        provider_items::item(index, raw, sink)?
                    } else {
                        self.item_final(index, item, sink)?
                    }
                }
                Some(None) => {
                    let index = place(position_index(position), &taken, &mut fresh);
                    self.unstreamed_item(index, raw, &item, sink)?;
                }
                // An item without an id (or with a rotating one) can only be matched by its
                // position. One that only `output_item` events stream (a hosted tool's, an
                // `mcp_list_tools`) and that none streamed at that position comes now.
                None => {
                    let position = position_index(position);
                    let kind = item.kind.as_str().unwrap_or_default();
                    if !self.streamed.contains(&position) && !TEXT_ITEMS.contains(&kind) {
                        let index = place(position, &taken, &mut fresh);
                        self.unstreamed_item(index, raw, &item, sink)?;
                    } else {
                        self.item_final(position, item, sink)?;
                    }
                }
            }
        }
        let incomplete = response
            .incomplete_details
            .as_ref()
            .and_then(|details| details.reason.as_str());
        let reason = incomplete
            .or(response.status.as_str())
            .unwrap_or("completed");
        sink.apply(Delta::Finish {
            choice: CHOICE,
            reason,
        })?;
        sink.apply(Delta::Done)
    }

    /// Usage and the final metadata of `response.completed`, `.incomplete` or `.failed`.
    pub(super) fn terminal(
        &self,
        response: &ResponseObject<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            id: response.id.as_str(),
            model: response.model.as_str(),
            created: response.created_at.0.and_then(|at| i64::try_from(at).ok()),
            service_tier: response.service_tier.as_str(),
            ..MetadataDelta::default()
        }))?;
        if let Some(id) = response.id.as_str() {
            sink.apply(Delta::Final(Final::ResponseId(id)))?;
        }
        if let Some(usage) = response.usage {
            apply_usage(usage.get(), usage_report(usage), sink)?;
        }
        Ok(())
    }

    /// Remembers that an `output_item` event streamed an item at this output index.
    pub(super) fn streamed_at(
        &mut self,
        output_index: u32,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if self.streamed.insert(output_index) {
            sink.apply(Delta::Held(Held {
                entries: 1,
                bytes: 0,
            }))?;
        }
        Ok(())
    }

    /// What a finished item says its content is, which wins over its deltas: message text and
    /// refusals, reasoning summaries, a call's whole arguments or input.
    pub(super) fn item_final(
        &mut self,
        output_index: u32,
        item: Item<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        match item.kind.as_str().unwrap_or_default() {
            "function_call" => sink.apply(Delta::ToolCallEnd {
                choice: CHOICE,
                index: output_index,
                arguments: item.arguments.as_str(),
            }),
            "custom_tool_call" => self.end_custom_call(output_index, item.input.as_str(), sink),
            "message" => {
                for (part, content) in item.content.iter().flatten().enumerate() {
                    let key = key(output_index, position_index(part));
                    final_part(sink, key, content)?;
                    let kind = match content.kind.as_str() {
                        Some("output_text") => TextKind::Text,
                        Some("refusal") => TextKind::Refusal,
                        _ => continue,
                    };
                    sink.apply(Delta::TextItem {
                        choice: CHOICE,
                        key,
                        kind,
                        id: item.id.as_str(),
                        phase: item.phase.as_str(),
                    })?;
                }
                Ok(())
            }
            "reasoning" => {
                // The id the response lists the item with: the same id, unless ids rotate from
                // event to event (GitHub Copilot), when the final response's is the one to send
                // back.
                if let Some(id) = item.id.as_str() {
                    sink.apply(Delta::ReasoningExtra {
                        choice: CHOICE,
                        key: Some(key(output_index, 0)),
                        name: "id",
                        value: Value::String(id.to_owned()),
                    })?;
                }
                for (part, summary) in item.summary.iter().flatten().enumerate() {
                    let index = Some(part as u64);
                    let key = self.reasoning_key(output_index, Part::Summary, index, sink)?;
                    final_text(sink, key, TextKind::Reasoning, summary.text.as_str())?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// The output index for an item that never streamed: its position, unless a streamed item
/// has it, then the next one past all of them.
fn place(position: u32, taken: &HashSet<u32>, fresh: &mut u32) -> u32 {
    if taken.contains(&position) {
        *fresh = fresh.saturating_add(1);
        *fresh - 1
    } else {
        position
    }
}

/// The whole text of a block, as a closing event repeats it.
pub(super) fn final_text(
    sink: &mut impl DeltaSink,
    key: BlockKey,
    kind: TextKind,
    text: Option<&str>,
) -> Result<(), Error> {
    match text {
        Some(text) => sink.apply(Delta::Final(Final::Text {
            choice: CHOICE,
            key,
            kind,
            text,
        })),
        None => Ok(()),
    }
}

/// The whole text or refusal of a finished message part.
pub(super) fn final_part(
    sink: &mut impl DeltaSink,
    key: BlockKey,
    part: &ContentPart<'_>,
) -> Result<(), Error> {
    match part.kind.as_str() {
        Some("output_text") => final_text(sink, key, TextKind::Text, part.text.as_str()),
        Some("refusal") => final_text(sink, key, TextKind::Refusal, part.refusal.as_str()),
        _ => Ok(()),
    }
}

/// Maps a Responses usage object (input tokens include cached ones).
fn usage_report(raw: &RawValue) -> Option<UsageReport<'_>> {
    let usage = UsageObject::parse(raw.get())?;
    let counts = UsageReport {
        input_tokens: usage.count(&["input_tokens"]),
        output_tokens: usage.count(&["output_tokens"]),
        total_tokens: usage.count(&["total_tokens"]),
        cache_read: usage.count(&["input_tokens_details", "cached_tokens"]),
        reasoning: usage.count(&["output_tokens_details", "reasoning_tokens"]),
        ..UsageReport::default()
    };
    Some(usage.into_report(counts))
}
