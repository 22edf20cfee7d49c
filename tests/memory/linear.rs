//! Guards against quadratic behaviour (issue 3, targets 3 and 4, and the stream shapes that once
//! made assembly quadratic), by counting work instead of timing it: the allocations made and
//! the bytes they asked for, for an input of n, 2n and 4n units. Linear work doubles with each
//! doubling of the input (buffers that grow by doubling keep that ratio exactly); quadratic work
//! quadruples. Counting sees copies and re-parses, not a scan that allocates nothing: those are
//! timed by `cargo bench --bench targets` (release, 100× longer streams).

use deltafold::{Assembler, Error, ErrorKind};
use serde_json::{json, Value};

use crate::counting::{measure, HeapUse};
use crate::support::contestants::{self, read_arguments, ArgumentReads};
use crate::support::generate::{one_huge_line, ReadSize, Spec};
use crate::{assemble, event};

/// How much more than twice the work a doubled input may cost: room for the one-time costs
/// and the growth steps that do not fall on the same sizes, far below the doubling quadratic
/// work would add.
const TOLERANCE: f64 = 1.25;

/// Asserts that the allocations and the bytes allocated by `work` grow at most linearly from
/// `n` to `2n` to `4n` units. `work` builds its input outside the measurement and returns what
/// assembling it cost; it runs once first, so that what happens only once per thread (lazy
/// statics, first buffers) does not make the small input look expensive.
fn assert_linear(name: &str, n: usize, mut work: impl FnMut(usize) -> HeapUse) {
    work(n);
    let costs: Vec<(usize, HeapUse)> = [n, 2 * n, 4 * n]
        .into_iter()
        .map(|units| (units, work(units)))
        .collect();
    for pair in costs.windows(2) {
        let [(small, before), (large, after)] = pair else {
            unreachable!("windows of two")
        };
        for (what, before, after) in [
            ("allocations", before.allocations, after.allocations),
            ("bytes allocated", before.allocated, after.allocated),
        ] {
            let ratio = after as f64 / before.max(1) as f64;
            assert!(
                ratio <= 2.0 * TOLERANCE,
                "{name}: {what} rose {ratio:.2}× from {small} to {large} units \
                 ({before} to {after}; at most {:.2}× allowed)",
                2.0 * TOLERANCE
            );
        }
    }
}

#[test]
fn text_and_reasoning_cost_the_same_per_delta_at_any_length() {
    for (name, make) in [
        ("text", Spec::text as fn(usize) -> Spec),
        ("reasoning", Spec::reasoning),
    ] {
        assert_linear(name, 1_000, |deltas| {
            let stream = make(deltas).generate();
            let reads = ReadSize::Network.split(&stream.bytes);
            measure(|| contestants::events(&reads).1).1
        });
    }
}

#[test]
fn one_huge_tool_call_costs_the_same_per_fragment_even_when_its_partial_value_is_read() {
    for how in [
        ArgumentReads::Deltas,
        ArgumentReads::Partial,
        ArgumentReads::EventPartial,
        ArgumentReads::Detached,
    ] {
        assert_linear(&format!("tool call, {how:?}"), 1_000, |fragments| {
            let stream = Spec::one_tool_call(fragments).generate();
            let reads = ReadSize::Network.split(&stream.bytes);
            measure(|| read_arguments(&reads, how)).1
        });
    }
}

/// A tool call whose arguments open `depth` arrays, ten per fragment, then close them.
fn deeply_nested_call(depth: usize) -> Vec<u8> {
    let fragment = |arguments: &str| {
        event(
            &json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                "function": {"arguments": arguments}}]}}]})
            .to_string(),
        )
    };
    let mut stream = event(
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":""}}]}}]}"#,
    );
    for _ in 0..depth / 10 {
        stream.push_str(&fragment(&"[".repeat(10)));
    }
    for _ in 0..depth / 10 {
        stream.push_str(&fragment(&"]".repeat(10)));
    }
    stream.push_str(&event(
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    ));
    stream.push_str("data: [DONE]\n\n");
    stream.into_bytes()
}

