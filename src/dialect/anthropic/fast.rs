//! The fast path of Anthropic: the `content_block_delta` events that make up nearly all of a
//! stream, read with the strict reader in the one byte layout Anthropic sends.

use super::payload::EventDelta;
use super::AnthropicDecoder;
use crate::delta::DeltaSink;
use crate::dialect::cursor::Cursor;
use crate::dialect::lenient::LenientText;
use crate::dialect::text::Text;
use crate::error::Error;
use crate::framing::Frame;

/// Decodes a text, thinking or tool-input fragment as the general path would; `None` for any
/// other payload, which the general path then reads (or reports).
pub(super) fn decode(
    decoder: &mut AnthropicDecoder,
    _frame: &Frame<'_>,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    let mut scratch = std::mem::take(&mut decoder.scratch);
    let decoded = read(data, &mut scratch)
        .map(|(index, delta)| decoder.block_delta(index, decoder.block_key(index), delta, sink));
    decoder.scratch = scratch;
    decoded
}

/// The delta types [`read`] reads, each with its one field.
const COMMON_DELTAS: [(&str, &str); 3] = [
    ("text_delta", "text"),
    ("input_json_delta", "partial_json"),
    ("thinking_delta", "thinking"),
];

/// Reads a `content_block_delta` event in the exact shape Anthropic sends it
/// (`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"…"}}`, with or
/// without spaces before the closing braces) without serde: its block index and the delta the
/// general parse would have produced. `None` for anything else,
/// which the general parse then reads (or reports).
fn read<'a>(data: &'a str, scratch: &'a mut String) -> Option<(u32, EventDelta<'a>)> {
    let mut cursor = Cursor::new(data);
    if !cursor.eat(r#"{"type":"content_block_delta","index":"#) {
        return None;
    }
    let index = u32::try_from(cursor.count()?).ok()?;
    if !cursor.eat(r#","delta":{"type":""#) {
        return None;
    }
    let (kind, field) = COMMON_DELTAS
        .into_iter()
        .find(|(kind, _)| cursor.eat(kind))?;
    if !(cursor.eat(r#"",""#) && cursor.eat(field) && cursor.eat(r#"":"#)) {
        return None;
    }
    let text = cursor.string(scratch)?;
    for _ in 0..2 {
        cursor.skip_whitespace();
        if !cursor.eat("}") {
            return None;
        }
    }
    if !cursor.at_end() {
        return None;
    }
    let scratch: &'a String = scratch;
    let text = LenientText(Some(Text(text.resolve(scratch).into())));
    let mut delta = EventDelta {
        kind: LenientText(Some(Text(kind.into()))),
        ..EventDelta::default()
    };
    match field {
        "text" => delta.text = text,
        "partial_json" => delta.partial_json = text,
        _ => delta.thinking = text,
    }
    Some((index, delta))
}

#[cfg(test)]
mod tests {
    use crate::dialect::anthropic::AnthropicDecoder;
    use crate::dialect::test_support::{assert_same_deltas, Path};

    #[test]
    fn common_deltas_read_as_the_general_parse_reads_them() {
        let payloads = [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"a \"b\" \\ \n \u00e9 \ud83d\ude00"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\": ["}   }"#,
            r#"{"type":"content_block_delta","index":4294967295,"delta":{"type":"thinking_delta","thinking":""}  } "#,
        ];
        // The tool call the `input_json_delta` continues.
        let start = r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#;
        for payload in payloads {
            let path = assert_same_deltas::<AnthropicDecoder>(&[start], payload);
            assert_eq!(path, Path::Fast, "{payload}");
        }
        // Without it, both paths refuse the fragment alike.
        let orphan = payloads[2];
        assert_eq!(
            assert_same_deltas::<AnthropicDecoder>(&[], orphan),
            Path::Fast
        );
        assert!(crate::dialect::test_support::decode::<AnthropicDecoder>(orphan).is_err());
    }

    #[test]
    fn other_payloads_are_left_to_the_general_parse() {
        let payloads = [
            // Other spacing or member order.
            r#"{ "type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"},"index":0}"#,
            // Other delta types, or more members.
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi","x":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"},"x":1}"#,
            // What the general parse refuses.
            r#"{"type":"content_block_delta","index":4294967296,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}"#,
        ];
        for payload in payloads {
            let path = assert_same_deltas::<AnthropicDecoder>(&[], payload);
            assert_eq!(path, Path::General, "{payload}");
        }
    }
}
