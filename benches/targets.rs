//! Measures every speed target of issue 3 in one run and prints the results as Markdown tables
//! (also written to `target/bench-results/targets.md`). Every ratio compares contestants timed
//! interleaved in the same run, so machine noise hits both sides alike.
//!
//! ```text
//! cargo bench --bench targets            # about 3 minutes on 2 cores
//! cargo bench --bench targets -- --quick # smaller streams, fewer samples: a smoke test
//! cargo bench --bench targets -- --only floor,latency
//! ```
//!
//! Sections: `floor` (targets 1 and 2), `anatomy` (where the time goes), `scaling` (target 3),
//! `partial` (target 4), `latency` (target 6). Memory (target 5) is `cargo bench --bench memory`.

#[allow(dead_code)] // Shared by several bench targets; each uses part of it.
mod support;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use deltafold::Assembler;
use support::contestants::{
    self, digest, event_weight, peer_digest, read_arguments, ArgumentReads,
};
use support::generate::{one_huge_line, ReadSize, Spec, Stream};
use support::timing::{m_per_s, mb_per_s, percentile, race, show, Budget, Contestant};
use support::{corpus, floor, peer};

/// Floor target: bytes in → message out within this factor of the floor.
const FLOOR_TARGET: f64 = 1.3;
/// Peer target: at least this many times faster than eventsource-stream + `Value`.
const PEER_TARGET: f64 = 5.0;
/// Linearity target: per-delta cost at the large size within this factor of the small size.
const LINEAR_TARGET: f64 = 1.2;

/// One section of the report: measures and appends its Markdown.
type Section = fn(&Settings, &mut String);

struct Settings {
    quick: bool,
    budget: Budget,
    large: usize,
    tool_large: usize,
}

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let settings = Settings {
        quick,
        budget: Budget {
            samples: if quick { 3 } else { 9 },
            sample_time: Duration::from_millis(if quick { 20 } else { 60 }),
        },
        large: if quick { 10_000 } else { 100_000 },
        tool_large: if quick { 10_000 } else { 50_000 },
    };
    let mut report = String::new();
    let started = Instant::now();
    writeln!(
        report,
        "<!-- cargo bench --bench targets{} — {} -->\n",
        if quick { " -- --quick" } else { "" },
        machine()
    )
    .unwrap();
    let only: Option<Vec<String>> = std::env::args()
        .skip_while(|arg| arg != "--only")
        .nth(1)
        .map(|list| list.split(',').map(str::to_owned).collect());
    let wanted = |section: &str| {
        only.as_ref()
            .is_none_or(|only| only.iter().any(|s| s == section))
    };
    let sections: [(&str, Section); 5] = [
        ("floor", floor_and_peer),
        ("anatomy", anatomy),
        ("scaling", scaling),
        ("partial", partial_arguments),
        ("latency", latency),
    ];
    for (name, section) in sections {
        if wanted(name) {
            section(&settings, &mut report);
        }
    }
    writeln!(
        report,
        "_Measured in {:.0} s._",
        started.elapsed().as_secs_f64()
    )
    .unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-results");
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = std::fs::write(dir.join("targets.md"), &report);
    }
}

/// CPU model and core count, so a table says where it was measured.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|name| name.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores")
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**NOT MET**"
    }
}

/// Prints a section and appends it to the report.
fn emit(report: &mut String, section: &str) {
    print!("{section}");
    report.push_str(section);
}

/// Checks that every contestant assembles the same message from `stream`.
fn verify(stream: &Stream) {
    let one = contestants::assemble(&stream.bytes);
    let network = ReadSize::Network.split(&stream.bytes);
    let tiny = ReadSize::Fixed(64).split(&stream.bytes);
    let expected = digest(&one);
    assert_eq!(digest(&contestants::feed(&network)), expected, "feed");
    let (completion, seen) = contestants::events(&tiny);
    assert_eq!(digest(&completion), expected, "events");
    assert_eq!(
        seen, stream.content_bytes,
        "event bytes of {}",
        stream.spec.name
    );
    assert_eq!(peer_digest(&peer::assemble(&network)), expected, "peer");
    assert!(floor::floor(&stream.payload_strs()) > 0, "floor");
}

