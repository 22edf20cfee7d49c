//! Provider fields beside the text: OpenRouter's reasoning details, log probabilities, and
//! every other field a provider sends, kept in `extra`. Each counts toward `max_message_bytes`.

use serde_json::{Map, Value};

use super::blocks::json_size;
use super::ResponseState;
use crate::delta::TextKind;
use crate::error::Error;
use crate::message::ContentBlock;

impl ResponseState {
    pub(super) fn merge_reasoning_details(
        &mut self,
        index: u32,
        details: Vec<Value>,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        self.count_bytes(details.iter().map(json_size).sum())?;
        let ContentBlock::Reasoning {
            signature,
            data,
            extras,
            ..
        } = self.choices[choice].block_mut(TextKind::Reasoning)
        else {
            return Ok(());
        };
        let merged = match extras
            .entry("reasoning_details")
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            Value::Array(merged) => merged,
            _ => return Ok(()),
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
        Ok(())
    }

    pub(super) fn append_logprobs(&mut self, index: u32, raw: &str) -> Result<(), Error> {
        let choice = self.choice(index)?;
        self.count_bytes(raw.len())?;
        let Ok(Value::Object(entries)) = serde_json::from_str::<Value>(raw) else {
            return Ok(());
        };
        let logprobs = self.choices[choice].logprobs.get_or_insert_with(Map::new);
        for (key, value) in entries {
            match (logprobs.get_mut(&key), value) {
                (Some(Value::Array(existing)), Value::Array(more)) => existing.extend(more),
                (None, value) if !value.is_null() => {
                    logprobs.insert(key, value);
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub(super) fn keep_extra(
        &mut self,
        choice: Option<u32>,
        key: &str,
        raw: &str,
    ) -> Result<(), Error> {
        let extra = match choice {
            Some(index) => {
                let choice = self.choice(index)?;
                &mut self.choices[choice].extra
            }
            None => &mut self.metadata.extra,
        };
        if extra.get(key).is_some_and(|value| !value.is_null()) {
            return Ok(());
        }
        if let Ok(value) = serde_json::from_str::<Value>(raw) {
            if !value.is_null() {
                extra.insert(key.to_owned(), value);
                self.count_bytes(key.len() + raw.len())?;
            }
        }
        Ok(())
    }
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
