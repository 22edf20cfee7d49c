//! The fast path of Bedrock: the `contentBlockDelta` text messages that make up nearly all of a
//! `ConverseStream`, read with the strict reader in the one byte layout Bedrock sends
//! (`{"contentBlockIndex":0,"delta":{"text":"…"},"p":"…"}`, the `p` padding optional).

use super::payload::BlockDelta;
use super::{block_delta, BedrockDecoder};
use crate::delta::DeltaSink;
use crate::dialect::cursor::Cursor;
use crate::dialect::lenient::LenientText;
use crate::dialect::text::Text;
use crate::error::Error;
use crate::framing::Frame;

/// Decodes a text delta as the general path would; `None` for any other payload, which the
/// general path then reads (or reports).
pub(super) fn decode(
    decoder: &mut BedrockDecoder,
    frame: &Frame<'_>,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    if frame.event != Some("contentBlockDelta") {
        return None;
    }
    let mut scratch = std::mem::take(&mut decoder.scratch);
    let decoded = read(data, &mut scratch).map(|(index, delta)| block_delta(index, delta, sink));
    decoder.scratch = scratch;
    decoded
}

fn read<'a>(data: &'a str, scratch: &'a mut String) -> Option<(u32, BlockDelta<'a>)> {
    let mut cursor = Cursor::new(data);
    if !cursor.eat(r#"{"contentBlockIndex":"#) {
        return None;
    }
    let index = u32::try_from(cursor.count()?).ok()?;
    if !cursor.eat(r#","delta":{"text":"#) {
        return None;
    }
    let text = cursor.string(scratch)?;
    if !cursor.eat("}") {
        return None;
    }
    if cursor.eat(r#","p":"#) {
        cursor.plain_string()?;
    }
    if !(cursor.eat("}") && cursor.at_end()) {
        return None;
    }
    let scratch: &'a String = scratch;
    let delta = BlockDelta {
        text: LenientText(Some(Text(text.resolve(scratch).into()))),
        tool_use: None,
        reasoning_content: None,
        citation: None,
        tool_result: None,
        image: None,
    };
    Some((index, delta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::decoder::DialectDecoder;
    use crate::dialect::test_support::{frame, Recorded};

    /// The deltas of both paths, and whether the fast one read the payload.
    fn both_paths(data: &str) -> (String, String, bool) {
        let frame = frame(Some("contentBlockDelta"), data);
        let (mut fast, mut general) = (Recorded::default(), Recorded::default());
        let mut decoder = BedrockDecoder::default();
        let read = decoder.decode_fast(&frame, data, &mut fast).is_some();
        if !read {
            decoder.decode_general(&frame, data, &mut fast).unwrap();
        }
        BedrockDecoder::default()
            .decode_general(&frame, data, &mut general)
            .unwrap();
        (format!("{fast:?}"), format!("{general:?}"), read)
    }

    #[test]
    fn text_deltas_read_as_the_general_parse_reads_them() {
        for payload in [
            r#"{"contentBlockIndex":0,"delta":{"text":"OK"},"p":"abcdefghijklmnopqrstuvwx"}"#,
            r#"{"contentBlockIndex":3,"delta":{"text":"a \"b\"\n\u00e9"}}"#,
            r#"{"contentBlockIndex":1,"delta":{"text":""},"p":"ab"}"#,
        ] {
            let (fast, general, read) = both_paths(payload);
            assert!(read, "{payload}");
            assert_eq!(fast, general, "{payload}");
        }
    }

    #[test]
    fn other_payloads_are_left_to_the_general_parse() {
        for payload in [
            r#"{"delta":{"text":"OK"},"contentBlockIndex":0}"#,
            r#"{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}"#,
            r#"{"contentBlockIndex":0,"delta":{"text":"OK","x":1}}"#,
            r#"{"contentBlockIndex":0,"delta":{"text":"OK"},"p":"a","q":1}"#,
        ] {
            let (fast, general, read) = both_paths(payload);
            assert!(!read, "{payload}");
            assert_eq!(fast, general, "{payload}");
        }
    }
}
