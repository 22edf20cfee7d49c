//! What one short stream costs in allocations (issue 14): a gateway assembles many of them, so
//! per-stream setup is counted here and held under a bound — with a new assembler per stream,
//! and with one assembler reused through `finish_and_reset`, which keeps its buffers.

use deltafold::{Assembler, Options};

use crate::counting::measure;
use crate::support::generate::Spec;

/// Allocations for one tiny stream (8 chunks, 2.7 KB) assembled by a new assembler
/// (`deltafold::assemble`): 16 with serde_json's `preserve_order`, 17 without it, when this was
/// written (19 and 20 while a shape held its opening, its close and a copy of the prefix as three
/// buffers, 17 and 18 while it held the first two as two; 20 while the usage object's members were listed before they were
/// merged, 25 before the usage object was reserved whole, the text block started at 64 bytes
/// and the common finish reasons were borrowed; 39 while serde read the first, finish and usage
/// chunks, 49 while the provider's usage object was a `serde_json::Value` map, 56 before usage
/// reports were measured without allocating; more before the first payload was parsed only
/// once). CI runs this test both ways.
const FRESH_BOUND: usize = 18;

/// Allocations for one tiny stream through a reused assembler: 12 with `preserve_order`, 13
/// without, when this was written (15 and 20 before the changes above, 32 with serde reading
/// the first, finish and usage chunks, 42 with the usage object as a map), what the message
/// itself holds (its text, id, model, metadata, the provider's usage object).
const REUSED_BOUND: usize = 14;

#[test]
fn a_tiny_stream_costs_few_allocations_and_fewer_through_a_reused_assembler() {
    let stream = Spec::text(6).generate();
    let expected = deltafold::assemble(&stream.bytes, Options::new()).unwrap();
    let (fresh, fresh_use) =
        measure(|| deltafold::assemble(&stream.bytes, Options::new()).unwrap());
    let mut assembler = Assembler::new();
    assembler.feed(&stream.bytes).unwrap();
    let first = assembler.finish_and_reset().unwrap();
    let (reused, reused_use) = measure(|| {
        assembler.feed(&stream.bytes).unwrap();
        assembler.finish_and_reset().unwrap()
    });
    for completion in [&fresh, &first, &reused] {
        assert_eq!(
            serde_json::to_value(completion).unwrap(),
            serde_json::to_value(&expected).unwrap(),
            "every way gives the same message"
        );
    }
    eprintln!(
        "tiny stream ({} bytes): {} allocations fresh, {} reused",
        stream.bytes.len(),
        fresh_use.allocations,
        reused_use.allocations
    );
    assert!(
        fresh_use.allocations <= FRESH_BOUND,
        "{} allocations for one tiny stream (at most {FRESH_BOUND})",
        fresh_use.allocations
    );
    assert!(
        reused_use.allocations <= REUSED_BOUND,
        "{} allocations for one tiny stream through a reused assembler (at most {REUSED_BOUND})",
        reused_use.allocations
    );
    assert!(reused_use.allocations < fresh_use.allocations);
}

#[test]
fn a_reset_assembler_reads_the_next_stream_as_a_new_one() {
    let text = Spec::text(6).generate();
    let tools = Spec::one_tool_call(20).generate();
    let mut assembler = Assembler::new();
    // A stream abandoned half way leaves nothing behind.
    assembler.push(&tools.bytes[..tools.bytes.len() / 2]);
    assembler.reset();
    for stream in [&text, &tools, &text] {
        assembler.feed(&stream.bytes).unwrap();
        let completion = assembler.finish_and_reset().unwrap();
        let expected = deltafold::assemble(&stream.bytes, Options::new()).unwrap();
        assert_eq!(
            serde_json::to_value(&completion).unwrap(),
            serde_json::to_value(&expected).unwrap()
        );
    }
    // A failed stream, then a good one.
    assembler.push(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n");
    assert!(assembler.finish_and_reset().is_err(), "truncated");
    assembler.feed(&text.bytes).unwrap();
    assert_eq!(
        assembler.finish_and_reset().unwrap().into_message().text(),
        deltafold::assemble(&text.bytes, Options::new())
            .unwrap()
            .into_message()
            .text()
    );
}
