//! Issue 11's classes at random: the fuzzer's bytes drive a structure-aware generator
//! (`benches/support/hostile.rs`) that emits large streams — many tool calls without ids, many
//! blocks, many keys, empty parts, long names and ids, several dialects' framing in one
//! stream, a forced dialect, a 1 MiB or tiny message limit — and the oracles check what a
//! counting allocator saw: the peak heap within a few times the input and within what the limit
//! allows, the bytes allocated linear in the input, every error typed with place and partial.
//! The same stream is then re-encoded, in 16 KiB reads, into a target the bytes pick
//! (`Encoder::try_encode`, each event's output dropped), under the same oracles.
#![no_main]

#[allow(dead_code)]
#[path = "../../benches/support/hostile.rs"]
mod hostile;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use deltafold::encode::{Encoder, Target};
use libfuzzer_sys::fuzz_target;

/// Counts live, peak and allocated bytes (the fuzzer runs one input at a time on one thread).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
    ALLOCATED.fetch_add(bytes, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; only atomic counters,
// which never allocate, are updated around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Streams up to this size: far past libFuzzer's usual few KiB, small enough for many runs.
const MAX_SIZE: usize = 4 << 20;

/// Starts counting: the live heap now, and the bytes allocated so far.
fn start() -> (usize, usize) {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    (live, ALLOCATED.load(Ordering::Relaxed))
}

/// What was counted since `start`.
fn cost((live, allocated): (usize, usize)) -> hostile::Cost {
    hostile::Cost {
        peak: PEAK.load(Ordering::Relaxed) - live,
        allocated: ALLOCATED.load(Ordering::Relaxed) - allocated,
    }
}

/// Assembles the case in 16 KiB reads, every event re-encoded into `target` and dropped.
fn reencode(case: &hostile::Case, target: Target) -> Result<deltafold::Completion, deltafold::Error> {
    let mut assembler = deltafold::Assembler::with_options(case.options());
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    let mut step = |assembler: &mut deltafold::Assembler| -> Result<(), deltafold::Error> {
        while let Some(event) = assembler.next_event()? {
            let event = event.into_owned();
            let encoded = encoder.try_encode(&event, assembler, &mut out);
            out.clear();
            encoded?;
        }
        Ok(())
    };
    for read in case.bytes.chunks(16 * 1024) {
        assembler.push(read);
        step(&mut assembler)?;
    }
    assembler.end_input();
    step(&mut assembler)?;
    encoder.finish(&mut out);
    assembler.finish()
}

fn fail(case: &hostile::Case, path: &str, failure: &str) -> ! {
    panic!(
        "{path}: {failure}\nclasses {:?}, forced {:?}, max_message_bytes {:?}, {} bytes: {:?}",
        case.classes,
        case.forced,
        case.max_message_bytes,
        case.bytes.len(),
        String::from_utf8_lossy(&case.bytes[..case.bytes.len().min(600)])
    );
}

fuzz_target!(|seed: &[u8]| {
    let case = hostile::Case::from_bytes(seed, MAX_SIZE);
    let options = case.options();
    let counting = start();
    let outcome = deltafold::assemble(&case.bytes, options);
    // The CLI's `--json` path, under the same bounds: each message written straight from the
    // model, without a copy into `serde_json` values.
    if let Ok(completion) = &outcome {
        for message in completion.messages() {
            serde_json::to_writer(std::io::sink(), message).expect("a message is written");
        }
    }
    if let Err(failure) = case.check(&outcome, cost(counting)) {
        fail(&case, "assembled", &failure);
    }
    drop(outcome);
    let target = Target::ALL[seed.len() % Target::ALL.len()];
    let counting = start();
    let outcome = reencode(&case, target);
    if let Err(failure) = case.check(&outcome, cost(counting)) {
        fail(&case, &format!("re-encoded into {target}"), &failure);
    }
});
