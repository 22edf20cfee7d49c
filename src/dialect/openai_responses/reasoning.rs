//! The blocks of a Responses reasoning item's parts: its summary parts
//! (`reasoning_summary_text.*`) and its raw reasoning parts (`reasoning_text.*`, LM Studio,
//! DeepSeek, vLLM), told apart by parity so that neither kind lands in the other's block.

use super::{key, OpenAiResponsesDecoder, CHOICE};
use crate::delta::{BlockKey, Delta, DeltaSink, Held, TextKind};
use crate::error::Error;

/// The block of a reasoning item's summary part or reasoning-text part `index`. The two kinds
/// are told apart by parity: the kind the item streams first takes the even parts — part 0 is
/// the block its id and encrypted content went on at `output_item.added` — and the other kind
/// the odd ones. An item with reasoning text and no summary (LM Studio, DeepSeek, vLLM) is then
/// one block, as it is one item.
fn reasoning_part(index: Option<u64>, first_kind: bool) -> u32 {
    index
        .map_or(0, |index| u32::try_from(index).unwrap_or(u32::MAX))
        .saturating_mul(2)
        .saturating_add(u32::from(!first_kind))
}

/// A kind of part of a reasoning item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// A summary part (`summary_text`).
    Summary,
    /// A raw reasoning part (`reasoning_text`).
    Text,
}

impl OpenAiResponsesDecoder {
    /// The block of part `index` of this kind of the reasoning item at `output_index`.
    pub(super) fn reasoning_key(
        &mut self,
        output_index: u32,
        part: Part,
        index: Option<u64>,
        sink: &mut impl DeltaSink,
    ) -> Result<BlockKey, Error> {
        let text = part == Part::Text;
        let text_first = self.reasoning_order(output_index, text, sink)?;
        Ok(key(output_index, reasoning_part(index, text == text_first)))
    }

    /// More text of part `index` of this kind of the reasoning item at `output_index`.
    pub(super) fn reasoning_text(
        &mut self,
        output_index: u32,
        part: Part,
        index: Option<u64>,
        text: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let key = self.reasoning_key(output_index, part, index, sink)?;
        sink.apply(Delta::BlockText {
            choice: CHOICE,
            key,
            kind: TextKind::Reasoning,
            text,
        })
    }

    /// Whether the item's reasoning text came first; `text` says which kind of part comes now.
    fn reasoning_order(
        &mut self,
        output_index: u32,
        text: bool,
        sink: &mut impl DeltaSink,
    ) -> Result<bool, Error> {
        if let Some(&text_first) = self.text_first.get(&output_index) {
            return Ok(text_first);
        }
        sink.apply(Delta::Held(Held {
            entries: 1,
            bytes: 0,
        }))?;
        self.text_first.insert(output_index, text);
        Ok(text)
    }
}
