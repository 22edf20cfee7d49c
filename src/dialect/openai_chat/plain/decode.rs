//! What the strict reader read, as deltas: the very ones the general path applies for the same
//! chunk, in the same order. Apart from the reading in `mod.rs`, which decides whether a chunk
//! is plain at all, and applies nothing.

use super::{PlainChoice, PlainChunk};
use crate::delta::{Delta, DeltaSink, MetadataDelta, RawUsage, ToolCallDelta, UsageReport};
use crate::dialect::cursor::Scanned;
use crate::dialect::usage::apply_usage;
use crate::error::Error;

impl PlainChunk<'_> {
    /// The deltas the general path applies for the whole chunk, in the same order.
    pub(in crate::dialect::openai_chat) fn decode(
        &mut self,
        scratch: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        self.decode_metadata(sink)?;
        self.decode_choices(scratch, sink)?;
        self.decode_usage(sink)
    }

    /// The chunk's top-level members but its choices and usage, as one metadata delta (applied
    /// even when empty, as the general path does).
    pub(in crate::dialect::openai_chat) fn decode_metadata(
        &self,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            id: self.id,
            model: self.model,
            created: self.created,
            system_fingerprint: self.system_fingerprint.flatten(),
            service_tier: self.service_tier.flatten(),
        }))
    }

    /// The metadata of members after a known prefix, if there is any: the stream has started
    /// (the prefix came from an applied chunk), so an empty metadata delta would change nothing.
    pub(in crate::dialect::openai_chat) fn decode_later_metadata(
        &self,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let any = self.id.is_some()
            || self.model.is_some()
            || self.created.is_some()
            || self.system_fingerprint.flatten().is_some()
            || self.service_tier.flatten().is_some();
        if any {
            self.decode_metadata(sink)?;
        }
        Ok(())
    }

    /// Whether there is one choice (not none).
    pub(in crate::dialect::openai_chat) fn has_one_choice(&self) -> bool {
        self.choice.is_some()
    }

    pub(in crate::dialect::openai_chat) fn decode_choices(
        &self,
        scratch: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        match &self.choice {
            Some(choice) => choice.decode(scratch, sink),
            None => Ok(()),
        }
    }

    /// Applies the usage report, which it gives away.
    pub(in crate::dialect::openai_chat) fn decode_usage(
        &mut self,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        match self.usage.take().flatten() {
            Some(usage) => {
                let report = UsageReport {
                    raw: Some(RawUsage::Read {
                        read: usage.read,
                        text: usage.text,
                    }),
                    ..usage.counts.finish()
                };
                apply_usage(usage.text, Some(report), sink)
            }
            None => Ok(()),
        }
    }
}

impl PlainChoice<'_> {
    fn decode(&self, scratch: &str, sink: &mut impl DeltaSink) -> Result<(), Error> {
        let choice = self.index.flatten().unwrap_or(0);
        sink.apply(Delta::Choice { choice })?;
        // As the general path: the first of the two reasoning fields that has text.
        let reasoning = [
            resolve(self.reasoning_content, scratch),
            resolve(self.reasoning, scratch),
        ]
        .into_iter()
        .flatten()
        .find(|text| !text.is_empty());
        if let Some(text) = reasoning {
            sink.apply(Delta::Reasoning { choice, text })?;
        }
        if let Some(text) = resolve(self.content, scratch) {
            sink.apply(Delta::Text { choice, text })?;
        }
        if let Some(text) = resolve(self.refusal, scratch) {
            sink.apply(Delta::Refusal { choice, text })?;
        }
        if let Some(call) = &self.call {
            sink.apply(Delta::ToolCall(ToolCallDelta {
                choice,
                index: call.index.flatten(),
                id: call.id,
                name: call.name,
                arguments: resolve(call.arguments.map(Some), scratch).unwrap_or(""),
            }))?;
        }
        if let Some(reason) = self.finish_reason.flatten() {
            sink.apply(Delta::Finish { choice, reason })?;
        }
        Ok(())
    }
}

/// A nullable string's text, from the payload or from `scratch`.
fn resolve<'s, 'a: 's>(text: Option<Option<Scanned<'a>>>, scratch: &'s str) -> Option<&'s str> {
    text.flatten().map(|text| text.resolve(scratch))
}
