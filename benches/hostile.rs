//! Issue 11's hostile classes at a size given on the command line: per class, the input bytes,
//! the peak heap held while assembling it in one read (a counting global allocator), peak ÷
//! input, the time and the outcome, with the default limits and with `max_message_bytes` =
//! 1 MiB.
//!
//! ```text
//! cargo bench --bench hostile -- 16          # 16 MiB per class (the default is 8)
//! cargo bench --bench hostile -- 16 logprobs # only the classes whose name contains "logprobs"
//! ```

#[allow(dead_code)] // Shared by several bench targets; each uses part of it.
mod support;

use std::time::Instant;

use support::alloc::{measure, Counting};
use support::hostile::Class;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1 << 20;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let mib: f64 = args.first().and_then(|arg| arg.parse().ok()).unwrap_or(8.0);
    let filter = args.get(1).cloned().unwrap_or_default();
    let size = (mib * MIB as f64) as usize;
    println!("### Hostile classes of issue 11, {mib} MiB each\n");
    println!("| class | limits | input | peak held | peak ÷ input | time | outcome |");
    println!("|---|---|---|---|---|---|---|");
    let mut worst: (f64, &str) = (0.0, "");
    for class in Class::ALL {
        if !class.name().contains(&filter) {
            continue;
        }
        let bytes = class.stream(size, class.default_width());
        for (limits, options) in [
            ("default", deltafold::Options::new()),
            ("1 MiB", deltafold::Options::new().max_message_bytes(MIB)),
        ] {
            let started = Instant::now();
            let (outcome, heap) = measure(|| {
                let result = deltafold::assemble(&bytes, options);
                match &result {
                    Ok(completion) => format!(
                        "Ok ({} blocks, {} calls)",
                        completion
                            .choices
                            .iter()
                            .map(|choice| choice.message.content.len())
                            .sum::<usize>(),
                        completion
                            .choices
                            .iter()
                            .map(|choice| choice.message.tool_calls().count())
                            .sum::<usize>()
                    ),
                    Err(error) => format!("{:?}", error.kind()),
                }
            });
            let elapsed = started.elapsed();
            let ratio = heap.peak as f64 / bytes.len() as f64;
            if ratio > worst.0 {
                worst = (ratio, class.name());
            }
            println!(
                "| {} | {limits} | {:.2} MiB | {:.2} MiB | {ratio:.2} | {:.3} s | {outcome} |",
                class.name(),
                bytes.len() as f64 / MIB as f64,
                heap.peak as f64 / MIB as f64,
                elapsed.as_secs_f64(),
            );
        }
    }
    println!("\nWorst peak ÷ input: {:.2} ({})", worst.0, worst.1);
}
