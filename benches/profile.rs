//! Runs one contestant on one generated stream, for a profiler (callgrind, perf):
//!
//! ```text
//! cargo bench --bench profile --no-run
//! valgrind --tool=callgrind --toggle-collect='*contestant_*' \
//!     target/release/deps/profile-HASH deltafold text-10k
//! ```
//!
//! `--toggle-collect` leaves the stream generation out of the count. Contestants: `floor`,
//! `framing` (deltafold's SSE decoder alone), `pre-framed` (`Assembler::push_frame` on payloads
//! framed ahead), `deltafold` (one read), `slices` (fed in 64 KiB slices), `events` (1–4 KiB
//! reads, every event read), `peer` (1–4 KiB reads). Streams: `text-N`, `reasoning-N`,
//! `tool-N`, `parallel16-N`, `n2-N`, `issue3-full`, and `line-BYTES` (one event with a
//! `data:` line that long, in 64-byte reads; the contestant is ignored), and `corpus` (the
//! fixture corpus, `floor` or `deltafold`).

#[allow(dead_code)] // Shared by several bench targets; each uses part of it.
mod support;

use std::hint::black_box;

use support::generate::{one_huge_line, ReadSize, Spec};
use support::{contestants, floor, peer};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let [contestant, stream] = args.as_slice() else {
        eprintln!("usage: profile CONTESTANT STREAM  (see the source for names)");
        std::process::exit(2);
    };
    if stream == "corpus" {
        let (fixtures, _) = support::corpus::load();
        for fixture in &fixtures {
            let payloads: Vec<&str> = fixture.payloads.iter().map(String::as_str).collect();
            let work = match contestant.as_str() {
                "floor" => contestant_floor(&payloads),
                _ => contestant_deltafold(&fixture.bytes),
            };
            black_box(work);
        }
        return;
    }
    if let Some(len) = stream
        .strip_prefix("line-")
        .and_then(|len| len.parse().ok())
    {
        let line = one_huge_line(len);
        black_box(contestant_events(&ReadSize::Fixed(64).split(&line)));
        return;
    }
    let spec = spec(stream).unwrap_or_else(|| {
        eprintln!("unknown stream {stream}");
        std::process::exit(2)
    });
    let stream = spec.generate();
    let payloads = stream.payload_strs();
    let network = ReadSize::Network.split(&stream.bytes);
    let slices = ReadSize::Fixed(64 * 1024).split(&stream.bytes);
    let work = match contestant.as_str() {
        "floor" => contestant_floor(&payloads),
        "framing" => contestant_framing(&stream.bytes),
        "pre-framed" => contestant_pre_framed(&payloads),
        "deltafold" => contestant_deltafold(&stream.bytes),
        "slices" => contestant_slices(&slices),
        "events" => contestant_events(&network),
        "peer" => contestant_peer(&network),
        other => {
            eprintln!("unknown contestant {other}");
            std::process::exit(2)
        }
    };
    black_box(work);
}

#[inline(never)]
fn contestant_floor(payloads: &[&str]) -> usize {
    floor::floor(payloads)
}

#[inline(never)]
fn contestant_framing(bytes: &[u8]) -> usize {
    contestants::framing(bytes)
}

#[inline(never)]
fn contestant_pre_framed(payloads: &[&str]) -> usize {
    contestants::pre_framed(payloads.iter().map(|payload| (None, *payload)))
}

#[inline(never)]
fn contestant_deltafold(bytes: &[u8]) -> usize {
    contestants::assemble(bytes).choices.len()
}

#[inline(never)]
fn contestant_slices(slices: &[&[u8]]) -> usize {
    contestants::feed(slices).choices.len()
}

#[inline(never)]
fn contestant_events(reads: &[&[u8]]) -> usize {
    contestants::events(reads).1
}

#[inline(never)]
fn contestant_peer(reads: &[&[u8]]) -> usize {
    peer::assemble(reads).choices.len()
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
