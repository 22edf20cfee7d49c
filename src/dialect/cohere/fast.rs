//! The fast path of Cohere: the `content-delta`, `tool-plan-delta` and `tool-call-delta` events
//! that make up nearly all of a stream, read with the strict reader in the one byte layout
//! Cohere sends (`{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"…"}}}}`).

use super::{content_key, CohereDecoder, CHOICE, TOOL_PLAN};
use crate::delta::{Delta, DeltaSink, TextKind, ToolCallDelta};
use crate::dialect::cursor::Cursor;
use crate::error::Error;
use crate::framing::Frame;

/// What one of the common events adds.
enum Piece {
    Content { index: u32, kind: TextKind },
    ToolPlan,
    Arguments { index: u32 },
}

/// Decodes a common delta as the general path would; `None` for any other payload, which the
/// general path then reads (or reports).
pub(super) fn decode(
    decoder: &mut CohereDecoder,
    _frame: &Frame<'_>,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    let mut scratch = std::mem::take(&mut decoder.scratch);
    let decoded = read(data, &mut scratch).map(|(piece, text)| apply(decoder, piece, text, sink));
    decoder.scratch = scratch;
    decoded
}

fn apply(
    decoder: &mut CohereDecoder,
    piece: Piece,
    text: &str,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    match piece {
        // Empty text adds nothing, as on the general path.
        Piece::Content { .. } | Piece::ToolPlan if text.is_empty() => Ok(()),
        Piece::Content {
            index,
            kind: TextKind::Text,
        } => decoder.text(content_key(index), TextKind::Text, text, sink),
        Piece::Content { index, kind } => sink.apply(Delta::BlockText {
            choice: CHOICE,
            key: content_key(index),
            kind,
            text,
        }),
        Piece::ToolPlan => decoder.text(TOOL_PLAN, TextKind::Text, text, sink),
        Piece::Arguments { index } => sink.apply(Delta::ToolCall(ToolCallDelta {
            choice: CHOICE,
            index: Some(index),
            id: None,
            name: None,
            arguments: text,
        })),
    }
}

/// Reads one of the common events in Cohere's exact layout: what it adds, and the text.
fn read<'a>(data: &'a str, scratch: &'a mut String) -> Option<(Piece, &'a str)> {
    let mut cursor = Cursor::new(data);
    let piece = if cursor.eat(r#"{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"#) {
        Piece::ToolPlan
    } else if cursor.eat(r#"{"type":"content-delta","index":"#) {
        let index = u32::try_from(cursor.count()?).ok()?;
        if !cursor.eat(r#","delta":{"message":{"content":{""#) {
            return None;
        }
        let kind = if cursor.eat(r#"text":"#) {
            TextKind::Text
        } else if cursor.eat(r#"thinking":"#) {
            TextKind::Reasoning
        } else {
            return None;
        };
        Piece::Content { index, kind }
    } else if cursor.eat(r#"{"type":"tool-call-delta","index":"#) {
        let index = u32::try_from(cursor.count()?).ok()?;
        if !cursor.eat(r#","delta":{"message":{"tool_calls":{"function":{"arguments":"#) {
            return None;
        }
        Piece::Arguments { index }
    } else {
        return None;
    };
    let text = cursor.string(scratch)?;
    let closing = match piece {
        Piece::ToolPlan => 3,
        Piece::Content { .. } => 4,
        Piece::Arguments { .. } => 5,
    };
    for _ in 0..closing {
        if !cursor.eat("}") {
            return None;
        }
    }
    if !cursor.at_end() {
        return None;
    }
    let scratch: &'a String = scratch;
    Some((piece, text.resolve(scratch)))
}

#[cfg(test)]
mod tests {
    use crate::dialect::cohere::CohereDecoder;
    use crate::dialect::test_support::{assert_same_deltas, Path};

    #[test]
    fn common_deltas_read_as_the_general_parse_reads_them() {
        for payload in [
            r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi"}}}}"#,
            r#"{"type":"content-delta","index":1,"delta":{"message":{"content":{"text":"a \"b\"\n"}}}}"#,
            r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"hm"}}}}"#,
            r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":""}}}}"#,
            r#"{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" will"}}}"#,
            r#"{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"{\""}}}}}"#,
        ] {
            let path = assert_same_deltas::<CohereDecoder>(&[], payload);
            assert_eq!(path, Path::Fast, "{payload}");
        }
    }

    #[test]
    fn other_payloads_are_left_to_the_general_parse() {
        for payload in [
            r#"{"index":0,"type":"content-delta","delta":{"message":{"content":{"text":"Hi"}}}}"#,
            r#"{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi","x":1}}}}"#,
            r#"{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}"#,
            r#"{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}}}}"#,
        ] {
            let path = assert_same_deltas::<CohereDecoder>(&[], payload);
            assert_eq!(path, Path::General, "{payload}");
        }
    }
}
