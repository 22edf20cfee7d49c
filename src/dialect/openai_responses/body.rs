//! A whole (non-streamed) Responses body, `{"object":"response",…}` — what some proxies
//! (LiteLLM) answer even to a streamed request: read into the deltas its events would have
//! carried (each output item added, its text, the item done, then `response.completed`), so
//! the message and the live events are the ones its stream would give.

use serde_json::value::RawValue;

use super::payload::{Item, ResponseObject};
use super::reasoning::Part;
use super::{key, position_index, OpenAiResponsesDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, MetadataDelta, TextKind};
use crate::error::Error;

impl OpenAiResponsesDecoder {
    /// Decodes `data` if it is a whole response body; `None` if it is not one.
    pub(super) fn whole_response(
        &mut self,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        let response: ResponseObject<'_> = serde_json::from_str(data).ok()?;
        (response.object.as_str() == Some("response")).then(|| self.body(&response, sink))
    }

    fn body(
        &mut self,
        response: &ResponseObject<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            id: response.id.as_str(),
            model: response.model.as_str(),
            ..MetadataDelta::default()
        }))?;
        sink.apply(Delta::Choice { choice: CHOICE })?;
        for (position, raw) in response.output.iter().flatten().enumerate() {
            if let Ok(item) = serde_json::from_str::<Item<'_>>(raw.get()) {
                self.unstreamed_item(position_index(position), raw, &item, sink)?;
            }
        }
        self.complete(response, sink)
    }

    /// An output item read as its events would have streamed it, under `output_index`: added,
    /// its text, done.
    pub(super) fn unstreamed_item(
        &mut self,
        output_index: u32,
        raw: &RawValue,
        item: &Item<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        self.item_added(output_index, raw, sink)?;
        item_text(output_index, item, sink)?;
        self.reasoning_parts(output_index, item, sink)?;
        self.item_done(output_index, raw, sink)
    }

    /// The summary parts and reasoning text parts (`reasoning_text`) of a finished reasoning
    /// item, as its `reasoning_summary_text.delta` and `reasoning_text.delta` events would have
    /// streamed them.
    fn reasoning_parts(
        &mut self,
        output_index: u32,
        item: &Item<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if item.kind.as_str() != Some("reasoning") {
            return Ok(());
        }
        for (part, summary) in item.summary.iter().flatten().enumerate() {
            if let Some(text) = summary.text.as_str() {
                self.reasoning_text(output_index, Part::Summary, Some(part as u64), text, sink)?;
            }
        }
        for (part, content) in item.content.iter().flatten().enumerate() {
            if let (Some("reasoning_text"), Some(text)) =
                (content.kind.as_str(), content.text.as_str())
            {
                self.reasoning_text(output_index, Part::Text, Some(part as u64), text, sink)?;
            }
        }
        Ok(())
    }
}

/// The text a finished item holds, as its deltas would have streamed it.
fn item_text(output_index: u32, item: &Item<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let parts = item.content.iter().flatten().enumerate();
    for (part, content) in parts {
        let (kind, text) = match content.kind.as_str() {
            Some("output_text") => (TextKind::Text, content.text.as_str()),
            Some("refusal") => (TextKind::Refusal, content.refusal.as_str()),
            _ => continue,
        };
        if let Some(text) = text {
            sink.apply(Delta::BlockText {
                choice: CHOICE,
                key: key(output_index, position_index(part)),
                kind,
                text,
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::dialect::openai_responses::OpenAiResponsesDecoder;
    use crate::dialect::test_support::{assert_same_deltas, decode, Path};

    #[test]
    fn a_frame_holding_a_whole_pretty_printed_body_decodes() {
        let body = "{\n  \"id\": \"resp_1\",\n  \"object\": \"response\",\n  \"status\": \"completed\",\n  \"output\": [\n    {\"type\": \"message\", \"id\": \"msg_1\", \"content\": [{\"type\": \"output_text\", \"text\": \"Hi\"}]}\n  ]\n}";
        decode::<OpenAiResponsesDecoder>(body).unwrap();
        assert_eq!(
            assert_same_deltas::<OpenAiResponsesDecoder>(&[], body),
            Path::General
        );
        // Anything else that is no event stays the parse error it was.
        let error = decode::<OpenAiResponsesDecoder>(r#"{"object":"list"}"#).unwrap_err();
        assert!(
            error.to_string().contains("missing field `type`"),
            "{error}"
        );
    }
}
