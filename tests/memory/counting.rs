//! A counting global allocator: per thread, the live and peak heap bytes, the number of
//! allocations and the bytes they asked for, so that memory held and work done can be counted
//! exactly, and test threads running side by side do not see each other's allocations.
//!
//! A `realloc` counts as one allocation of its new size (that is what growing a buffer asks
//! for) and changes the live heap by the difference. Counting needs one `unsafe impl
//! GlobalAlloc`, here in the tests only; the library itself stays `#![forbid(unsafe_code)]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Installed by this test binary as its global allocator.
pub struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

/// Records a change of the live heap and, for an allocation, the bytes it asked for.
fn record(change: isize, asked: Option<usize>) {
    // `try_with`: during thread teardown the counters may already be gone.
    let _ = LIVE.try_with(|live| {
        let now = live.get() + change;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
    if let Some(bytes) = asked {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        let _ = ALLOCATED.try_with(|total| total.set(total.get() + bytes));
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; only thread-local
// counters, whose updates never allocate, are added around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            record(layout.size() as isize, Some(layout.size()));
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            record(layout.size() as isize, Some(layout.size()));
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        record(-(layout.size() as isize), None);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            record(new_size as isize - layout.size() as isize, Some(new_size));
        }
        moved
    }
}

/// What a measured closure cost in heap, on the current thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeapUse {
    /// Highest live heap above the level at the start, in bytes.
    pub peak: usize,
    /// Live heap above the start level when the closure returned (what its result holds).
    pub retained: usize,
    /// Allocations (including reallocations) made.
    pub allocations: usize,
    /// Bytes those allocations asked for, in total.
    pub allocated: usize,
}

/// Runs `work` and reports its heap use on this thread. Measurements nest: an inner one leaves
/// the outer one's peak as it would have been.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, HeapUse) {
    let start = LIVE.with(Cell::get);
    let outer_peak = PEAK.with(|peak| peak.replace(start));
    let allocations = ALLOCATIONS.with(Cell::get);
    let allocated = ALLOCATED.with(Cell::get);
    let result = work();
    let peak = PEAK.with(|peak| {
        let inner = peak.get();
        peak.set(inner.max(outer_peak));
        inner
    });
    let heap = HeapUse {
        peak: (peak - start).max(0) as usize,
        retained: (LIVE.with(Cell::get) - start).max(0) as usize,
        allocations: ALLOCATIONS.with(Cell::get) - allocations,
        allocated: ALLOCATED.with(Cell::get) - allocated,
    };
    (result, heap)
}