/// Targets 1 and 2: deltafold against the floor and against the peer.
fn floor_and_peer(settings: &Settings, report: &mut String) {
    let mut section = String::from(
        "### Targets 1 and 2: near the floor, ahead of the usual Rust way\n\n\
         Throughput of deltafold bytes in → `Completion` out. *Floor* = `serde_json` into a \
         borrowed chunk struct, framing done ahead. *Peer* = eventsource-stream + \
         `serde_json::Value` + hand accumulation. Ratios are medians of the same run.\n\n\
         | stream | size | deltas | floor | deltafold, one read | ÷ floor | deltafold, 1–4 KiB reads, events | ÷ floor | peer ÷ deltafold (1–4 KiB) | peer ÷ deltafold (64 B) | peer ÷ floor (1–4 KiB) |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut worst_floor = 0f64;
    let mut worst_peer = f64::INFINITY;

    let (fixtures, skipped) = corpus::load();
    if fixtures.is_empty() {
        eprintln!("no usable fixtures under fixtures/ — corpus row skipped");
    } else {
        let payloads: Vec<Vec<&str>> = fixtures
            .iter()
            .map(|fixture| fixture.payloads.iter().map(String::as_str).collect())
            .collect();
        let network: Vec<Vec<&[u8]>> = fixtures
            .iter()
            .map(|fixture| ReadSize::Network.split(&fixture.bytes))
            .collect();
        let tiny: Vec<Vec<&[u8]>> = fixtures
            .iter()
            .map(|fixture| ReadSize::Fixed(64).split(&fixture.bytes))
            .collect();
        let bytes: usize = fixtures.iter().map(|fixture| fixture.bytes.len()).sum();
        let mut racers = vec![
            Contestant::new("floor", || payloads.iter().map(|p| floor::floor(p)).sum()),
            Contestant::new("one read", || {
                fixtures
                    .iter()
                    .map(|f| contestants::assemble(&f.bytes).choices.len())
                    .sum()
            }),
            Contestant::new("events 1-4K", || {
                network.iter().map(|r| contestants::events(r).1).sum()
            }),
            Contestant::new("peer 1-4K", || {
                network
                    .iter()
                    .map(|r| peer::assemble(r).choices.len())
                    .sum()
            }),
            Contestant::new("events 64", || {
                tiny.iter().map(|r| contestants::events(r).1).sum()
            }),
            Contestant::new("peer 64", || {
                tiny.iter().map(|r| peer::assemble(r).choices.len()).sum()
            }),
        ];
        let times = race(&mut racers, settings.budget);
        let row = row(
            &format!("fixture corpus ({} files)", fixtures.len()),
            bytes,
            None,
            &times,
        );
        worst_floor = worst_floor.max(row.0);
        worst_peer = worst_peer.min(row.1);
        section.push_str(&row.2);
        if !skipped.is_empty() {
            eprintln!("fixtures not in the corpus:");
            for (name, why) in &skipped {
                eprintln!("  {name}: {why}");
            }
        }
    }

    let large = settings.large;
    let specs = [
        Spec::issue3(),
        Spec::text(large),
        Spec::reasoning(large),
        Spec::one_tool_call(large),
        Spec::parallel_tools(large),
        Spec::two_choices(large),
    ];
    for spec in specs {
        let stream = spec.generate();
        verify(&stream);
        let payloads = stream.payload_strs();
        let network = ReadSize::Network.split(&stream.bytes);
        let tiny = ReadSize::Fixed(64).split(&stream.bytes);
        let mut racers = vec![
            Contestant::new("floor", || floor::floor(&payloads)),
            Contestant::new("one read", || {
                contestants::assemble(&stream.bytes).choices.len()
            }),
            Contestant::new("events 1-4K", || contestants::events(&network).1),
            Contestant::new("peer 1-4K", || peer::assemble(&network).choices.len()),
            Contestant::new("events 64", || contestants::events(&tiny).1),
            Contestant::new("peer 64", || peer::assemble(&tiny).choices.len()),
        ];
        let times = race(&mut racers, settings.budget);
        let row = row(
            &spec.name,
            stream.bytes.len(),
            Some(stream.deltas()),
            &times,
        );
        worst_floor = worst_floor.max(row.0);
        worst_peer = worst_peer.min(row.1);
        section.push_str(&row.2);
    }
    writeln!(
        section,
        "\nTarget 1 (≤ {FLOOR_TARGET}× the floor): worst {worst_floor:.2}× — {}.  \n\
         Target 2 (≥ {PEER_TARGET}× the peer): worst {worst_peer:.1}× — {}.\n",
        verdict(worst_floor <= FLOOR_TARGET),
        verdict(worst_peer >= PEER_TARGET)
    )
    .unwrap();
    emit(report, &section);
}

/// Where deltafold's time goes, against the floor: framing alone, decoding and folding
/// pre-framed payloads (`push_frame`), the whole, and the whole fed in 64 KiB slices (what
/// `assemble` would cost if it did not copy its input into the decoder in one piece).
fn anatomy(settings: &Settings, report: &mut String) {
    let mut section = String::from(
        "### Where the time goes\n\n\
         Median time per stream, each column a separate contestant of the same run; ratios are \
         to the floor.\n\n\
         | stream | floor | SSE framing alone (`SseDecoder`, one read) | dialect + fold from pre-framed payloads (`push_frame`) | whole, one read (`assemble`) | whole, fed in 64 KiB slices |\n\
         |---|---|---|---|---|---|\n",
    );
    for spec in [
        Spec::text(settings.large),
        Spec::one_tool_call(settings.large),
        Spec::issue3(),
    ] {
        let stream = spec.generate();
        let payloads = stream.payload_strs();
        let slices = ReadSize::Fixed(64 * 1024).split(&stream.bytes);
        let mut racers = vec![
            Contestant::new("floor", || floor::floor(&payloads)),
            Contestant::new("framing", || contestants::framing(&stream.bytes)),
            Contestant::new("pre-framed", || {
                contestants::pre_framed(payloads.iter().map(|payload| (None, *payload)))
            }),
            Contestant::new("one read", || {
                contestants::assemble(&stream.bytes).choices.len()
            }),
            Contestant::new("64 KiB slices", || contestants::feed(&slices).choices.len()),
        ];
        let times = race(&mut racers, settings.budget);
        let cell = |time: Duration| {
            format!(
                "{} ({:.2}×)",
                show(time),
                time.as_secs_f64() / times[0].as_secs_f64()
            )
        };
        writeln!(
            section,
            "| {} | {} | {} | {} | {} | {} |",
            spec.name,
            show(times[0]),
            cell(times[1]),
            cell(times[2]),
            cell(times[3]),
            cell(times[4])
        )
        .unwrap();
    }
    section.push('\n');
    emit(report, &section);
}

/// One table row from the times of [floor, one read, events 1–4K, peer 1–4K, events 64,
/// peer 64]; returns the worst floor ratio, the worst peer ratio and the row.
fn row(name: &str, bytes: usize, deltas: Option<usize>, times: &[Duration]) -> (f64, f64, String) {
    let [floor, one, events, peer_network, events_tiny, peer_tiny] = times else {
        unreachable!("six contestants")
    };
    let ratio = |a: &Duration, b: &Duration| a.as_secs_f64() / b.as_secs_f64();
    let speed = |time: &Duration| match deltas {
        Some(deltas) => format!(
            "{:.0} MB/s, {:.2} M deltas/s",
            mb_per_s(bytes, *time),
            m_per_s(deltas, *time)
        ),
        None => format!("{:.0} MB/s", mb_per_s(bytes, *time)),
    };
    let floor_one = ratio(one, floor);
    let floor_events = ratio(events, floor);
    let peer_network_ratio = ratio(peer_network, events);
    let peer_tiny_ratio = ratio(peer_tiny, events_tiny);
    let line = format!(
        "| {name} | {:.2} MB | {} | {:.0} MB/s | {} | {floor_one:.2}× | {} | {floor_events:.2}× | {peer_network_ratio:.1}× | {peer_tiny_ratio:.1}× | {:.1}× |\n",
        bytes as f64 / 1e6,
        deltas.map_or("—".into(), |d| d.to_string()),
        mb_per_s(bytes, *floor),
        speed(one),
        speed(events),
        ratio(peer_network, floor),
    );
    (
        floor_one.max(floor_events),
        peer_network_ratio.min(peer_tiny_ratio),
        line,
    )
}

/// Target 3: cost per delta at the small and the large size.
fn scaling(settings: &Settings, report: &mut String) {
    let mut section = String::from(
        "### Target 3: linear\n\n\
         Cost per delta (ns) of deltafold, one read (`assemble`) and 1–4 KiB reads with every \
         event read; the floor's own per-delta cost is shown to separate cache effects from \
         algorithmic growth.\n\n\
         | stream | deltas | floor ns/delta | one read ns/delta | events 1–4 KiB ns/delta |\n\
         |---|---|---|---|---|\n",
    );
    let mut ratios = Vec::new();
    let large = settings.large;
    let families: [(&str, Vec<Spec>); 3] = [
        ("text", vec![Spec::text(1_000), Spec::text(large)]),
        (
            "reasoning",
            vec![Spec::reasoning(1_000), Spec::reasoning(large)],
        ),
        (
            "one tool call",
            vec![
                Spec::one_tool_call(1_000),
                Spec::one_tool_call(settings.tool_large),
            ],
        ),
    ];
    for (family, specs) in families {
        let streams: Vec<Stream> = specs.iter().map(Spec::generate).collect();
        let payloads: Vec<Vec<&str>> = streams.iter().map(Stream::payload_strs).collect();
        let network: Vec<Vec<&[u8]>> = streams
            .iter()
            .map(|stream| ReadSize::Network.split(&stream.bytes))
            .collect();
        let mut racers = Vec::new();
        for (index, stream) in streams.iter().enumerate() {
            let payloads = &payloads[index];
            let network = &network[index];
            racers.push(Contestant::new("floor", move || floor::floor(payloads)));
            racers.push(Contestant::new("one", move || {
                contestants::assemble(&stream.bytes).choices.len()
            }));
            racers.push(Contestant::new("events", move || {
                contestants::events(network).1
            }));
        }
        let times = race(&mut racers, settings.budget);
        let per_delta: Vec<f64> = times
            .iter()
            .enumerate()
            .map(|(i, time)| time.as_nanos() as f64 / streams[i / 3].deltas() as f64)
            .collect();
        for (index, stream) in streams.iter().enumerate() {
            writeln!(
                section,
                "| {} | {} | {:.0} | {:.0} | {:.0} |",
                stream.spec.name,
                stream.deltas(),
                per_delta[index * 3],
                per_delta[index * 3 + 1],
                per_delta[index * 3 + 2]
            )
            .unwrap();
        }
        let growth = |offset: usize| per_delta[3 + offset] / per_delta[offset];
        writeln!(
            section,
            "| **{family}: large ÷ small** | | {:.2}× | **{:.2}×** | **{:.2}×** |",
            growth(0),
            growth(1),
            growth(2)
        )
        .unwrap();
        ratios.push((format!("{family}, one read"), growth(1)));
        ratios.push((format!("{family}, events"), growth(2)));
    }

    // 20,000 events in one read, every event read; against 1,000 events in one read.
    let small = Spec::text(1_000).generate();
    let many = Spec::text(20_000).generate();
    let mut racers = vec![
        Contestant::new("1k", || contestants::events(&[&small.bytes]).1),
        Contestant::new("20k", || contestants::events(&[&many.bytes]).1),
    ];
    let times = race(&mut racers, settings.budget);
    let per_event_small = times[0].as_nanos() as f64 / small.events.len() as f64;
    let per_event_many = times[1].as_nanos() as f64 / many.events.len() as f64;
    let events_growth = per_event_many / per_event_small;
    writeln!(
        section,
        "| 20,000 events in one read (events read) vs 1,000 | {} | | {per_event_small:.0} → {per_event_many:.0} ns/event | **{events_growth:.2}×** |",
        many.events.len()
    )
    .unwrap();
    ratios.push(("20,000 events in one read".into(), events_growth));

    // One 1 MiB data line in 64-byte reads; against a 16 KiB line in 64-byte reads (the
    // target), and a 4 MiB line against the 1 MiB one (both beyond the CPU caches), which
    // separates growth of the work from the cost of leaving the caches.
    let lines: Vec<Vec<u8>> = [16 * 1024, 1024 * 1024, 4 * 1024 * 1024]
        .into_iter()
        .map(one_huge_line)
        .collect();
    let line_reads: Vec<Vec<&[u8]>> = lines
        .iter()
        .map(|line| ReadSize::Fixed(64).split(line))
        .collect();
    // The floor of each line: its payload deserialised, as for the streams above.
    let owned_payloads: Vec<Vec<String>> = lines
        .iter()
        .map(|line| floor::split_payloads(std::str::from_utf8(line).expect("UTF-8")))
        .collect();
    let line_payloads: Vec<Vec<&str>> = owned_payloads
        .iter()
        .map(|payloads| payloads.iter().map(String::as_str).collect())
        .collect();
    let mut racers: Vec<Contestant<'_>> = line_reads
        .iter()
        .map(|reads| Contestant::new("line", move || contestants::events(reads).1))
        .collect();
    racers.push(Contestant::new("1M one read", || {
        contestants::events(&[&lines[1]]).1
    }));
    for payloads in &line_payloads {
        racers.push(Contestant::new("line floor", move || {
            floor::floor(payloads)
        }));
    }
    let times = race(&mut racers, settings.budget);
    let per_byte = |time: Duration, len: usize| time.as_nanos() as f64 / len as f64;
    let costs: Vec<f64> = (0..3).map(|i| per_byte(times[i], lines[i].len())).collect();
    let floors: Vec<f64> = (0..3)
        .map(|i| per_byte(times[4 + i], lines[i].len()))
        .collect();
    let line_growth = costs[1] / costs[0];
    writeln!(
        section,
        "| one 1 MiB `data:` line in 64 B reads vs a 16 KiB line | 1 | {:.2} → {:.2} ns/byte ({:.2}×) | {:.2} → {:.2} ns/byte ({:.0} MB/s; in one read: {:.0} MB/s) | **{line_growth:.2}×** |",
        floors[0],
        floors[1],
        floors[1] / floors[0],
        costs[0],
        costs[1],
        mb_per_s(lines[1].len(), times[1]),
        mb_per_s(lines[1].len(), times[3]),
    )
    .unwrap();
    writeln!(
        section,
        "| (for reference) a 4 MiB line vs the 1 MiB line, both in 64 B reads | 1 | {:.2} → {:.2} ns/byte ({:.2}×) | {:.2} → {:.2} ns/byte | {:.2}× |",
        floors[1],
        floors[2],
        floors[2] / floors[1],
        costs[1],
        costs[2],
        costs[2] / costs[1],
    )
    .unwrap();
    ratios.push(("1 MiB line in 64 B reads".into(), line_growth));

    let worst = ratios.iter().map(|(_, ratio)| *ratio).fold(0f64, f64::max);
    let failing: Vec<String> = ratios
        .iter()
        .filter(|(_, ratio)| *ratio > LINEAR_TARGET)
        .map(|(name, ratio)| format!("{name} {ratio:.2}×"))
        .collect();
    writeln!(
        section,
        "\nTarget 3 (≤ {LINEAR_TARGET}× per delta): worst {worst:.2}× — {}{}.\n",
        verdict(failing.is_empty()),
        if failing.is_empty() {
            String::new()
        } else {
            format!(" ({})", failing.join(", "))
        }
    )
    .unwrap();
    emit(report, &section);
}

/// Target 4: reading the partial arguments of one huge tool call.
fn partial_arguments(settings: &Settings, report: &mut String) {
    let mut section = String::from(
        "### Target 4: live partial tool arguments\n\n\
         One tool call streamed in 1–4 KiB reads, every event read; cost per fragment (ns) of \
         each way to read its arguments while it streams.\n\n\
         | fragments | deltas only | + `partial()` after every fragment | + `partial_value()` every 10,000 | + `partial_value()` every 1,000 | + `partial_value()` after every fragment |\n\
         |---|---|---|---|---|---|\n",
    );
    let sizes = [1_000, settings.tool_large];
    let streams: Vec<Stream> = sizes
        .iter()
        .map(|&n| Spec::one_tool_call(n).generate())
        .collect();
    let reads: Vec<Vec<&[u8]>> = streams
        .iter()
        .map(|stream| ReadSize::Network.split(&stream.bytes))
        .collect();
    let mut racers = Vec::new();
    for reads in &reads {
        for how in [
            ArgumentReads::Deltas,
            ArgumentReads::Partial,
            ArgumentReads::ValueEvery(10_000),
            ArgumentReads::ValueEvery(1_000),
        ] {
            racers.push(Contestant::new(format!("{how:?}"), move || {
                read_arguments(reads, how)
            }));
        }
    }
    let times = race(&mut racers, settings.budget);
    let per_fragment = |time: Duration, fragments: usize| time.as_nanos() as f64 / fragments as f64;

    // After every fragment the value is rebuilt from the whole text: quadratic by nature, so
    // it is measured on small calls only and the growth is shown.
    let every_sizes: &[usize] = if settings.quick {
        &[1_000, 2_000]
    } else {
        &[1_000, 2_000, 4_000]
    };
    let every_streams: Vec<Stream> = every_sizes
        .iter()
        .map(|&n| Spec::one_tool_call(n).generate())
        .collect();
    let every_reads: Vec<Vec<&[u8]>> = every_streams
        .iter()
        .map(|stream| ReadSize::Network.split(&stream.bytes))
        .collect();
    let mut every_racers: Vec<Contestant<'_>> = every_reads
        .iter()
        .map(|reads| {
            Contestant::new("every", move || {
                read_arguments(reads, ArgumentReads::ValueEvery(1))
            })
        })
        .collect();
    let every_budget = Budget {
        samples: settings.budget.samples.min(5),
        ..settings.budget
    };
    let every_times = race(&mut every_racers, every_budget);

    for (index, &fragments) in sizes.iter().enumerate() {
        let every = every_sizes
            .iter()
            .position(|&n| n == fragments)
            .map_or("(quadratic, see below)".to_owned(), |i| {
                format!("{:.0}", per_fragment(every_times[i], fragments))
            });
        writeln!(
            section,
            "| {fragments} | {:.0} | {:.0} | {:.0} | {:.0} | {every} |",
            per_fragment(times[index * 4], fragments),
            per_fragment(times[index * 4 + 1], fragments),
            per_fragment(times[index * 4 + 2], fragments),
            per_fragment(times[index * 4 + 3], fragments),
        )
        .unwrap();
    }
    let growth = |offset: usize| {
        per_fragment(times[4 + offset], sizes[1]) / per_fragment(times[offset], sizes[0])
    };
    let (deltas_growth, partial_growth, sparse_growth, value_growth) =
        (growth(0), growth(1), growth(2), growth(3));
    writeln!(
        section,
        "| **{} ÷ 1,000** | **{deltas_growth:.2}×** | **{partial_growth:.2}×** | **{sparse_growth:.2}×** | {value_growth:.2}× | |",
        sizes[1]
    )
    .unwrap();
    let every_costs: Vec<String> = every_sizes
        .iter()
        .zip(&every_times)
        .map(|(&n, &time)| {
            format!(
                "{n} fragments: {} in all, {:.1} µs per fragment",
                show(time),
                per_fragment(time, n) / 1e3
            )
        })
        .collect();
    let worst = deltas_growth.max(partial_growth).max(sparse_growth);
    writeln!(
        section,
        "\nA value is built from the whole text so far, so each `partial_value()` costs O(length): \
         read every N fragments it adds O(n²/N) in all, which stays small against the stream \
         while N is large next to n (every 10,000: {sparse_growth:.2}×; every 1,000: \
         {value_growth:.2}× at {} fragments). After every fragment it is quadratic: {}. \
         Extrapolated to {} fragments: about {:.0} s. `partial()` after every fragment (a \
         borrowed prefix plus an O(depth) suffix) is the linear way to show live arguments.\n\n\
         Target 4 (linear when read after every fragment via `partial()`, via the deltas, or as a \
         value every 10,000 fragments; ≤ {LINEAR_TARGET}×): worst {worst:.2}× — {}.\n",
        sizes[1],
        every_costs.join("; "),
        settings.tool_large,
        extrapolate_quadratic(every_sizes, &every_times, settings.tool_large),
        verdict(worst <= LINEAR_TARGET)
    )
    .unwrap();
    emit(report, &section);
}

/// Seconds for `n` from the largest measured size, assuming cost ∝ size².
fn extrapolate_quadratic(sizes: &[usize], times: &[Duration], n: usize) -> f64 {
    let (size, time) = (sizes[sizes.len() - 1], times[times.len() - 1]);
    time.as_secs_f64() * (n as f64 / size as f64).powi(2)
}

/// Target 6: time from pushing one whole event to reading its first event.
fn latency(settings: &Settings, report: &mut String) {
    let mut section = String::from(
        "### Target 6: latency per event\n\n\
         Time from `push` of bytes holding exactly one whole event to `next_event` yielding \
         its first event, over every event of the stream; each event is first copied into a \
         reused read buffer, as a socket read delivers it. The short and the long stream are \
         measured in alternating rounds; each percentile is the median over the rounds, so a \
         burst of load from elsewhere on the machine does not decide it.\n\n\
         | stream | events per round | rounds | p50 | p99 | p99.9 | max |\n|---|---|---|---|---|---|---|\n",
    );
    let rounds = if settings.quick { 3 } else { 7 };
    let mut p50s = Vec::new();
    let mut p99s = Vec::new();
    for (short, long) in [
        (Spec::text(1_000), Spec::text(settings.large)),
        (
            Spec::one_tool_call(1_000),
            Spec::one_tool_call(settings.large),
        ),
    ] {
        let streams = [short.generate(), long.generate()];
        let mut percentiles = [Vec::new(), Vec::new()];
        let mut counts = [0, 0];
        for _ in 0..rounds {
            for (index, stream) in streams.iter().enumerate() {
                let passes = (settings.large / stream.events.len()).clamp(1, 20);
                let mut timings = Vec::with_capacity(stream.events.len() * passes);
                for _ in 0..passes {
                    measure_latencies(stream, &mut timings);
                }
                timings.sort_unstable();
                counts[index] = timings.len();
                percentiles[index].push([
                    percentile(&timings, 50.0),
                    percentile(&timings, 99.0),
                    percentile(&timings, 99.9),
                    timings[timings.len() - 1],
                ]);
            }
        }
        for (index, stream) in streams.iter().enumerate() {
            let median_of = |which: usize| {
                let mut values: Vec<u64> = percentiles[index].iter().map(|p| p[which]).collect();
                values.sort_unstable();
                values[values.len() / 2]
            };
            let (p50, p99) = (median_of(0), median_of(1));
            writeln!(
                section,
                "| {} | {} | {rounds} | {p50} ns | {p99} ns | {} ns | {} ns |",
                stream.spec.name,
                counts[index],
                median_of(2),
                median_of(3)
            )
            .unwrap();
            p50s.push(p50 as f64);
            p99s.push(p99 as f64);
        }
    }
    let growth = |values: &[f64]| (values[1] / values[0]).max(values[3] / values[2]);
    let (p50_growth, p99_growth) = (growth(&p50s), growth(&p99s));
    writeln!(
        section,
        "\nTarget 6 (latency does not grow with the stream; long ÷ short within \
         {LINEAR_TARGET}×): p50 {p50_growth:.2}×, p99 {p99_growth:.2}× — {}.\n",
        verdict(p50_growth <= LINEAR_TARGET && p99_growth <= LINEAR_TARGET)
    )
    .unwrap();
    emit(report, &section);
}

fn measure_latencies(stream: &Stream, timings: &mut Vec<u64>) {
    let mut assembler = Assembler::new();
    // Each event arrives in a reused read buffer, as from a socket: just written, so in cache.
    // Read in place from the generated stream, a long stream's events would come from memory
    // no cache or TLB holds, which says nothing about the assembler.
    let mut read = Vec::new();
    for range in &stream.events {
        read.clear();
        read.extend_from_slice(&stream.bytes[range.clone()]);
        let bytes = black_box(read.as_slice());
        let start = Instant::now();
        assembler.push(bytes);
        let first = assembler
            .next_event()
            .expect("the stream assembles")
            .map(|event| event_weight(&event));
        let elapsed = start.elapsed();
        black_box(first);
        timings.push(elapsed.as_nanos() as u64);
        while let Some(event) = assembler.next_event().expect("the stream assembles") {
            black_box(event_weight(&event));
        }
    }
    black_box(assembler.finish().expect("the stream assembles"));
}
