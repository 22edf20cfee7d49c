//! Issue 11's classes at random: the fuzzer's bytes drive a structure-aware generator
//! (`benches/support/hostile.rs`) that emits large streams — many tool calls without ids, many
//! blocks, many keys, empty parts, long names and ids, several dialects' framing in one
//! stream, a forced dialect, a 1 MiB or tiny message limit — and the oracles check what a
//! counting allocator saw: the peak heap within a few times the input and within what the limit
//! allows, the bytes allocated linear in the input, every error typed with place and partial.
#![no_main]

#[allow(dead_code)]
#[path = "../../benches/support/hostile.rs"]
mod hostile;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

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

fuzz_target!(|seed: &[u8]| {
    let case = hostile::Case::from_bytes(seed, MAX_SIZE);
    let options = case.options();
    let start = LIVE.load(Ordering::Relaxed);
    PEAK.store(start, Ordering::Relaxed);
    let allocated = ALLOCATED.load(Ordering::Relaxed);
    let outcome = deltafold::assemble(&case.bytes, options);
    // The CLI's `--json` path, under the same bounds: each message written straight from the
    // model, without a copy into `serde_json` values.
    if let Ok(completion) = &outcome {
        for message in completion.messages() {
            serde_json::to_writer(std::io::sink(), message).expect("a message is written");
        }
    }
    let cost = hostile::Cost {
        peak: PEAK.load(Ordering::Relaxed) - start,
        allocated: ALLOCATED.load(Ordering::Relaxed) - allocated,
    };
    if let Err(failure) = case.check(&outcome, cost) {
        panic!(
            "{failure}\nclasses {:?}, forced {:?}, max_message_bytes {:?}, {} bytes: {:?}",
            case.classes,
            case.forced,
            case.max_message_bytes,
            case.bytes.len(),
            String::from_utf8_lossy(&case.bytes[..case.bytes.len().min(600)])
        );
    }
});
