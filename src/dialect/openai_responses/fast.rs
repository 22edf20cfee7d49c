//! The fast path of OpenAI Responses: the flat text and argument delta events that make up
//! nearly all of a stream, read with the strict reader in any member order.

use super::payload::Event;
use super::OpenAiResponsesDecoder;
use crate::delta::DeltaSink;
use crate::dialect::cursor::{for_each_member, set_once, Cursor, Scanned};
use crate::dialect::lenient::{LenientCount, LenientText};
use crate::dialect::text::Text;
use crate::error::Error;
use crate::framing::Frame;

/// Decodes a flat event as the general path would; `None` for any other payload, which the
/// general path then reads (or reports).
pub(super) fn decode(
    decoder: &mut OpenAiResponsesDecoder,
    frame: &Frame<'_>,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    let mut scratch = std::mem::take(&mut decoder.scratch);
    let decoded = read(data, &mut scratch).map(|event| decoder.apply(&event, frame, sink));
    decoder.scratch = scratch;
    decoded
}

/// Reads an event whose members are all strings and unsigned integers (and, among the members
/// it does not read, `null`, booleans and empty arrays) without serde: the text and argument
/// deltas that make up nearly all of a stream, in any member order. `None` for anything else —
/// nested objects, a member twice, escapes outside the `delta` — which the general parse then
/// reads (or reports), so the event is the one it would have produced.
fn read<'a>(data: &'a str, scratch: &'a mut String) -> Option<Event<'a>> {
    let mut cursor = Cursor::new(data);
    let (mut kind, mut item_id, mut delta, mut arguments) = (None, None, None, None);
    let (mut output_index, mut content_index, mut summary_index) = (None, None, None);
    let (mut image, mut image_index, mut format) = (None, None, None);
    let mut command_index = None;
    for_each_member(&mut cursor, |cursor, key| match key {
        "type" => set_once(&mut kind, cursor.plain_string()?),
        "output_index" => set_once(&mut output_index, cursor.count()?),
        "content_index" => set_once(&mut content_index, cursor.count()?),
        "summary_index" => set_once(&mut summary_index, cursor.count()?),
        "item_id" => set_once(&mut item_id, cursor.plain_string()?),
        "arguments" => set_once(&mut arguments, cursor.plain_string()?),
        "delta" => set_once(&mut delta, cursor.string(scratch)?),
        "partial_image_b64" => set_once(&mut image, cursor.plain_string()?),
        "partial_image_index" => set_once(&mut image_index, cursor.count()?),
        "output_format" => set_once(&mut format, cursor.plain_string()?),
        "command_index" => set_once(&mut command_index, cursor.count()?),
        "response" | "item" | "annotation" | "part" | "text" | "refusal" | "input" | "command" => {
            None
        }
        _ => cursor.skip_value(),
    })?;
    if !cursor.at_end() {
        return None;
    }
    let scratch: &'a String = scratch;
    let text = |text: Option<&'a str>| LenientText(text.map(|text| Text(text.into())));
    Some(Event {
        kind: Text(kind?.into()),
        output_index: LenientCount(output_index),
        content_index: LenientCount(content_index),
        summary_index: LenientCount(summary_index),
        item_id: text(item_id),
        delta: text(delta.map(|delta: Scanned<'a>| delta.resolve(scratch))),
        arguments: text(arguments),
        response: None,
        item: None,
        annotation: None,
        text: LenientText(None),
        refusal: LenientText(None),
        input: LenientText(None),
        partial_image_b64: text(image),
        partial_image_index: LenientCount(image_index),
        output_format: text(format),
        command_index: LenientCount(command_index),
        command: LenientText(None),
        logprobs: None,
        part: None,
    })
}

#[cfg(test)]
mod tests {
    use crate::dialect::openai_responses::OpenAiResponsesDecoder;
    use crate::dialect::test_support::{assert_same_deltas, Path};

    #[test]
    fn flat_events_read_as_the_general_parse_reads_them() {
        let payloads = [
            r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"q\": [\u00e9 \ud83d\ude00"}"#,
            r#"{"delta":"**Thinking**\n\nI","item_id":"rs_1","obfuscation":"xg\"dy","output_index":0,"sequence_number":4,"summary_index":0,"type":"response.reasoning_summary_text.delta"}"#,
            r#"{ "type" : "response.output_text.delta" , "delta" : "" , "logprobs" : [ ] , "x" : null , "y" : true , "z" : false }"#,
            r#"{"type":"response.function_call_arguments.done","output_index":18446744073709551615,"arguments":"{}"}"#,
            r#"{"type":"error","code":"server_error","message":"boom","param":null,"sequence_number":1}"#,
        ];
        for payload in payloads {
            let path = assert_same_deltas::<OpenAiResponsesDecoder>(&[], payload);
            assert_eq!(path, Path::Fast, "{payload}");
        }
    }

    #[test]
    fn progress_and_partial_images_read_as_the_general_parse_reads_them() {
        let added = r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"image_generation_call","id":"ig_1","status":"in_progress"}}"#;
        let payloads = [
            r#"{"type":"response.image_generation_call.generating","item_id":"ig_1","output_index":1,"sequence_number":5}"#,
            r#"{"type":"response.image_generation_call.partial_image","item_id":"ig_1","output_index":1,"partial_image_index":0,"partial_image_b64":"UklGR","size":"1536x1024","quality":"low","background":"opaque","output_format":"webp","sequence_number":6}"#,
            r#"{"type":"response.image_generation_call.partial_image","item_id":"ig_1","partial_image_index":2,"partial_image_b64":"iVBOR"}"#,
        ];
        for payload in payloads {
            let path = assert_same_deltas::<OpenAiResponsesDecoder>(&[added], payload);
            assert_eq!(path, Path::Fast, "{payload}");
        }
    }

    #[test]
    fn flat_events_read_every_member_that_places_their_delta() {
        let added = r#"{"type":"response.output_item.added","output_index":3,"item":{"type":"message","id":"msg_1"}}"#;
        let payloads = [
            r#"{"type":"response.output_text.delta","item_id":"msg_1","content_index":2,"delta":"Hi"}"#,
            r#"{"type":"response.refusal.delta","item_id":"msg_1","content_index":1,"delta":"No"}"#,
            r#"{"type":"response.reasoning_summary_text.delta","item_id":"msg_1","summary_index":2,"delta":"Hm"}"#,
            r#"{"type":"response.reasoning_text.delta","output_index":4,"content_index":1,"delta":"So"}"#,
            r#"{"type":"response.function_call_arguments.done","item_id":"msg_1","arguments":"[1, 2]"}"#,
        ];
        for payload in payloads {
            let path = assert_same_deltas::<OpenAiResponsesDecoder>(&[added], payload);
            assert_eq!(path, Path::Fast, "{payload}");
        }
    }

    #[test]
    fn other_payloads_are_left_to_the_general_parse() {
        let payloads = [
            // Nested members, or values it does not read.
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"message"}}"#,
            r#"{"type":"response.completed","response":null}"#,
            r#"{"type":"response.output_text.delta","delta":"Hi","logprobs":[{"token":"Hi"}]}"#,
            r#"{"type":"response.output_text.delta","delta":"Hi","output_index":-1}"#,
            r#"{"type":"response.output_text.delta","delta":"Hi","output_index":1.5}"#,
            r#"{"type":"response.output_text.delta","delta":null}"#,
            r#"{"type":"response.output_text.delta","item_id":"a\"b"}"#,
            r#"{"t\u0079pe":"response.output_text.delta"}"#,
            // What the general parse refuses.
            r#"{"type":"response.output_text.delta","delta":"a","delta":"b"}"#,
            r#"{"type":"response.output_text.delta","delta":"\ude00"}"#,
            r#"{"delta":"Hi"}"#,
            r#"{"type":"response.output_text.delta",}"#,
            r#"{"type":"response.output_text.delta"} x"#,
            r#"{}"#,
        ];
        for payload in payloads {
            let path = assert_same_deltas::<OpenAiResponsesDecoder>(&[], payload);
            assert_eq!(path, Path::General, "{payload}");
        }
    }
}