/// The `partial` of every argument delta, read from the event or detached from it, on
/// arguments nested thousands deep: the scan state is never copied per delta (the event's scan
/// is caught up in place), and a detached view copies at most 128 closers.
#[test]
fn the_partial_of_deeply_nested_arguments_costs_the_same_per_fragment() {
    for how in [ArgumentReads::EventPartial, ArgumentReads::Detached] {
        assert_linear(&format!("deep tool call, {how:?}"), 2_000, |depth| {
            let stream = deeply_nested_call(depth);
            let reads = ReadSize::Network.split(&stream);
            measure(|| read_arguments(&reads, how)).1
        });
    }
}

#[test]
fn many_events_in_one_read_cost_the_same_per_event() {
    assert_linear("events in one read", 1_000, |deltas| {
        let stream = Spec::text(deltas).generate();
        measure(|| contestants::events(&[&stream.bytes]).1).1
    });
}

#[test]
fn one_long_line_in_tiny_reads_costs_the_same_per_byte() {
    assert_linear("long line in 64 B reads", 16 * 1024, |len| {
        let line = one_huge_line(len);
        let reads = ReadSize::Fixed(64).split(&line);
        measure(|| contestants::events(&reads).1).1
    });
}

/// `count` reasoning details with distinct indices, 100 per event.
fn reasoning_details(count: usize) -> Vec<String> {
    (0..count)
        .step_by(100)
        .map(|first| {
            let details: Vec<Value> = (first..(first + 100).min(count))
                .map(|index| json!({"type": "reasoning.text", "text": "t", "index": index}))
                .collect();
            event(
                &json!({"choices": [{"index": 0, "delta": {"reasoning_details": details}}]})
                    .to_string(),
            )
        })
        .collect()
}

/// OpenRouter's reasoning details merge by (type, index): twice as many distinct entries must
/// cost about twice as much, not four times.
#[test]
fn many_distinct_reasoning_details_allocate_linearly() {
    assert_linear("reasoning details", 500, |count| {
        let chunks = reasoning_details(count);
        let ((), heap) = measure(|| {
            let mut assembler = Assembler::new();
            for chunk in &chunks {
                assembler.feed(chunk.as_bytes()).unwrap();
            }
        });
        heap
    });
}

/// An Anthropic stream that opens `blocks` text blocks, then sends one more delta to each, in
/// order.
fn anthropic_revisiting(blocks: usize) -> String {
    let mut body = String::from(concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",",
        "\"model\":\"claude\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n",
    ));
    let delta = |index: usize| {
        format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"text_delta\",\"text\":\"x\"}}}}\n\n")
    };
    for index in 0..blocks {
        body.push_str(&format!("event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n"));
        body.push_str(&delta(index));
    }
    for index in 0..blocks {
        body.push_str(&delta(index));
    }
    body
}

/// An error a stream ended with: a kind from the stream's side, a place, and the partial.
fn assert_typed(error: &Error) {
    assert!(
        matches!(
            error.kind(),
            ErrorKind::Malformed
                | ErrorKind::InvalidUtf8
                | ErrorKind::LimitExceeded
                | ErrorKind::Truncated
                | ErrorKind::Provider
        ),
        "unexpected kind in {error}"
    );
    assert!(error.location().is_some(), "{error} has no location");
    assert!(error.partial().is_some(), "{error} has no partial result");
}

/// Text for an earlier Anthropic block goes on in a new block (so the message keeps stream
/// order); the block a delta belongs to is found without rebuilding what came before it.
#[test]
fn revisiting_many_anthropic_blocks_allocates_linearly() {
    assert_linear("Anthropic blocks revisited", 500, |blocks| {
        let body = anthropic_revisiting(blocks);
        let (completion, heap) = measure(|| assemble(body.as_bytes()));
        if let Err(error) = completion {
            assert_typed(&error);
        }
        heap
    });
}

