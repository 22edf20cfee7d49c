//! Re-encoding a stream whose tool-call fragments are interleaved with text and reasoning: every
//! target must give back the same message — the same text, reasoning and calls with all their
//! arguments — although Anthropic and Responses keep one block (item) open at a time. From a
//! source that keys its blocks (Anthropic), the targets that key theirs keep the block order too.

use deltafold::encode::{Encoder, Target};
use deltafold::{AiMessage, Assembler, ContentBlock, Dialect, Options};

/// A block as the comparison sees it; adjacent text (or reasoning) runs are one.
#[derive(Debug, PartialEq)]
enum Shape {
    Text(String),
    Reasoning(String),
    Call {
        id: String,
        name: String,
        args: String,
    },
}

fn shapes(message: &AiMessage) -> Vec<Shape> {
    let mut shapes: Vec<Shape> = Vec::new();
    for block in &message.content {
        match (block, shapes.last_mut()) {
            (ContentBlock::Text { text, .. }, Some(Shape::Text(run))) => run.push_str(text),
            (ContentBlock::Text { text, .. }, _) => shapes.push(Shape::Text(text.clone())),
            (ContentBlock::Reasoning { text, .. }, Some(Shape::Reasoning(run))) => {
                run.push_str(text)
            }
            (ContentBlock::Reasoning { text, .. }, _) => {
                shapes.push(Shape::Reasoning(text.clone()))
            }
            (ContentBlock::ToolCall(call), _) => shapes.push(Shape::Call {
                id: call.id.clone(),
                name: call.name.clone(),
                args: serde_json::Value::Object(call.args.clone()).to_string(),
            }),
            (other, _) => panic!("unexpected block {other:?}"),
        }
    }
    shapes
}

/// Assembles `source`, re-encoding every event into `target` as it comes (in chunks of
/// `chunk` bytes), then assembles the re-encoded stream.
fn round_trip(source: &str, chunk: usize, target: Target) -> (AiMessage, AiMessage, String) {
    let mut assembler = Assembler::new();
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    for piece in source.as_bytes().chunks(chunk) {
        assembler.push(piece);
        while let Some(event) = assembler.next_event().unwrap() {
            let event = event.into_owned();
            encoder.encode(&event, &assembler, &mut out);
        }
    }
    assembler.end_input();
    while let Some(event) = assembler.next_event().unwrap() {
        let event = event.into_owned();
        encoder.encode(&event, &assembler, &mut out);
    }
    encoder.finish(&mut out);
    let original = assembler.finish().unwrap();
    assert!(original.complete);
    let dialect = match target {
        Target::OpenAiChat => Dialect::OpenAiChat,
        Target::Anthropic => Dialect::Anthropic,
        Target::OpenAiResponses => Dialect::OpenAiResponses,
        Target::Gemini => Dialect::Gemini,
        _ => unreachable!("a target without a dialect"),
    };
    let again = deltafold::assemble(out.as_bytes(), Options::new().dialect(dialect))
        .unwrap_or_else(|error| panic!("{target}: {error}\n{out}"));
    assert!(again.complete, "{target}: incomplete\n{out}");
    let original = original.choices.into_iter().next().unwrap().message;
    let again = again.choices.into_iter().next().unwrap().message;
    (original, again, out)
}

/// OpenAI chat chunks, one delta each.
fn openai(deltas: &[&str]) -> String {
    let mut body = String::new();
    for delta in deltas {
        body.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-i\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":null}}]}}\n\n"
        ));
    }
    body.push_str("data: {\"id\":\"chatcmpl-i\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n");
    body.push_str("data: [DONE]\n\n");
    body
}

/// One call whose fragments have text and reasoning between them.
fn one_call_interrupted() -> String {
    openai(&[
        r#"{"role":"assistant","content":"Let me look. "}"#,
        r#"{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}"#,
        r#"{"content":"Checking the map. "}"#,
        r#"{"tool_calls":[{"index":0,"function":{"arguments":" \"Lisbon\""}}]}"#,
        r#"{"reasoning_content":"They want Lisbon."}"#,
        r#"{"tool_calls":[{"index":0,"function":{"arguments":", \"units\": \"C\""}}]}"#,
        r#"{"content":"Almost there."}"#,
        r#"{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}"#,
    ])
}

/// Two parallel calls, each interrupted by text, their fragments crossing.
fn two_calls_crossed() -> String {
    openai(&[
        r#"{"role":"assistant","content":"Two lookups. "}"#,
        r#"{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}"#,
        r#"{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"tz\":"}}]}"#,
        r#"{"content":"One moment. "}"#,
        r#"{"tool_calls":[{"index":0,"function":{"arguments":" \"Lisbon\"}"}}]}"#,
        r#"{"content":"Nearly. "}"#,
        r#"{"tool_calls":[{"index":1,"function":{"arguments":" \"WET\"}"}}]}"#,
    ])
}

/// What every target keeps: the text and the reasoning, joined, and the calls.
fn kept(message: &AiMessage) -> (String, String, Vec<Shape>) {
    let calls = shapes(message)
        .into_iter()
        .filter(|shape| matches!(shape, Shape::Call { .. }))
        .collect();
    (message.text(), message.reasoning(), calls)
}

/// Re-encodes `source` into every target, in chunks of several sizes, and compares; with
/// `ordered`, the targets that key their blocks must also give back the blocks in order.
fn check(name: &str, source: &str, ordered: bool) {
    for target in Target::PROVIDERS {
        for chunk in [7, 64, source.len()] {
            let (original, again, out) = round_trip(source, chunk, target);
            assert!(
                original.tool_calls().count() > 0 && original.text().contains('.'),
                "{name}: the source must hold text and calls"
            );
            assert!(original.invalid_tool_calls().next().is_none(), "{name}");
            assert!(
                again.invalid_tool_calls().next().is_none(),
                "{name} → {target}: an invalid call\n{out}"
            );
            assert_eq!(
                kept(&again),
                kept(&original),
                "{name} → {target} (chunks of {chunk})\n{out}"
            );
            if ordered && matches!(target, Target::Anthropic | Target::OpenAiResponses) {
                assert_eq!(
                    shapes(&again),
                    shapes(&original),
                    "{name} → {target} (chunks of {chunk}): block order\n{out}"
                );
            }
        }
    }
}

/// Anthropic events: a text block opened while a `tool_use` block still streams.
fn anthropic_interleaved() -> String {
    let events = [
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_i","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look. "}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Checking the map. "}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \"Lisbon\"}"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Done."}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":2}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

#[test]
fn a_call_interrupted_by_text_and_reasoning_survives_every_target() {
    check("one call", &one_call_interrupted(), false);
}

#[test]
fn crossed_parallel_calls_interrupted_by_text_survive_every_target() {
    check("two calls", &two_calls_crossed(), false);
}

#[test]
fn a_keyed_source_keeps_its_block_order_through_the_keyed_targets() {
    check("anthropic", &anthropic_interleaved(), true);
}
