//! A small timing harness for ratios measured in one run: contestants run interleaved, sample
//! after sample, so that drift in machine load hits all of them alike; each reports its median.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Something to time; it returns a number that depends on its work so that nothing is
/// optimised away.
pub struct Contestant<'a> {
    /// Its name in tables.
    pub name: String,
    run: Box<dyn FnMut() -> usize + 'a>,
}

impl<'a> Contestant<'a> {
    /// A named contestant.
    pub fn new(name: impl Into<String>, run: impl FnMut() -> usize + 'a) -> Self {
        Contestant {
            name: name.into(),
            run: Box::new(run),
        }
    }
}

/// How long to measure.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Samples per contestant; the median is reported.
    pub samples: usize,
    /// Each sample repeats the work until it takes about this long.
    pub sample_time: Duration,
}

/// The median time of one run of each contestant, in order.
pub fn race(contestants: &mut [Contestant<'_>], budget: Budget) -> Vec<Duration> {
    race_samples(contestants, budget)
        .into_iter()
        .map(median)
        .collect()
}

/// The time of one run of each contestant (in order) in every sample: sample `i` of each ran
/// back to back with sample `i` of the others, so their ratios share the machine's state.
pub fn race_samples(contestants: &mut [Contestant<'_>], budget: Budget) -> Vec<Vec<Duration>> {
    let iterations: Vec<u32> = contestants
        .iter_mut()
        .map(|contestant| {
            let start = Instant::now();
            black_box((contestant.run)());
            let once = start.elapsed().max(Duration::from_nanos(1));
            (budget.sample_time.as_nanos() / once.as_nanos()).clamp(1, 1_000_000) as u32
        })
        .collect();
    let mut samples = vec![Vec::with_capacity(budget.samples); contestants.len()];
    for _ in 0..budget.samples {
        for (index, contestant) in contestants.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..iterations[index] {
                black_box((contestant.run)());
            }
            samples[index].push(start.elapsed() / iterations[index]);
        }
    }
    samples
}

/// The median of the ratios `numerator[i] / denominator[i]`, sample by sample.
pub fn paired_ratio(numerator: &[Duration], denominator: &[Duration]) -> f64 {
    let mut ratios: Vec<f64> = numerator
        .iter()
        .zip(denominator)
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// The median of some durations.
pub fn median(mut durations: Vec<Duration>) -> Duration {
    durations.sort();
    durations[durations.len() / 2]
}

/// The `p`-th percentile (0–100) of sorted nanosecond timings.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Megabytes (10^6 bytes) per second.
pub fn mb_per_s(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / time.as_secs_f64() / 1e6
}

/// Millions of deltas per second.
pub fn m_per_s(count: usize, time: Duration) -> f64 {
    count as f64 / time.as_secs_f64() / 1e6
}

/// A duration for tables: µs below 10 ms, ms above.
pub fn show(time: Duration) -> String {
    if time < Duration::from_millis(10) {
        format!("{:.1} µs", time.as_secs_f64() * 1e6)
    } else {
        format!("{:.2} ms", time.as_secs_f64() * 1e3)
    }
}
