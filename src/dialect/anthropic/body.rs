//! A whole (non-streamed) Messages body, `{"type":"message",…}` — what some proxies (LiteLLM)
//! answer even to a streamed request: read into the very deltas its events would have carried
//! (`message_start`, each block's start and stop, `message_delta`, `message_stop`), so the
//! message and the live events are the ones its stream would give.

use super::payload::MessageStart;
use super::{AnthropicDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink};
use crate::dialect::lenient::LenientText;
use crate::dialect::payload::{keep_members, parse_payload};
use crate::error::Error;
use crate::framing::Frame;

impl AnthropicDecoder {
    /// Decodes a whole message body, `data` being the payload of `frame`.
    pub(super) fn whole_message(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let mut message: MessageStart<'_> = parse_payload::<Self, _>(frame, data)?;
        // The stop reason comes after the content, as `message_delta` brings it.
        let stop_reason = std::mem::take(&mut message.stop_reason);
        let stop_sequence = message.stop_sequence.take();
        let container = message.container.take();
        let context_management = message.context_management.take();
        let content = message.content.take().unwrap_or_default();
        self.message_start(Some(message), sink)?;
        for (position, raw) in content.into_iter().enumerate() {
            let index = u32::try_from(position).unwrap_or(u32::MAX);
            self.block_start(index, self.block_key(index), raw, sink)?;
            self.block_stop(index, sink)?;
        }
        keep_members(
            None,
            [
                ("stop_sequence", stop_sequence),
                ("container", container),
                ("context_management", context_management),
            ],
            sink,
        )?;
        if let LenientText(Some(reason)) = &stop_reason {
            sink.apply(Delta::Finish {
                choice: CHOICE,
                reason: reason.as_str(),
            })?;
        }
        sink.apply(Delta::Done)
    }
}

#[cfg(test)]
mod tests {
    use crate::dialect::anthropic::AnthropicDecoder;
    use crate::dialect::test_support::{assert_same_deltas, decode, Path};

    #[test]
    fn a_frame_holding_a_whole_pretty_printed_body_decodes() {
        let body = "{\n  \"id\": \"msg_1\",\n  \"type\": \"message\",\n  \"model\": \"claude\",\n  \"content\": [\n    {\"type\": \"text\", \"text\": \"Hi\"},\n    {\"type\": \"tool_use\", \"id\": \"toolu_1\", \"name\": \"f\", \"input\": {\"a\": 1}}\n  ],\n  \"stop_reason\": \"tool_use\",\n  \"usage\": {\"input_tokens\": 3, \"output_tokens\": 4}\n}";
        decode::<AnthropicDecoder>(body).unwrap();
        assert_eq!(
            assert_same_deltas::<AnthropicDecoder>(&[], body),
            Path::General
        );
    }
}
