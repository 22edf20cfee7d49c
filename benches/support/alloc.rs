//! A counting global allocator: live and peak heap bytes and the number of allocations of the
//! current thread, so peak memory and allocations per delta can be measured exactly (and test
//! threads running side by side do not see each other's allocations).
//!
//! `realloc` counts as a change of size (`new - old`), which is what growing a large buffer
//! costs when the system allocator moves its pages instead of copying them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Install with `#[global_allocator] static ALLOCATOR: Counting = Counting;`.
pub struct Counting;

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn change(bytes: isize, allocation: bool) {
    // `try_with`: during thread teardown the counters may already be gone.
    let _ = CURRENT.try_with(|current| {
        let now = current.get() + bytes;
        current.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
    if allocation {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; only counters are added,
// and updating them never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = System.alloc(layout);
        if !pointer.is_null() {
            change(layout.size() as isize, true);
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = System.alloc_zeroed(layout);
        if !pointer.is_null() {
            change(layout.size() as isize, true);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        System.dealloc(pointer, layout);
        change(-(layout.size() as isize), false);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = System.realloc(pointer, layout, new_size);
        if !moved.is_null() {
            change(new_size as isize - layout.size() as isize, true);
        }
        moved
    }
}

/// What a measured closure cost in heap, on the current thread.
#[derive(Debug, Clone, Copy)]
pub struct HeapUse {
    /// Highest live heap above the level at the start, in bytes.
    pub peak: usize,
    /// Live heap above the start level when the closure returned (what its result holds).
    pub retained: usize,
    /// Allocations (including reallocations) made.
    pub allocations: usize,
}

/// Runs `work` and reports its heap use on this thread.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, HeapUse) {
    let start = CURRENT.with(Cell::get);
    PEAK.with(|peak| peak.set(start));
    let allocations = ALLOCATIONS.with(Cell::get);
    let result = work();
    let heap = HeapUse {
        peak: (PEAK.with(Cell::get) - start).max(0) as usize,
        retained: (CURRENT.with(Cell::get) - start).max(0) as usize,
        allocations: ALLOCATIONS.with(Cell::get) - allocations,
    };
    (result, heap)
}
