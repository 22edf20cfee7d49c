//! A message's start and end: `message_start` (its id, model and first usage, and the rule
//! for a second one), `message_delta` (the stop reason, the stop sequence and container, the
//! final usage) and how Anthropic's usage maps to the neutral counts.
//!
//! One stream carries one message; a `message_start` of the open message again (a proxy's
//! retry that repeats it) changes nothing, and one of *another* message while the first is open
//! is malformed — its blocks would reuse the first one's indexes, so a thinking
//! block would join two messages' text under the second one's signature, which Anthropic then
//! refuses. The Vercel AI SDK fails the same stream the same way; read leniently, the other
//! message's blocks are blocks of their own after the first message's, each as it was sent.

use serde_json::value::RawValue;

use super::payload::{EventDelta, MessageStart};
use super::{AnthropicDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, MetadataDelta, UsageReport};
use crate::dialect::payload::keep_members;
use crate::dialect::usage::{apply_usage, UsageObject};
use crate::error::{Error, ErrorKind};

impl AnthropicDecoder {
    pub(super) fn message_start(
        &mut self,
        message: Option<MessageStart<'_>>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Some(message) = message else {
            return sink.apply(Delta::Choice { choice: CHOICE });
        };
        if let Some(id) = message.id.as_str() {
            match &self.message_id {
                Some(open) if open == id => return Ok(()),
                Some(open) => {
                    // Strict, the stream ends here. Lenient, the event is skipped with a
                    // warning and the other message's blocks follow as blocks of their own.
                    let error = another_message(open, id);
                    self.end_unstopped_blocks(sink)?;
                    self.message_id = Some(id.to_owned());
                    self.messages_after_the_first += 1;
                    return Err(error);
                }
                None => self.message_id = Some(id.to_owned()),
            }
        }
        let usage = message
            .usage
            .map(RawValue::get)
            .and_then(UsageObject::parse);
        sink.apply(Delta::Metadata(MetadataDelta {
            id: message.id.as_str(),
            model: message.model.as_str(),
            service_tier: usage.as_ref().and_then(|usage| usage.text("service_tier")),
            ..MetadataDelta::default()
        }))?;
        sink.apply(Delta::Choice { choice: CHOICE })?;
        if let Some(raw) = message.usage {
            let report = usage.map(|usage| self.usage(usage));
            apply_usage(raw.get(), report, sink)?;
        }
        if let Some(reason) = message.stop_reason.as_str() {
            sink.apply(Delta::Finish {
                choice: CHOICE,
                reason,
            })?;
        }
        Ok(())
    }

    pub(super) fn message_delta(
        &mut self,
        delta: Option<EventDelta<'_>>,
        usage: Option<&RawValue>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if let Some(raw) = usage {
            let report = UsageObject::parse(raw.get()).map(|usage| self.usage(usage));
            apply_usage(raw.get(), report, sink)?;
        }
        let Some(delta) = delta else {
            return Ok(());
        };
        keep_members(
            None,
            [
                ("stop_sequence", delta.stop_sequence),
                ("stop_details", delta.stop_details),
                ("container", delta.container),
            ],
            sink,
        )?;
        match delta.stop_reason.as_str() {
            Some(reason) => {
                // The finish makes every call final: the unstopped ones end first.
                self.end_unstopped_blocks(sink)?;
                sink.apply(Delta::Finish {
                    choice: CHOICE,
                    reason,
                })
            }
            None => Ok(()),
        }
    }

    /// Maps a usage object: `input_tokens` counts cached tokens too (input + cache reads +
    /// cache writes), as LangChain and the Anthropic SDK's totals do.
    pub(super) fn usage<'a>(&mut self, usage: UsageObject<'a>) -> UsageReport<'a> {
        let counts = &mut self.input;
        for (field, value) in [
            (&mut counts.input, usage.count(&["input_tokens"])),
            (
                &mut counts.cache_read,
                usage.count(&["cache_read_input_tokens"]),
            ),
            (
                &mut counts.cache_creation,
                usage.count(&["cache_creation_input_tokens"]),
            ),
        ] {
            if value.is_some() {
                *field = value;
            }
        }
        let input_tokens = match (counts.input, counts.cache_read, counts.cache_creation) {
            (None, None, None) => None,
            (input, read, creation) => Some(
                input
                    .unwrap_or(0)
                    .saturating_add(read.unwrap_or(0))
                    .saturating_add(creation.unwrap_or(0)),
            ),
        };
        let counts = UsageReport {
            input_tokens,
            output_tokens: usage.count(&["output_tokens"]),
            cache_read: counts.cache_read,
            cache_creation: counts.cache_creation,
            reasoning: usage.count(&["output_tokens_details", "thinking_tokens"]),
            ..UsageReport::default()
        };
        usage.into_report(counts)
    }
}

/// A `message_start` of message `id` while message `open` has not stopped.
fn another_message(open: &str, id: &str) -> Error {
    Error::new(
        ErrorKind::Malformed,
        format!(
            "message_start of message {id} while message {open} is open (one message a stream)"
        ),
    )
}
