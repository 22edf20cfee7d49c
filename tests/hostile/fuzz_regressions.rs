//! Inputs the fuzz targets in `fuzz/` found breaking a rule, each kept as a regression test.

use deltafold::framing::{FrameDecoder, FramingError, NdjsonDecoder, SseDecoder};
use deltafold::{ContentBlock, Event, Options};
use serde_json::{json, Value};

use crate::{every_cut, finish, first_text, run, stream, text, tool};

/// fuzz/sse_decoder: a line that exactly fills the event limit was accepted when its line end
/// arrived with the next byte, and refused when the line end was the last byte of a push (the
/// size check counted the consumed line end).
#[test]
fn a_line_that_exactly_fills_the_event_limit_is_accepted_however_it_is_cut() {
    let input = b"data: 0123456789\n\n";
    let decode = |pieces: &[&[u8]]| -> Result<Vec<String>, FramingError> {
        let mut decoder = SseDecoder::with_max_event_bytes(16);
        let mut data = Vec::new();
        for piece in pieces {
            decoder.push(piece);
            while let Some(frame) = decoder.next_frame()? {
                data.push(frame.data.to_owned());
            }
        }
        Ok(data)
    };
    let whole = decode(&[input]);
    assert_eq!(whole, Ok(vec!["0123456789".to_owned()]));
    for cut in 0..=input.len() {
        assert_eq!(
            decode(&[&input[..cut], &input[cut..]]),
            whole,
            "cut at byte {cut}"
        );
    }

    // The longest line of a whole stream exactly fills the limit.
    let body = stream(&[&text("hi"), &finish("stop"), "[DONE]"]);
    let longest = body.lines().map(str::len).max().unwrap_or_default();
    let options = Options::new().max_event_bytes(longest);
    for run in every_cut(body.as_bytes(), options) {
        assert_eq!(first_text(&run.result.unwrap()), "hi");
    }
}

/// fuzz/pipeline and fuzz/sse_decoder: the same for a newline-delimited line ended by CRLF: a
/// line that exactly filled the limit was refused when its CR was the last byte of a push (the
/// CR counted as content until the LF came).
#[test]
fn an_ndjson_line_that_exactly_fills_the_limit_is_accepted_however_it_is_cut() {
    let input = b"{\"a\":\"01234567\"}\r\n";
    let decode = |pieces: &[&[u8]]| -> Result<Vec<String>, FramingError> {
        let mut decoder = NdjsonDecoder::with_max_line_bytes(16);
        let mut lines = Vec::new();
        for piece in pieces {
            decoder.push(piece);
            while let Some(frame) = decoder.next_frame()? {
                lines.push(frame.data.to_owned());
            }
        }
        Ok(lines)
    };
    let whole = decode(&[input]);
    assert_eq!(whole, Ok(vec!["{\"a\":\"01234567\"}".to_owned()]));
    for cut in 0..=input.len() {
        assert_eq!(
            decode(&[&input[..cut], &input[cut..]]),
            whole,
            "cut at byte {cut}"
        );
    }

    // An Ollama stream whose longest line exactly fills the limit.
    let body = concat!(
        "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":false}\r\n",
        "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true}\r\n",
    );
    let longest = body
        .lines()
        .map(|line| line.trim_end().len())
        .max()
        .unwrap_or_default();
    let options = Options::new().max_event_bytes(longest);
    for run in every_cut(body.as_bytes(), options) {
        assert_eq!(first_text(&run.result.unwrap()), "hi");
    }
}

/// fuzz/pipeline: a tool-call fragment after its choice's finish reason was shown live (a
/// `ToolCallArgumentsDelta`) and appended to the arguments, but the call had already been
/// parsed, so the final message silently kept the arguments without it.
#[test]
fn tool_call_arguments_after_the_finish_reason_are_not_lost() {
    let body = stream(&[
        &tool(
            json!({"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{\"a\":"}}),
        ),
        &finish("tool_calls"),
        &tool(json!({"index": 0, "function": {"arguments": "1}"}})),
        "[DONE]",
    ]);
    let run = run([body.as_bytes()], Options::new());
    let streamed: String = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallArgumentsDelta { delta, .. } => Some(delta.as_ref()),
            _ => None,
        })
        .collect();
    let completion = run.result.unwrap();
    let message = completion.message().unwrap();
    match &message.content[..] {
        [ContentBlock::ToolCall(call)] => {
            assert_eq!(
                serde_json::from_str::<Value>(&streamed).unwrap(),
                json!(call.args)
            )
        }
        [ContentBlock::InvalidToolCall(call)] => assert_eq!(call.args, streamed),
        other => panic!("expected one call, got {other:?}"),
    }
}

/// fuzz/pipeline: an Anthropic text delta for an earlier content block, after a later block
/// started. The `index` names the block (issue 24, item 14): the delta goes on in block 0, as
/// the Anthropic SDK's `accumulate_event` has it (block 0 `AC`, block 1 `B`), where deltafold
/// once made a third block. The `TextDelta` events say no block, so they show `ABC`; the
/// choice's finish brings a `TextReplaced` with `ACB`, so a live display ends on the message.
#[test]
fn an_anthropic_delta_to_an_earlier_block_goes_on_in_that_block() {
    let events = [
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"A"}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"B"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"C"}}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    let body: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    let run = run([body.as_bytes()], Options::new());
    let mut live = String::new();
    let mut replaced = Vec::new();
    for event in &run.events {
        match event {
            Event::TextDelta { text, .. } => live.push_str(text),
            Event::TextReplaced { text, .. } => {
                replaced.push(live.clone());
                live = text.to_string();
            }
            _ => {}
        }
    }
    assert_eq!(replaced, ["ABC"]);
    assert_eq!(live, "ACB");
    let completion = run.result.unwrap();
    assert_eq!(first_text(&completion), "ACB");
    let blocks = &completion.message().unwrap().content;
    assert_eq!(blocks, &[ContentBlock::text("AC"), ContentBlock::text("B")]);
}
