//! What re-encoding costs per target (issue 27): for generated streams, the assembler with
//! every event read (the baseline) against the same plus every event re-encoded into each
//! target, all timed interleaved in one run (`support::timing::race`), so the ratios share the
//! machine's state. Prints a Markdown table (also `target/bench-results/encode.md`).
//!
//! ```text
//! cargo bench --bench encode            # 10k-delta streams, 9 samples (~1 min on 2 cores)
//! cargo bench --bench encode -- --quick # 3 samples
//! ```

#[allow(dead_code)] // Shared by several bench targets; each uses part of it.
mod support;

use std::fmt::Write as _;
use std::time::Duration;

use deltafold::encode::{Encoder, Target};
use deltafold::Assembler;
use support::contestants;
use support::generate::{ReadSize, Spec};
use support::timing::{race, show, Budget, Contestant};

/// Assembles `reads` with every event read and re-encoded into `target`; the bytes written.
fn reencode(reads: &[&[u8]], target: Target) -> usize {
    let mut assembler = Assembler::new();
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    let mut written = 0;
    for read in reads {
        assembler.push(read);
        while let Some(event) = assembler.next_event().expect("the stream assembles") {
            let event = event.into_owned();
            encoder.encode(&event, &assembler, &mut out);
            written += out.len();
            out.clear();
        }
    }
    assembler.end_input();
    while let Some(event) = assembler.next_event().expect("the stream assembles") {
        let event = event.into_owned();
        encoder.encode(&event, &assembler, &mut out);
    }
    encoder.finish(&mut out);
    written + out.len()
}

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let budget = Budget {
        samples: if quick { 3 } else { 9 },
        sample_time: Duration::from_millis(if quick { 20 } else { 60 }),
    };
    let mut report = String::from(
        "| stream | events only | openai | anthropic | openai-responses | gemini | vercel-ui | ag-ui |\n|---|---|---|---|---|---|---|---|\n",
    );
    for spec in [
        Spec::text(10_000),
        Spec::reasoning(10_000),
        Spec::one_tool_call(10_000),
    ] {
        let stream = spec.generate();
        let reads = ReadSize::Network.split(&stream.bytes);
        let mut racers = vec![Contestant::new("events only", || {
            contestants::events(&reads).1
        })];
        for target in Target::ALL {
            let reads = &reads;
            racers.push(Contestant::new(target.name(), move || {
                reencode(reads, target)
            }));
        }
        let times = race(&mut racers, budget);
        let base = times[0].as_secs_f64();
        let openai = times[1].as_secs_f64();
        let _ = write!(report, "| {} | {}", stream.spec.name, show(times[0]));
        for time in &times[1..] {
            let _ = write!(
                report,
                " | {} ({:.2}× events, {:.2}× openai)",
                show(*time),
                time.as_secs_f64() / base,
                time.as_secs_f64() / openai
            );
        }
        report.push_str(" |\n");
    }
    println!("{report}");
    let dir = std::path::Path::new("target/bench-results");
    if std::fs::create_dir_all(dir).is_ok() {
        let _ = std::fs::write(dir.join("encode.md"), &report);
    }
}
