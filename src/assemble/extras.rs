//! Provider fields beside the text: OpenRouter's reasoning details, log probabilities, and
//! every other field a provider sends, kept in `extra`. The fold charges their bytes to the
//! budget; these functions only merge them into place.

use std::fmt;

use serde::de::{Deserializer as _, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::budget::{tree_cost, ContentBudget};
use crate::delta::Held;
use crate::message::{push_item, ContentBlock, Logprobs};

/// Merges OpenRouter's reasoning details into the choice's reasoning block: the list is kept in
/// its extras, and a detail's signature or encrypted data also becomes the block's own.
pub(super) fn merge_reasoning_details(reasoning: &mut ContentBlock, details: Vec<Value>) {
    let ContentBlock::Reasoning {
        signature,
        data,
        extras,
        ..
    } = reasoning
    else {
        return;
    };
    let merged = match extras
        .entry("reasoning_details")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        Value::Array(merged) => merged,
        _ => return,
    };
    for detail in details {
        let Value::Object(detail) = detail else {
            continue;
        };
        if let Some(Value::String(sig)) = detail.get("signature") {
            if !sig.is_empty() {
                *signature = Some(sig.clone());
            }
        }
        if detail.get("type").and_then(Value::as_str) == Some("reasoning.encrypted") {
            if let Some(Value::String(encrypted)) = detail.get("data") {
                data.get_or_insert_with(|| encrypted.clone());
            }
        }
        merge_detail(merged, detail);
    }
}

/// Appends a chunk's log probabilities (raw JSON): the lists under each key grow, a key seen
/// first is taken as sent. Returns how many entries (values, nested ones included) were kept,
/// for the fold to charge: an empty `{}` entry costs a value however short its text.
///
/// Read member by member and a list entry by entry: parsed whole, a list of a few hundred
/// kilobytes of `{}` entries held 55 times its text while it was read (72 bytes a value, and a
/// growing list's spare half).
pub(super) fn append_logprobs(logprobs: &mut Option<Logprobs>, raw: &str) -> usize {
    let mut kept = 0;
    let appender = Appender {
        logprobs,
        kept: &mut kept,
    };
    // The payload's parse checked the text: it is JSON, and anything but an object keeps nothing.
    let _ = serde_json::Deserializer::from_str(raw).deserialize_map(appender);
    kept
}

/// Merges the members of a log-probabilities object as they are read.
struct Appender<'l> {
    logprobs: &'l mut Option<Logprobs>,
    kept: &'l mut usize,
}

impl<'de> Visitor<'de> for Appender<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a log-probabilities object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let logprobs = self.logprobs.get_or_insert_with(Logprobs::default);
        while let Some(key) = members.next_key::<String>()? {
            let value: &RawValue = members.next_value()?;
            // Appended items cost their values; a new key, its whole value.
            let appends = logprobs.contains(&key);
            *self.kept += if value.get().trim_ascii_start().starts_with('[') {
                let mut items = String::new();
                let entries = serde_json::Deserializer::from_str(value.get())
                    .deserialize_seq(Items(&mut items))
                    .map_err(A::Error::custom)?;
                let entries = if appends { entries } else { entries + 1 };
                if logprobs.merge_list(&key, &items) {
                    entries
                } else {
                    0
                }
            } else {
                let value: Value = serde_json::from_str(value.get()).map_err(A::Error::custom)?;
                let entries = Held::of(&value).entries;
                if logprobs.merge(&key, &value) {
                    entries
                } else {
                    0
                }
            };
        }
        Ok(())
    }
}

/// Writes a list's entries, one parsed at a time, as compact text joined by commas; returns how
/// many values they hold, nested ones included.
struct Items<'t>(&'t mut String);

impl<'de> Visitor<'de> for Items<'_> {
    type Value = usize;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<usize, A::Error> {
        let mut entries = 0;
        while let Some(item) = items.next_element::<Value>()? {
            entries += Held::of(&item).entries;
            push_item(self.0, &item);
        }
        Ok(entries)
    }
}

/// A provider field as kept: what it costs to hold, so the fold charges it, and whether it was
/// too dense to parse and is kept as its JSON text (so the fold warns).
pub(super) struct Kept {
    pub(super) held: Held,
    pub(super) as_text: Option<usize>,
}

