//! Guards against quadratic behaviour (issue 3, targets 3 and 4): the cost per delta of a
//! stream eight times longer must stay within a few times the cost per delta of a short one.
//! Quadratic work would show up as about 8×; the bound of 3× leaves room for noise on a shared
//! machine and for cache effects, which is all these checks can afford in a debug build.
//! `cargo bench --bench targets` measures the real ratios (release, 100× longer streams).

#[allow(dead_code)] // The bench support module is shared; these tests use part of it.
#[path = "../benches/support/mod.rs"]
mod support;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use support::contestants::{self, read_arguments, ArgumentReads};
use support::generate::{one_huge_line, ReadSize, Spec};

/// Growth factor between the short and the long input.
const GROWTH: usize = 8;
/// Allowed rise of the cost per unit from the short to the long input.
const BOUND: f64 = 3.0;

/// One timing test at a time: tests run on parallel threads, and two of these sharing a core
/// would disturb each other's measurements.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The fastest of a few runs: the least disturbed by other work on the machine.
fn fastest(mut run: impl FnMut() -> usize) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(run());
            start.elapsed()
        })
        .min()
        .expect("three runs")
}

/// Asserts that `cost(n)` per unit grows less than `BOUND` from `small` to `GROWTH × small`.
fn assert_linear(name: &str, small: usize, mut cost: impl FnMut(usize) -> Duration) {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let large = small * GROWTH;
    let per_unit_small = cost(small).as_secs_f64() / small as f64;
    let per_unit_large = cost(large).as_secs_f64() / large as f64;
    let ratio = per_unit_large / per_unit_small;
    assert!(
        ratio < BOUND,
        "{name}: cost per unit rose {ratio:.2}× from {small} to {large} (bound {BOUND}×)"
    );
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
            fastest(|| contestants::events(&reads).1)
        });
    }
}

#[test]
fn one_huge_tool_call_costs_the_same_per_fragment_even_when_its_partial_value_is_read() {
    for how in [ArgumentReads::Deltas, ArgumentReads::Partial] {
        assert_linear(&format!("tool call, {how:?}"), 1_000, |fragments| {
            let stream = Spec::one_tool_call(fragments).generate();
            let reads = ReadSize::Network.split(&stream.bytes);
            fastest(|| read_arguments(&reads, how))
        });
    }
}

#[test]
fn many_events_in_one_read_cost_the_same_per_event() {
    assert_linear("events in one read", 1_000, |deltas| {
        let stream = Spec::text(deltas).generate();
        fastest(|| contestants::events(&[&stream.bytes]).1)
    });
}

#[test]
fn one_long_line_in_tiny_reads_costs_the_same_per_byte() {
    assert_linear("long line in 64 B reads", 16 * 1024, |len| {
        let line = one_huge_line(len);
        let reads = ReadSize::Fixed(64).split(&line);
        fastest(|| contestants::events(&reads).1)
    });
}
