//! Target 5 of issue 3: peak heap while assembling a stream, against the final message's size,
//! measured with a counting global allocator (in its own binary, so that counting never slows
//! the timed benches). Also counts allocations per delta, against the floor and the peer.
//!
//! ```text
//! cargo bench --bench memory
//! ```
//!
//! *Message size* is the content of the final message: text, reasoning, refusal, tool ids,
//! names and arguments (as compact JSON). The serialised JSON of the message (`serde_json`,
//! LangChain's `AIMessage` dict) and the heap the `Completion` itself holds are shown beside it.

#[allow(dead_code)] // Shared by several bench targets; each uses part of it.
mod support;

use std::fmt::Write as _;

use support::alloc::{measure, Counting};
use support::contestants::{self, content_bytes};
use support::generate::{ReadSize, Spec, Stream};
use support::{floor, peer};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let large = if quick { 10_000 } else { 100_000 };
    let mut report = String::from(
        "### Target 5: memory\n\n\
         Peak heap above the input while assembling and finishing (a counting global \
         allocator). The bound is 2 × message size + the largest event, with the message size \
         counted as its content (text, reasoning, ids, names, argument JSON) — and, in the \
         second ratio, as the heap the finished `Completion` holds (parsed arguments are \
         `serde_json` values, several times their text).\n\n\
         | stream | input | message content | serialised message | `Completion` heap | largest event | peak, 1–4 KiB reads + events | ÷ content bound | ÷ heap bound | peak, one read (`assemble`) | ÷ content bound | peer peak, 1–4 KiB |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut worst_streaming = 0f64;
    let mut worst_one_read = 0f64;
    let mut worst_heap = 0f64;
    let specs = [
        Spec::issue3(),
        Spec::text(large),
        Spec::reasoning(large),
        Spec::one_tool_call(large),
        Spec::parallel_tools(large),
        Spec::two_choices(large),
    ];
    for spec in &specs {
        let stream = spec.generate();
        let network = ReadSize::Network.split(&stream.bytes);
        let ((completion, _), streaming) = measure(|| contestants::events(&network));
        let (one_completion, one_read) = measure(|| contestants::assemble(&stream.bytes));
        let (_, held) = measure(|| contestants::assemble(&stream.bytes));
        drop(one_completion);
        let (_, peer_heap) = measure(|| peer::assemble(&network));
        let size = content_bytes(&completion);
        let serialised = serde_json::to_string(&completion.message())
            .map(|json| json.len())
            .unwrap_or(0);
        let bound = 2 * size + stream.max_event_bytes();
        let heap_bound = 2 * held.retained + stream.max_event_bytes();
        let streaming_ratio = streaming.peak as f64 / bound as f64;
        let heap_ratio = streaming.peak as f64 / heap_bound as f64;
        worst_heap = worst_heap.max(heap_ratio);
        let one_read_ratio = one_read.peak as f64 / bound as f64;
        worst_streaming = worst_streaming.max(streaming_ratio);
        worst_one_read = worst_one_read.max(one_read_ratio);
        writeln!(
            report,
            "| {} | {} | {} | {} | {} | {} B | {} | {streaming_ratio:.2} | {heap_ratio:.2} | {} | {one_read_ratio:.2} | {} |",
            spec.name,
            mib(stream.bytes.len()),
            mib(size),
            mib(serialised),
            mib(held.retained),
            stream.max_event_bytes(),
            mib(streaming.peak),
            mib(one_read.peak),
            mib(peer_heap.peak),
        )
        .unwrap();
    }
    writeln!(
        report,
        "\nTarget 5 (peak ≤ 2 × message + one event): in 1–4 KiB reads, worst {worst_streaming:.2} of \
         the bound in content bytes — {}; {worst_heap:.2} of the bound in the message's heap — {}; \
         in one read, worst {worst_one_read:.2} — {}.\n",
        verdict(worst_streaming <= 1.0),
        verdict(worst_heap <= 1.0),
        verdict(worst_one_read <= 1.0)
    )
    .unwrap();
    allocations(&mut report, &specs);
    print!("{report}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-results");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join("memory.md"), &report);
    }
}

/// Allocations per delta: deltafold against the floor (which allocates for each chunk's
/// `choices` and for every string with an escape) and the peer.
fn allocations(report: &mut String, specs: &[Spec]) {
    report.push_str(
        "#### Allocations per delta\n\n\
         | stream | floor | deltafold, one read | deltafold, 1–4 KiB reads + events | peer, 1–4 KiB |\n\
         |---|---|---|---|---|\n",
    );
    for spec in specs {
        let stream: Stream = spec.generate();
        let payloads = stream.payload_strs();
        let network = ReadSize::Network.split(&stream.bytes);
        let per_delta = |count: usize| count as f64 / stream.deltas() as f64;
        let (_, floor_heap) = measure(|| floor::floor(&payloads));
        let (_, one) = measure(|| contestants::assemble(&stream.bytes));
        let (_, events) = measure(|| contestants::events(&network));
        let (_, peer_heap) = measure(|| peer::assemble(&network));
        writeln!(
            report,
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            spec.name,
            per_delta(floor_heap.allocations),
            per_delta(one.allocations),
            per_delta(events.allocations),
            per_delta(peer_heap.allocations),
        )
        .unwrap();
    }
    report.push('\n');
}

fn mib(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.2} MiB", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**NOT MET**"
    }
}
