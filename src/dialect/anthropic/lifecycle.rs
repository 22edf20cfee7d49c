//! A message's start: its id, model and first usage, and the rule for a second
//! `message_start`. One stream carries one message; a `message_start` of the open message again
//! (a proxy's retry that repeats it) changes nothing, and one of *another* message while the
//! first is open is malformed — its blocks would reuse the first one's indexes, so a thinking
//! block would join two messages' text under the second one's signature, which Anthropic then
//! refuses. The Vercel AI SDK fails the same stream the same way; read leniently, the other
//! message's blocks are blocks of their own after the first message's, each as it was sent.

use serde_json::value::RawValue;

use super::payload::MessageStart;
use super::{AnthropicDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, MetadataDelta};
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
