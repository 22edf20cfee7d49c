//! Reconciling the message with a provider's authoritative closing events
//! ([`Final`](crate::delta::Final)): a proxy that drops or samples deltas leaves the streamed
//! text short or wrong, and the closing event's whole text then wins. A difference is a warning
//! on the message, so it is never silent; text that only lacked its end gets the missing part
//! as an ordinary text delta (and event), and text that differs otherwise is replaced, with an
//! event (`TextReplaced`…) giving what a live view should now show. The same event makes the
//! live text whole when deltas went to earlier blocks ([`make_live_text_whole`]).

use super::{Queued, ResponseState};
use crate::delta::{BlockKey, Final, TextKind};
use crate::error::Error;
use crate::message::ContentBlock;

impl ResponseState {
    /// Applies one authoritative value.
    pub(super) fn reconcile(&mut self, value: Final<'_>) -> Result<(), Error> {
        match value {
            Final::Text {
                choice,
                key,
                kind,
                text,
            } => self.final_text(choice, key, kind, text),
            Final::ResponseId(id) => {
                if !id.is_empty() && self.metadata.id.as_deref() != Some(id) {
                    self.metadata.id = Some(id.to_owned());
                }
                Ok(())
            }
            Final::ReasoningData { choice, key, data } => {
                self.charged(choice, data.len())?
                    .replace_reasoning_data(key, data);
                Ok(())
            }
        }
    }

    /// The whole text of a keyed block: kept as the deltas built it when they agree, else
    /// completed or replaced, with a warning.
    fn final_text(
        &mut self,
        choice: u32,
        key: BlockKey,
        kind: TextKind,
        text: &str,
    ) -> Result<(), Error> {
        if text.is_empty() {
            return Ok(());
        }
        let position = self.choice(choice)?;
        let message = self.charged(choice, 0)?;
        let (block, _, streamed) = message.append_keyed(kind, key, "");
        let current = message.text_of(Some(block));
        if current == text {
            self.events.end_text(position, block);
            return Ok(());
        }
        let warning = format!(
            "the deltas of {kind:?} block (item {}, part {}) added up to {streamed} bytes that \
             differ from the {} bytes of its final text; the final text is kept",
            key.item,
            key.part,
            text.len()
        );
        match text.strip_prefix(current) {
            Some(missing) => self.append_keyed(choice, key, kind, missing)?,
            None => {
                self.budget.charge(text.len())?;
                let message = self.charged(choice, 0)?;
                if let ContentBlock::Text { text: held, .. }
                | ContentBlock::Reasoning { text: held, .. }
                | ContentBlock::Refusal { refusal: held, .. } = message.block_at(Some(key), kind)
                {
                    text.clone_into(held);
                }
                // What was shown live no longer adds up to the message: say what it is now.
                let end = self.choices[position].joined_len(kind);
                self.events.push(Queued::Replaced {
                    kind,
                    choice: position,
                    end,
                });
            }
        }
        self.events.end_text(position, block);
        self.warn(warning)?;
        Ok(())
    }

    /// When deltas went to earlier blocks (their `TextDelta` events showed them at the end), a
    /// replacement event gives the choice's whole text: once, as the choice finishes, so an
    /// interleaving stream costs one copy of the text, not one per switch.
    pub(super) fn make_live_text_whole(&mut self, choice: usize) {
        for kind in self.choices[choice].take_out_of_order() {
            let end = self.choices[choice].joined_len(kind);
            self.events.push(Queued::Replaced { kind, choice, end });
        }
    }
}
