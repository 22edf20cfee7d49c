//! Runs one contestant on one generated stream, for a profiler (callgrind, perf):
//!
//! ```text
//! cargo bench --bench profile --no-run
//! valgrind --tool=callgrind target/release/deps/profile-HASH deltafold text-10k
//! ```
//!
//! Contestants: `floor`, `deltafold` (one read), `events` (1–4 KiB reads, every event read),
//! `peer` (1–4 KiB reads). Streams: `text-N`, `reasoning-N`, `tool-N`, `parallel16-N`, `n2-N`,
//! `issue3-full`.

#[allow(dead_code)] // Shared by several bench targets; each uses part of it.
mod support;

use std::hint::black_box;

use support::generate::{ReadSize, Spec};
use support::{contestants, floor, peer};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let [contestant, stream] = args.as_slice() else {
        eprintln!("usage: profile CONTESTANT STREAM [REPEAT]  (see the source for names)");
        std::process::exit(2);
    };
    let spec = spec(stream).unwrap_or_else(|| {
        eprintln!("unknown stream {stream}");
        std::process::exit(2)
    });
    let stream = spec.generate();
    let payloads = stream.payload_strs();
    let network = ReadSize::Network.split(&stream.bytes);
    let work = match contestant.as_str() {
        "floor" => floor::floor(&payloads),
        "deltafold" => contestants::assemble(&stream.bytes).choices.len(),
        "events" => contestants::events(&network).1,
        "peer" => peer::assemble(&network).choices.len(),
        other => {
            eprintln!("unknown contestant {other}");
            std::process::exit(2)
        }
    };
    black_box(work);
}

fn spec(name: &str) -> Option<Spec> {
    if name == "issue3-full" {
        return Some(Spec::issue3());
    }
    let (family, size) = name.rsplit_once('-')?;
    let size: usize = match size.strip_suffix('k') {
        Some(thousands) => thousands.parse::<usize>().ok()? * 1000,
        None => size.parse().ok()?,
    };
    Some(match family {
        "text" => Spec::text(size),
        "reasoning" => Spec::reasoning(size),
        "tool" => Spec::one_tool_call(size),
        "parallel16" => Spec::parallel_tools(size),
        "n2" => Spec::two_choices(size),
        _ => return None,
    })
}
