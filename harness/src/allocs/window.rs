//! The process-wide allocation counters behind a window. Every thread's allocations count while
//! a window is open (a worker thread's allocations are the call's too); the counters are plain
//! atomics so that the allocator hooks never allocate or lock.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering::Relaxed};

/// What one window counted. Bytes are signed where memory freed inside the window may have been
/// allocated before it (then `live_end` is negative: see [`Counts::foreign_free_bytes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Calls that handed out memory: alloc, alloc_zeroed (malloc, calloc, ...) and realloc.
    pub allocations: u64,
    /// Calls that gave memory back (dealloc, free); a shrinking or growing realloc is not one.
    pub deallocations: u64,
    /// Bytes asked for by alloc and alloc_zeroed, plus the bytes growing reallocs add.
    pub alloc_bytes: u64,
    /// The highest live bytes during the window, above the live bytes at its start.
    pub peak_bytes: i64,
    /// Live bytes at the end minus at the start.
    pub live_end: i64,
}

impl Counts {
    /// `leaked_bytes`: what the window left allocated (0 when it freed more than it allocated).
    pub fn leaked_bytes(&self) -> u64 {
        self.live_end.max(0) as u64
    }

    /// Bytes the window freed beyond those it allocated: memory from before the window (setup,
    /// warm-up, an earlier call), which a scenario must not free inside the measured call.
    pub fn foreign_free_bytes(&self) -> u64 {
        (-self.live_end).max(0) as u64
    }
}

static OPEN: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static DEALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

/// Zero the counters and start counting (every thread).
pub fn open() {
    ALLOCATIONS.store(0, Relaxed);
    DEALLOCATIONS.store(0, Relaxed);
    ALLOC_BYTES.store(0, Relaxed);
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    OPEN.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Stop counting and return what the window counted.
pub fn close() -> Counts {
    OPEN.store(false, std::sync::atomic::Ordering::SeqCst);
    Counts {
        allocations: ALLOCATIONS.load(Relaxed),
        deallocations: DEALLOCATIONS.load(Relaxed),
        alloc_bytes: ALLOC_BYTES.load(Relaxed),
        peak_bytes: PEAK.load(Relaxed),
        live_end: LIVE.load(Relaxed),
    }
}

#[inline]
fn is_open() -> bool {
    OPEN.load(Relaxed)
}

#[inline]
fn grow_live(bytes: i64) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

/// An allocation of `size` bytes (alloc, alloc_zeroed).
#[inline]
pub fn on_alloc(size: usize) {
    if is_open() {
        ALLOCATIONS.fetch_add(1, Relaxed);
        ALLOC_BYTES.fetch_add(size as u64, Relaxed);
        grow_live(size as i64);
    }
}

/// A deallocation of `size` bytes.
#[inline]
pub fn on_dealloc(size: usize) {
    if is_open() {
        DEALLOCATIONS.fetch_add(1, Relaxed);
        LIVE.fetch_sub(size as i64, Relaxed);
    }
}

/// A realloc from `old` to `new` bytes: one allocation; a growing one adds `new - old` bytes.
#[inline]
pub fn on_realloc(old: usize, new: usize) {
    if is_open() {
        ALLOCATIONS.fetch_add(1, Relaxed);
        ALLOC_BYTES.fetch_add(new.saturating_sub(old) as u64, Relaxed);
        grow_live(new as i64 - old as i64);
    }
}

/// Serialises the unit tests that open windows (the counters are process-wide).
#[cfg(test)]
pub(crate) static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_counts_only_while_open_and_tracks_peak_above_its_start() {
        let _g = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        on_alloc(999); // before the window: not counted
        open();
        on_alloc(100);
        on_realloc(100, 300); // grows by 200
        on_alloc(50);
        on_dealloc(300);
        on_realloc(50, 20); // shrinks: adds no bytes
        let c = close();
        on_alloc(7); // after: not counted
        assert_eq!((c.allocations, c.deallocations, c.alloc_bytes), (4, 1, 350));
        assert_eq!(c.peak_bytes, 350);
        assert_eq!((c.live_end, c.leaked_bytes(), c.foreign_free_bytes()), (20, 20, 0));
    }

    #[test]
    fn freeing_memory_from_before_the_window_is_not_a_negative_leak() {
        let _g = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        open();
        on_dealloc(64);
        let c = close();
        assert_eq!((c.leaked_bytes(), c.foreign_free_bytes(), c.peak_bytes), (0, 64, 0));
    }
}
