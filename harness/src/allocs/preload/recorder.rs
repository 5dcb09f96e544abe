//! `--allocs` without code change: malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
//! memalign and valloc, counted while the measuring harness holds a window open
//! (`harness_allocs_open` / `harness_allocs_close`, which it finds with `dlsym(RTLD_DEFAULT)`).
//! Every thread counts. Outside a window a hook costs one relaxed atomic load.
//!
//! `free` has no size, so live, peak and leaked bytes count `malloc_usable_size` (the request
//! rounded up to malloc's chunk); `alloc_bytes` counts the bytes asked for, and for a growing
//! realloc the new request minus the old block's usable size.
//!
//! The hooks never allocate. Resolving the real functions (`dlsym(RTLD_NEXT)`) may itself call
//! calloc or malloc; those calls are served from a static buffer that is never freed.
//!
//! One source, two builds: a module of `harness_interpose` (`interpose/src/lib.rs`), and on its
//! own (`core` only, no crates: `cdylib.rs` is its root) compiled by harness's build script
//! into the recorder every binary with harness carries (`super::embedded`).

use core::ffi::{c_int, c_void};
use core::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering::Relaxed};

#[link(name = "c")]
unsafe extern "C" {
    fn dlsym(handle: *mut c_void, name: *const core::ffi::c_char) -> *mut c_void;
    fn malloc_usable_size(p: *mut c_void) -> usize;
}

/// glibc's `RTLD_NEXT`.
const RTLD_NEXT: *mut c_void = -1isize as *mut c_void;
/// `ENOMEM` on Linux.
const ENOMEM: c_int = 12;

static OPEN: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static DEALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

/// The C layout `harness::allocs::source::RawCounts` reads.
#[repr(C)]
pub struct RawCounts {
    allocations: u64,
    deallocations: u64,
    alloc_bytes: u64,
    peak_bytes: i64,
    live_end: i64,
}

/// Zero the counters and count every thread's allocations until [`harness_allocs_close`].
#[unsafe(no_mangle)]
pub extern "C" fn harness_allocs_open() {
    for c in [&ALLOCATIONS, &DEALLOCATIONS, &ALLOC_BYTES] {
        c.store(0, Relaxed);
    }
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    OPEN.store(true, core::sync::atomic::Ordering::SeqCst);
}

/// Stop counting and write what the window counted to `out`.
///
/// # Safety
/// `out` must be null or point to a writable `RawCounts`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn harness_allocs_close(out: *mut RawCounts) {
    OPEN.store(false, core::sync::atomic::Ordering::SeqCst);
    if out.is_null() {
        return;
    }
    let counts = RawCounts {
        allocations: ALLOCATIONS.load(Relaxed),
        deallocations: DEALLOCATIONS.load(Relaxed),
        alloc_bytes: ALLOC_BYTES.load(Relaxed),
        peak_bytes: PEAK.load(Relaxed),
        live_end: LIVE.load(Relaxed),
    };
    // SAFETY: the caller passes a writable RawCounts.
    unsafe { out.write(counts) };
}

fn usable(p: *mut c_void) -> i64 {
    if p.is_null() || in_boot(p) {
        0
    } else {
        // SAFETY: p is a live block of the real allocator.
        unsafe { malloc_usable_size(p) as i64 }
    }
}

fn grow_live(bytes: i64) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

fn counted_alloc(p: *mut c_void, asked: usize) {
    if !p.is_null() && OPEN.load(Relaxed) {
        ALLOCATIONS.fetch_add(1, Relaxed);
        ALLOC_BYTES.fetch_add(asked as u64, Relaxed);
        grow_live(usable(p));
    }
}

// Bootstrap memory for allocations made while dlsym resolves the real functions.
const BOOT_SIZE: usize = 16 * 1024;
#[repr(C, align(16))]
struct Boot([u8; BOOT_SIZE]);
static mut BOOT: Boot = Boot([0; BOOT_SIZE]);
static BOOT_USED: AtomicUsize = AtomicUsize::new(0);
static RESOLVING: AtomicBool = AtomicBool::new(false);

fn boot_base() -> usize {
    &raw const BOOT as usize
}

fn in_boot(p: *mut c_void) -> bool {
    (boot_base()..boot_base() + BOOT_SIZE).contains(&(p as usize))
}

fn boot_alloc(size: usize) -> *mut c_void {
    let size = size.div_ceil(16) * 16;
    let at = BOOT_USED.fetch_add(size, Relaxed);
    if at + size > BOOT_SIZE {
        return core::ptr::null_mut();
    }
    (boot_base() + at) as *mut c_void
}

/// The real function `name`, resolved once; 0 while another resolution is under way (the
/// caller then serves from the bootstrap buffer).
fn real(slot: &AtomicUsize, name: &core::ffi::CStr) -> usize {
    let p = slot.load(Relaxed);
    if p != 0 || RESOLVING.swap(true, Relaxed) {
        return p;
    }
    // SAFETY: a NUL-terminated name; RTLD_NEXT skips this library.
    let p = unsafe { dlsym(RTLD_NEXT, name.as_ptr()) } as usize;
    slot.store(p, Relaxed);
    RESOLVING.store(false, Relaxed);
    p
}

