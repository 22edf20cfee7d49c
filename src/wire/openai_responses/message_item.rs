//! An assistant's text and refusals as the `message` item they came as. Text blocks given the
//! provider's item id (`msg_…`) go back as that item — with its id, its `phase` and its parts
//! (`output_text`, `refusal`), the SDK's `ResponseOutputMessageParam` — so that a reasoning item
//! is followed by the item it led to ("Item 'rs_…' was provided without its required following
//! item" otherwise). Text without an id goes back as one string (`EasyInputMessageParam`), with
//! its `phase`.

use serde_json::{json, Map, Value};

/// The text of one assistant `message` item being gathered from consecutive blocks.
#[derive(Default)]
pub(super) struct MessageItem<'m> {
    /// The item id the blocks carry (`None`: another provider's text, or an id left out).
    id: Option<&'m str>,
    phase: Option<&'m str>,
    /// The parts, when the item goes back with its id.
    parts: Vec<Value>,
    /// The text, when it goes back as one string.
    text: String,
    /// Whether any block was gathered.
    open: bool,
}

/// One piece of an assistant message item.
pub(super) enum Part<'m> {
    Text(&'m str),
    Refusal(&'m str),
}

impl<'m> MessageItem<'m> {
    /// Adds a part of the item `id` (with `phase`); a part of another item first ends the one
    /// being gathered into `out`. A part without an id or phase joins the item being gathered.
    pub(super) fn push(
        &mut self,
        part: Part<'m>,
        id: Option<&'m str>,
        phase: Option<&'m str>,
        out: &mut Vec<Value>,
    ) {
        let other_item = self.open
            && ((id.is_some() && id != self.id) || (phase.is_some() && phase != self.phase));
        if other_item {
            self.flush(out);
        }
        self.open = true;
        self.id = self.id.or(id);
        self.phase = self.phase.or(phase);
        match part {
            Part::Text(text) => {
                self.text.push_str(text);
                self.parts
                    .push(json!({"type": "output_text", "text": text, "annotations": []}));
            }
            Part::Refusal(refusal) => {
                self.text.push_str(refusal);
                self.parts
                    .push(json!({"type": "refusal", "refusal": refusal}));
            }
        }
    }

    /// Ends the item being gathered: with its id and parts when it has one, else its text as
    /// one string.
    pub(super) fn flush(&mut self, out: &mut Vec<Value>) {
        if !std::mem::take(&mut self.open) {
            return;
        }
        let mut item = Map::new();
        item.insert("type".into(), "message".into());
        item.insert("role".into(), "assistant".into());
        let text = std::mem::take(&mut self.text);
        let parts = std::mem::take(&mut self.parts);
        match self.id.take() {
            Some(id) => {
                item.insert("id".into(), id.into());
                item.insert("status".into(), "completed".into());
                item.insert("content".into(), Value::Array(parts));
            }
            None => {
                item.insert("content".into(), text.into());
            }
        }
        if let Some(phase) = self.phase.take() {
            item.insert("phase".into(), phase.into());
        }
        out.push(Value::Object(item));
    }
}