/// A Gemini answer of `supports` sentences (non-ASCII), each cited by one grounding support that
/// cites two of the search's chunks, all in the last chunk's `groundingMetadata`.
fn gemini_grounding(supports: usize) -> Vec<u8> {
    let sentence = "Grüße aus München. ";
    let mut body = String::new();
    for _ in 0..supports {
        let chunk = json!({"candidates": [{"content": {"parts": [{"text": sentence}], "role": "model"},
            "index": 0, "groundingMetadata": {}}]});
        body.push_str(&event(&chunk.to_string()));
    }
    let supports: Vec<Value> = (0..supports)
        .map(|n| {
            let start = n * sentence.len();
            json!({"segment": {"startIndex": start, "endIndex": start + sentence.len(),
                "text": sentence}, "groundingChunkIndices": [n % 3, (n + 1) % 3]})
        })
        .collect();
    let chunks: Vec<Value> = (0..3)
        .map(|n| json!({"web": {"uri": format!("https://s{n}.test/"), "title": format!("s{n}")}}))
        .collect();
    let last = json!({"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"},
        "index": 0, "finishReason": "STOP", "groundingMetadata": {"groundingChunks": chunks,
        "groundingSupports": supports, "webSearchQueries": ["grüße"]}}]});
    body.push_str(&event(&last.to_string()));
    body.into_bytes()
}

#[test]
fn gemini_grounding_supports_cost_the_same_each_at_any_number() {
    assert_linear("grounding supports", 2_000, |supports| {
        let body = gemini_grounding(supports);
        let (completion, heap) = measure(|| assemble(&body).unwrap());
        let message = completion.into_message();
        assert_eq!(message.content[0].citations().len(), 2 * supports);
        heap
    });
}

/// A chat completion whose spoken answer comes in `pieces` deltas, each with base64 data and a
/// piece of transcript.
fn chat_audio(pieces: usize) -> Vec<u8> {
    let mut body = event(
        &json!({"choices": [{"index": 0, "delta": {"role": "assistant", "audio": {"id": "audio_1"}}}]})
            .to_string(),
    );
    for _ in 0..pieces {
        let chunk = json!({"choices": [{"index": 0,
            "delta": {"audio": {"data": "AAECAwQFBgcICQ==", "transcript": "grüß "}}}]});
        body.push_str(&event(&chunk.to_string()));
    }
    body.push_str(&event(
        &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string(),
    ));
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

#[test]
fn chat_audio_pieces_cost_the_same_each_at_any_number() {
    assert_linear("audio pieces", 1_000, |pieces| {
        let body = chat_audio(pieces);
        let (completion, heap) = measure(|| assemble(&body).unwrap());
        let message = completion.into_message();
        let media = message.content[0].media().unwrap();
        assert_eq!(
            media.extras["transcript"].as_str().unwrap().len(),
            7 * pieces
        );
        heap
    });
}

/// A Responses answer whose text comes in `deltas` deltas, each with the log probability of its
/// token and two alternatives.
fn responses_logprobs(deltas: usize) -> Vec<u8> {
    let mut body =
        event(&json!({"type": "response.created", "response": {"id": "resp_1"}}).to_string());
    for _ in 0..deltas {
        let alternative = json!({"token": "hi", "logprob": -0.5, "bytes": [104, 105]});
        let delta = json!({"type": "response.output_text.delta", "item_id": "msg_1",
            "output_index": 0, "content_index": 0, "delta": "hi",
            "logprobs": [{"token": "hi", "logprob": -0.5, "bytes": [104, 105],
                          "top_logprobs": [alternative.clone(), alternative]}]});
        body.push_str(&event(&delta.to_string()));
    }
    body.push_str(&event(
        &json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}})
            .to_string(),
    ));
    body.into_bytes()
}

#[test]
fn responses_token_logprobs_cost_the_same_per_delta_at_any_number() {
    assert_linear("Responses logprobs", 1_000, |deltas| {
        let body = responses_logprobs(deltas);
        let (completion, heap) = measure(|| assemble(&body).unwrap());
        let message = completion.into_message();
        let logprobs = message.response_metadata.logprobs.unwrap();
        assert_eq!(
            logprobs.get("content").unwrap().as_array().unwrap().len(),
            deltas
        );
        heap
    });
}