macro_rules! real_fn {
    ($slot:ident, $name:literal, fn($($t:ty),*) -> $ret:ty) => {{
        static $slot: AtomicUsize = AtomicUsize::new(0);
        let addr = real(&$slot, $name);
        // SAFETY: libc's function of this name and signature (checked non-null by the caller).
        (addr != 0).then(|| unsafe { core::mem::transmute::<usize, unsafe extern "C" fn($($t),*) -> $ret>(addr) })
    }};
}

/// Resolve every real function now (the library's constructor), so no hook resolves one while
/// the program runs threads.
pub fn resolve_all() {
    // SAFETY: malloc(0)/free of its result and calls with null or zero sizes are valid.
    unsafe {
        free(malloc(0));
        free(calloc(0, 0));
        free(realloc(core::ptr::null_mut(), 0));
        free(memalign(16, 0));
        free(aligned_alloc(16, 0));
        free(valloc(0));
        let mut p = core::ptr::null_mut();
        if posix_memalign(&mut p, 16, 0) == 0 {
            free(p);
        }
    }
}

/// Interposed `malloc`: counted inside a window.
///
/// # Safety
/// As for libc's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
    let Some(f) = real_fn!(REAL_MALLOC, c"malloc", fn(usize) -> *mut c_void) else {
        return boot_alloc(size);
    };
    // SAFETY: the caller's arguments.
    let p = unsafe { f(size) };
    counted_alloc(p, size);
    p
}

/// Interposed `calloc`: counted inside a window.
///
/// # Safety
/// As for libc's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut c_void {
    let Some(f) = real_fn!(REAL_CALLOC, c"calloc", fn(usize, usize) -> *mut c_void) else {
        // The bootstrap buffer is static, hence zeroed.
        return n.checked_mul(size).map_or(core::ptr::null_mut(), boot_alloc);
    };
    // SAFETY: the caller's arguments.
    let p = unsafe { f(n, size) };
    counted_alloc(p, n.saturating_mul(size));
    p
}

/// Interposed `free`: a deallocation inside a window.
///
/// # Safety
/// As for libc's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn free(p: *mut c_void) {
    if p.is_null() || in_boot(p) {
        return;
    }
    if OPEN.load(Relaxed) {
        DEALLOCATIONS.fetch_add(1, Relaxed);
        LIVE.fetch_sub(usable(p), Relaxed);
    }
    if let Some(f) = real_fn!(REAL_FREE, c"free", fn(*mut c_void) -> ()) {
        // SAFETY: the caller's pointer.
        unsafe { f(p) }
    }
}

/// Interposed `realloc`: one allocation; a growing one adds bytes; `realloc(p, 0)` frees.
///
/// # Safety
/// As for libc's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
    if in_boot(p) {
        // SAFETY: a new block (never counted: only dlsym's bootstrap memory gets here).
        let q = unsafe { malloc(size) };
        if !q.is_null() {
            let keep = size.min(boot_base() + BOOT_SIZE - p as usize);
            // SAFETY: both ranges are valid for `keep` bytes and distinct.
            unsafe { core::ptr::copy_nonoverlapping(p as *const u8, q as *mut u8, keep) };
        }
        return q;
    }
    let Some(f) = real_fn!(REAL_REALLOC, c"realloc", fn(*mut c_void, usize) -> *mut c_void) else {
        return core::ptr::null_mut();
    };
    let open = OPEN.load(Relaxed);
    let old = if open { usable(p) } else { 0 };
    // SAFETY: the caller's arguments.
    let q = unsafe { f(p, size) };
    if open {
        if p.is_null() {
            counted_alloc(q, size);
        } else if size == 0 {
            DEALLOCATIONS.fetch_add(1, Relaxed);
            LIVE.fetch_sub(old, Relaxed);
        } else if !q.is_null() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            ALLOC_BYTES.fetch_add((size as i64 - old).max(0) as u64, Relaxed);
            grow_live(usable(q) - old);
        }
    }
    q
}

/// Interposed `posix_memalign`: counted inside a window.
///
/// # Safety
/// As for libc's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> c_int {
    let Some(f) = real_fn!(REAL_POSIX_MEMALIGN, c"posix_memalign", fn(*mut *mut c_void, usize, usize) -> c_int) else {
        return ENOMEM;
    };
    // SAFETY: the caller's arguments.
    let r = unsafe { f(out, align, size) };
    if r == 0 {
        // SAFETY: on success libc wrote the block to *out.
        counted_alloc(unsafe { *out }, size);
    }
    r
}

macro_rules! aligned_hook {
    ($sym:ident, $slot:ident, $cname:literal, ($($arg:ident: $t:ty),*), $size:ident) => {
        #[doc = concat!("Interposed `", stringify!($sym), "`: counted inside a window.")]
        ///
        /// # Safety
        /// As for libc's.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $sym($($arg: $t),*) -> *mut c_void {
            let Some(f) = real_fn!($slot, $cname, fn($($t),*) -> *mut c_void) else {
                return core::ptr::null_mut();
            };
            // SAFETY: the caller's arguments.
            let p = unsafe { f($($arg),*) };
            counted_alloc(p, $size);
            p
        }
    };
}

aligned_hook!(aligned_alloc, REAL_ALIGNED_ALLOC, c"aligned_alloc", (align: usize, size: usize), size);
aligned_hook!(memalign, REAL_MEMALIGN, c"memalign", (align: usize, size: usize), size);
aligned_hook!(valloc, REAL_VALLOC, c"valloc", (size: usize), size);
