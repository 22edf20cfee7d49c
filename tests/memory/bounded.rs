//! Bounded by construction: `max_message_bytes` counts every block and entry the assembler
//! holds, so streams of tiny items (deltas switching between two Anthropic blocks, a usage map
//! with new keys in every event, 1 MiB tool names) are refused with the partial while the heap
//! stays a small multiple of the limit; and detaching every `Usage` event costs O(1), so the
//! bytes allocated grow linearly with the stream.

use deltafold::{Assembler, Event, Options};

use crate::counting::measure;
use crate::{event, expect_error, partial, MIB};

/// Anthropic text deltas of one byte alternating between blocks 0 (`a`) and 1 (`b`).
fn anthropic_alternating(deltas: usize) -> String {
    let mut out = String::from("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\",\"usage\":{\"input_tokens\":1}}}\n\n");
    for index in 0..2 {
        out.push_str(&format!("event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n"));
    }
    for i in 0..deltas {
        let (index, text) = if i % 2 == 0 { (0, 'a') } else { (1, 'b') };
        out.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"text_delta\",\"text\":\"{text}\"}}}}\n\n"));
    }
    out.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    out
}

/// Chat usage-only chunks, each with `keys` keys no earlier chunk had.
fn chat_usage_new_keys(chunks: usize, keys: usize) -> String {
    let mut out = event(r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#);
    for chunk in 0..chunks {
        let mut usage = String::from(r#"{"prompt_tokens":10,"completion_tokens":1"#);
        for key in 0..keys {
            usage.push_str(&format!(r#","k{chunk:06}_{key:03}":1"#));
        }
        usage.push('}');
        out.push_str(&event(&format!(r#"{{"choices":[],"usage":{usage}}}"#)));
    }
    out.push_str(&event(
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    ));
    out.push_str("data: [DONE]\n\n");
    out
}

fn one_mib_limit() -> Options {
    Options::new().max_message_bytes(MIB)
}

/// Assembles `body` under a 1 MiB limit, which it must pass: the error, after asserting that
/// the heap stayed under 8 MiB and that the partial kept the first choice's "Hi".
fn refused_under_one_mib(body: &str) -> deltafold::Error {
    let (error, heap) =
        measure(|| expect_error(deltafold::assemble(body.as_bytes(), one_mib_limit())));
    assert!(error.is_limit_exceeded(), "{error}");
    assert_eq!(partial(&error).choices[0].message.text(), "Hi");
    assert!(
        heap.peak < 8 * MIB,
        "held {} KiB under a 1 MiB limit",
        heap.peak >> 10
    );
    error
}

/// The index names the block (issue 24, item 14): however often the deltas switch, there are
/// two blocks, block 0 `aa…` and block 1 `bb…` as the Anthropic SDK's `accumulate_event` has
/// them, and the heap holds their text, not a block per switch (which held over 500 MB for
/// 40 MB of such deltas).
#[test]
fn alternating_anthropic_blocks_stay_two_blocks_in_memory_linear_in_the_text() {
    let deltas = 256 * 1024;
    let body = anthropic_alternating(deltas);
    let (completion, heap) = measure(|| crate::assemble(body.as_bytes()).unwrap());
    let message = completion.into_message();
    let half = deltas / 2;
    assert_eq!(
        message.content,
        [
            deltafold::ContentBlock::text("a".repeat(half)),
            deltafold::ContentBlock::text("b".repeat(half))
        ]
    );
    // 256 KiB of text (in two strings that grow by doubling) and the message built from them.
    assert!(
        heap.peak < 2 * MIB,
        "held {} KiB for {} KiB of text ({} MiB of input)",
        heap.peak >> 10,
        deltas >> 10,
        body.len() >> 20
    );
    // Past the limit: refused, with the partial, in bounded memory.
    let body = anthropic_alternating(2 * MIB);
    let (error, heap) =
        measure(|| expect_error(deltafold::assemble(body.as_bytes(), one_mib_limit())));
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.location().is_some());
    assert_eq!(partial(&error).choices[0].message.content.len(), 2);
    assert!(
        heap.peak < 8 * MIB,
        "held {} KiB under a 1 MiB limit",
        heap.peak >> 10
    );
}

#[test]
fn usage_maps_with_new_keys_are_counted_toward_the_limit() {
    refused_under_one_mib(&chat_usage_new_keys(2000, 100));
}

#[test]
fn tool_names_and_ids_are_counted_toward_the_limit() {
    let name = "n".repeat(MIB / 4);
    let mut body = String::new();
    for call in 0..16 {
        body.push_str(&event(&format!(
            r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{call},"id":"{name}{call}","function":{{"name":"{name}","arguments":"{{}}"}}}}]}}}}]}}"#
        )));
    }
    body.push_str("data: [DONE]\n\n");
    let error = expect_error(deltafold::assemble(body.as_bytes(), one_mib_limit()));
    assert!(error.is_limit_exceeded(), "{error}");
    let calls = partial(&error).choices[0].message.tool_calls().count();
    assert!(
        calls < 4,
        "{calls} calls of 256 KiB names and ids kept under a 1 MiB limit"
    );
}

/// Every choice's message carries a copy of the response's id, model and fingerprint: a
/// 64 KiB one over 128 choices is counted for each copy and refused, rather than built into
/// 32 MiB of copies under a 1 MiB limit.
#[test]
fn response_fields_are_counted_once_for_every_choice() {
    let long = "m".repeat(MIB / 16);
    let mut body = event(&format!(
        r#"{{"id":"{long}","model":"{long}","system_fingerprint":"{long}","choices":[{{"index":0,"delta":{{"content":"Hi"}}}}]}}"#
    ));
    for choice in 1..128 {
        body.push_str(&event(&format!(
            r#"{{"choices":[{{"index":{choice},"delta":{{"content":"a"}}}}]}}"#
        )));
    }
    body.push_str("data: [DONE]\n\n");
    refused_under_one_mib(&body);
    let short = body.replace(&long, "gpt");
    let completion = deltafold::assemble(short.as_bytes(), one_mib_limit()).unwrap();
    assert_eq!(completion.choices.len(), 128);
    assert!(completion.choices.iter().all(|choice| choice
        .message
        .response_metadata
        .model_name
        .as_deref()
        == Some("gpt")));
}

/// Detaching every event, as `AssembleStream` does: the bytes allocated for n, 2n and 4n usage
/// chunks with new keys grow by ×2, not ×4 (each `Usage` event used to clone the whole raw map).
#[test]
fn detached_usage_events_cost_the_same_however_large_the_raw_map() {
    let allocated = |chunks: usize| {
        let body = chat_usage_new_keys(chunks, 50);
        let ((), heap) = measure(|| {
            let mut assembler = Assembler::new();
            assembler.push(body.as_bytes());
            assembler.end_input();
            let mut usage_events = 0;
            while let Some(event) = assembler.next_event().unwrap() {
                if let Event::Usage { usage } = event.into_owned() {
                    assert!(usage.raw.is_none());
                    usage_events += 1;
                }
            }
            assert_eq!(usage_events, chunks);
            let raw = assembler.usage().unwrap().raw.as_ref().unwrap().len();
            assert_eq!(raw, chunks * 50 + 2, "the raw map stays on the snapshot");
        });
        heap.allocated
    };
    let (n, n2, n4) = (allocated(100), allocated(200), allocated(400));
    assert!(
        n2 < n * 5 / 2 && n4 < n2 * 5 / 2,
        "allocated {n}, {n2}, {n4} bytes"
    );
}
