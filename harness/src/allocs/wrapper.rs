//! `CountingAllocator<A>`: for a binary with its own `#[global_allocator]` (jemalloc, mimalloc),
//! which the preload library cannot see. Opt-in:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: harness::CountingAllocator<std::alloc::System> =
//!     harness::CountingAllocator::new(std::alloc::System);
//! ```
//!
//! Outside a window each call costs one relaxed atomic load beside the inner allocator's work.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, Ordering};

use super::window;

/// Whether a `CountingAllocator` is this process's allocator: set on its first allocation.
pub(crate) static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A global allocator that counts `A`'s calls inside the harness's measuring windows.
#[derive(Debug, Default)]
pub struct CountingAllocator<A> {
    inner: A,
}

impl<A> CountingAllocator<A> {
    /// Wrap `inner`.
    pub const fn new(inner: A) -> Self {
        CountingAllocator { inner }
    }
}

#[inline]
fn installed() {
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to `inner` unchanged; the counting touches only atomics.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        installed();
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { self.inner.alloc(layout) };
        if !p.is_null() {
            window::on_alloc(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        installed();
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        if !p.is_null() {
            window::on_alloc(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        window::on_dealloc(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { self.inner.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            window::on_realloc(layout.size(), new_size);
        }
        p
    }
}