/// Keeps a provider field (raw JSON): the first non-null value wins, except that an object sent
/// again is merged into the one kept, member by member, a later value replacing an earlier one
/// (Azure's `content_filter_results` come with every chunk, and the verdict that filtered the
/// answer only with the last), and so is an array of objects keyed by `index` sent again, entry
/// by entry (Groq's `executed_tools`: a search's results and output come with its second
/// mention, the first has none). A value whose tree the budget has no room for
/// ([`ContentBudget::room_to_parse`], judged on the text before anything is built) is kept as
/// its JSON text in a string, its entries counted. What it costs to hold what was added, so the
/// fold charges it (a replaced
/// value is not refunded: the count errs on the safe side).
pub(super) fn keep_extra(
    extra: &mut Map<String, Value>,
    key: &str,
    raw: &str,
    budget: &ContentBudget,
) -> Option<Kept> {
    let merge = match extra.get(key) {
        Some(Value::Object(_)) => raw.trim_start().starts_with('{'),
        Some(Value::Array(kept)) if keyed_by_index(kept) => raw.trim_start().starts_with('['),
        Some(value) if !value.is_null() => return None,
        _ => false,
    };
    let entries = Held::entries_in_text(raw);
    if !budget.room_to_parse(tree_cost(entries, raw.len())) {
        extra.insert(key.to_owned(), Value::String(raw.to_owned()));
        let held = Held {
            entries: 1,
            bytes: key.len() + raw.len(),
        };
        return Some(Kept {
            held,
            as_text: Some(entries),
        });
    }
    let held = if merge {
        let held = match (
            extra.get_mut(key)?,
            serde_json::from_str::<Value>(raw).ok()?,
        ) {
            (Value::Object(kept), Value::Object(later)) => merge_object(kept, later),
            (Value::Array(kept), Value::Array(later)) if keyed_by_index(&later) => {
                merge_indexed(kept, later)
            }
            _ => return None,
        };
        (held != Held::default()).then_some(held)?
    } else {
        match serde_json::from_str::<Value>(raw) {
            Ok(value) if !value.is_null() => {
                let held = Held::of_member(key, &value);
                extra.insert(key.to_owned(), value);
                held
            }
            _ => return None,
        }
    };
    Some(Kept {
        held,
        as_text: None,
    })
}

/// Whether every entry of an array is an object with an integer `index` (and there is one).
fn keyed_by_index(entries: &[Value]) -> bool {
    !entries.is_empty()
        && entries
            .iter()
            .all(|entry| entry.get("index").is_some_and(Value::is_u64))
}

/// Merges the entries of `later` into those of `kept` with the same `index` (member by member),
/// appending an entry of a new index. Returns what the new values cost.
fn merge_indexed(kept: &mut Vec<Value>, later: Vec<Value>) -> Held {
    // An entry is sent again soon after it began: looking back a few entries keeps merging
    // linear (an index sent again later than that is kept as one more entry, never dropped).
    const INDEX_LOOK_BACK: usize = 8;
    let mut held = Held::default();
    for entry in later {
        let Value::Object(entry) = entry else {
            continue;
        };
        let same = kept
            .iter_mut()
            .rev()
            .take(INDEX_LOOK_BACK)
            .find(|kept| kept.get("index") == entry.get("index"));
        let added = match same {
            Some(Value::Object(same)) => merge_object(same, entry),
            _ => {
                let value = Value::Object(entry);
                let added = Held::of(&value);
                kept.push(value);
                added
            }
        };
        held.entries += added.entries;
        held.bytes += added.bytes;
    }
    held
}

/// Merges `later` into `kept`: objects member by member, any other non-null value replacing
/// a different one. Returns what the new values cost.
fn merge_object(kept: &mut Map<String, Value>, later: Map<String, Value>) -> Held {
    let mut held = Held::default();
    for (key, value) in later {
        if value.is_null() {
            continue;
        }
        match (kept.get_mut(&key), value) {
            (Some(Value::Object(inner)), Value::Object(more)) => {
                let added = merge_object(inner, more);
                held.entries += added.entries;
                held.bytes += added.bytes;
            }
            (Some(existing), value) if *existing == value => {}
            (_, value) => {
                let added = Held::of_member(&key, &value);
                held.entries += added.entries;
                held.bytes += added.bytes;
                kept.insert(key, value);
            }
        }
    }
    held
}

/// Merges one reasoning-details entry into the list: entries with the same `type` and `index`
/// are one entry streamed in pieces, whose `text`/`summary`/`data` append and whose other fields
/// take the first non-empty value (a signature, the latest).
fn merge_detail(merged: &mut Vec<Value>, detail: Map<String, Value>) {
    // Pieces of one entry arrive together: looking back a few entries keeps merging linear.
    const DETAIL_LOOK_BACK: usize = 8;
    let same = |entry: &&mut Value| {
        entry.get("type") == detail.get("type") && entry.get("index") == detail.get("index")
    };
    let Some(Value::Object(entry)) = merged.iter_mut().rev().take(DETAIL_LOOK_BACK).find(same)
    else {
        merged.push(Value::Object(detail));
        return;
    };
    for (key, value) in detail {
        match (key.as_str(), entry.get_mut(&key), value) {
            ("text" | "summary" | "data", Some(Value::String(existing)), Value::String(more)) => {
                existing.push_str(&more)
            }
            ("signature", _, Value::String(signature)) if !signature.is_empty() => {
                entry.insert(key, Value::String(signature));
            }
            (_, Some(existing), value) => {
                let empty = existing.is_null() || existing.as_str().is_some_and(str::is_empty);
                if empty {
                    *existing = value;
                }
            }
            (_, None, value) => {
                entry.insert(key, value);
            }
        }
    }
}
