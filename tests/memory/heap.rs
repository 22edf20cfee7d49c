//! Heap held while streaming (issue 3, target 5): the assembler holds no copy of the raw stream,
//! and allocates no more per delta than parsing the payloads does. Small streams, so they run
//! in seconds in debug builds; `cargo bench --bench memory` measures the large ones.

use deltafold::{Assembler, Completion};

use crate::counting::measure;
use crate::support::contestants::{self, content_bytes};
use crate::support::floor;
use crate::support::generate::{ReadSize, Spec, Stream};

/// The largest read the network split makes: the decoder may hold one read beyond an event.
const LARGEST_READ: usize = 4096;

fn streams() -> Vec<Stream> {
    [
        Spec::text(5_000),
        Spec::reasoning(5_000),
        Spec::one_tool_call(5_000),
        Spec::parallel_tools(5_000),
        Spec::two_choices(5_000),
        Spec::issue3_sixteenth(),
    ]
    .iter()
    .map(Spec::generate)
    .collect()
}

/// Pushes the stream in network-sized reads and reads every event, without finishing.
fn stream_through(reads: &[&[u8]]) -> Assembler {
    let mut assembler = Assembler::new();
    for read in reads {
        assembler.push(read);
        while let Some(event) = assembler.next_event().expect("the stream assembles") {
            std::hint::black_box(contestants::event_weight(&event));
        }
    }
    assembler
}

/// Peak heap while streaming and finishing is within twice the final message plus one event (and one read).
/// The message is counted as the heap the finished `Completion` holds: parsed tool arguments
/// are `serde_json` values, several times larger than their text, so for tool calls the bound
/// in content bytes is not met (see benches/README.md); for text it is checked as well.
#[test]
fn while_streaming_the_heap_stays_within_twice_the_message_plus_one_event() {
    for stream in streams() {
        let reads = ReadSize::Network.split(&stream.bytes);
        let (completion, heap) = measure(|| {
            stream_through(&reads)
                .finish()
                .expect("the stream assembles")
        });
        let slack = stream.max_event_bytes() + LARGEST_READ;
        let bound = 2 * heap.retained + slack;
        assert!(
            heap.peak <= bound,
            "{}: peak {} B while streaming, bound {} B",
            stream.spec.name,
            heap.peak,
            bound
        );
        if stream.spec.tool_calls == 0 {
            // Text only: the message's heap is its content, with growth headroom.
            let bound = 2 * content_bytes(&completion) + slack;
            assert!(
                heap.peak <= bound,
                "{}: peak {} B while streaming, bound {} B of content",
                stream.spec.name,
                heap.peak,
                bound
            );
        }
        assert!(
            heap.peak < stream.bytes.len() / 4,
            "{}: the assembler seems to keep the raw stream ({} B of {} B)",
            stream.spec.name,
            heap.peak,
            stream.bytes.len()
        );
    }
}

#[test]
fn assembling_allocates_no_more_than_parsing_the_payloads() {
    for stream in streams() {
        let payloads = stream.payload_strs();
        let reads = ReadSize::Network.split(&stream.bytes);
        let (_, floor_heap) = measure(|| floor::floor(&payloads));
        let (completion, assembler_heap) = measure(|| contestants::events(&reads).0);
        // Parsing the finished tool arguments into values is work the floor does not do.
        let arguments = argument_texts(&completion);
        let (_, arguments_heap) = measure(|| parse_all(&arguments));
        // Buffer growth is logarithmic in the stream's length: a few hundred allocations, and a
        // few dozen per tool call, cover it, while one allocation per delta would add thousands.
        let calls = stream.spec.tool_calls * stream.spec.choices as usize;
        let allowance = arguments_heap.allocations + 200 + 40 * calls;
        assert!(
            assembler_heap.allocations <= floor_heap.allocations + allowance,
            "{}: {} allocations, the floor makes {} (+{} allowed)",
            stream.spec.name,
            assembler_heap.allocations,
            floor_heap.allocations,
            allowance
        );
    }
}

fn argument_texts(completion: &Completion) -> Vec<String> {
    completion
        .messages()
        .flat_map(|message| message.tool_calls())
        .map(|call| serde_json::Value::Object(call.args.clone()).to_string())
        .collect()
}

fn parse_all(texts: &[String]) -> usize {
    texts
        .iter()
        .map(|text| {
            let value: serde_json::Value = serde_json::from_str(text).expect("valid arguments");
            value.as_object().map_or(0, |args| args.len())
        })
        .sum()
}

#[test]
#[ignore = "NOT MET (issue 3, target 5): the SSE decoder copies a whole push into its buffer, so \
            one big read is held twice; see benches/README.md"]
fn assembling_one_big_read_keeps_no_copy_of_it() {
    let stream = Spec::text(5_000).generate();
    let (completion, heap) = measure(|| contestants::assemble(&stream.bytes));
    let bound = 2 * content_bytes(&completion) + stream.max_event_bytes();
    assert!(
        heap.peak <= bound,
        "peak {} B for a {} B stream in one read, bound {} B",
        heap.peak,
        stream.bytes.len(),
        bound
    );
}
