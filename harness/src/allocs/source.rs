//! Where this process's allocation counts come from: the opt-in [`super::CountingAllocator`], the
//! preload library's malloc hooks (`harness_interpose`, loaded with `LD_PRELOAD`), or nowhere.
//! Nowhere is said as a reason, never as 0 allocations.

use std::ffi::{CStr, c_void};
use std::path::Path;

use super::window::{self, Counts};

/// The preload library's window, as it exports it (`interpose/src/allocs.rs`).
pub const PRELOAD_OPEN: &CStr = c"harness_allocs_open";
/// Closes the window and writes a [`RawCounts`].
pub const PRELOAD_CLOSE: &CStr = c"harness_allocs_close";

/// The C layout of [`Counts`] the preload library fills.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct RawCounts {
    /// As [`Counts::allocations`].
    pub allocations: u64,
    /// As [`Counts::deallocations`].
    pub deallocations: u64,
    /// As [`Counts::alloc_bytes`].
    pub alloc_bytes: u64,
    /// As [`Counts::peak_bytes`].
    pub peak_bytes: i64,
    /// As [`Counts::live_end`].
    pub live_end: i64,
}

type OpenFn = unsafe extern "C" fn();
type CloseFn = unsafe extern "C" fn(*mut RawCounts);

/// What counts allocations in this process.
#[derive(Debug, Clone, Copy)]
pub enum AllocSource {
    /// `harness::CountingAllocator` is the global allocator: Rust's allocations, every thread.
    Wrapper,
    /// The preload library hooks malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
    /// memalign and valloc: the System allocator's calls and C libraries', every thread.
    Preload {
        /// `harness_allocs_open`.
        open: OpenFn,
        /// `harness_allocs_close`.
        close: CloseFn,
    },
}

impl AllocSource {
    /// The source here, or why nothing counts (the row says so; it never says 0).
    pub fn find() -> Result<AllocSource, String> {
        // The wrapper first: with both, malloc under the wrapper would count each Rust
        // allocation twice; the wrapper's are the ones a `#[global_allocator]` binary makes.
        if super::wrapper::INSTALLED.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(AllocSource::Wrapper);
        }
        // SAFETY: dlsym with NUL-terminated names; RTLD_DEFAULT searches the loaded objects.
        let (open, close) = unsafe {
            (
                libc::dlsym(libc::RTLD_DEFAULT, PRELOAD_OPEN.as_ptr()),
                libc::dlsym(libc::RTLD_DEFAULT, PRELOAD_CLOSE.as_ptr()),
            )
        };
        if open.is_null() || close.is_null() {
            return Err(not_counted_reason(std::env::current_exe().ok().as_deref()));
        }
        // SAFETY: the preload library exports these two symbols with exactly these signatures.
        unsafe {
            Ok(AllocSource::Preload {
                open: std::mem::transmute::<*mut c_void, OpenFn>(open),
                close: std::mem::transmute::<*mut c_void, CloseFn>(close),
            })
        }
    }

    /// The `source` label stamped on every allocation metric.
    pub fn label(&self) -> &'static str {
        match self {
            AllocSource::Wrapper => "allocs-wrapper",
            AllocSource::Preload { .. } => "allocs-preload",
        }
    }

    /// Start counting (zeroes the counters).
    pub fn open(&self) {
        match self {
            AllocSource::Wrapper => window::open(),
            // SAFETY: the preload's function takes nothing and touches only its atomics.
            AllocSource::Preload { open, .. } => unsafe { open() },
        }
    }

    /// Stop counting; what the window counted.
    pub fn close(&self) -> Counts {
        match self {
            AllocSource::Wrapper => window::close(),
            AllocSource::Preload { close, .. } => {
                let mut raw = RawCounts::default();
                // SAFETY: `raw` is a live RawCounts the function fills.
                unsafe { close(&mut raw) };
                Counts {
                    allocations: raw.allocations,
                    deallocations: raw.deallocations,
                    alloc_bytes: raw.alloc_bytes,
                    peak_bytes: raw.peak_bytes,
                    live_end: raw.live_end,
                }
            }
        }
    }
}

/// The `LD_PRELOAD` entry that loads `lib` into a counting process, before whatever `env` or
/// the parent's environment already preloads. No `HARNESS_INTERPOSE_OUT`: the library then
/// records no env or file effects, only the allocation windows the child opens.
pub fn preload_env(lib: &Path, env: &std::collections::BTreeMap<String, String>) -> (String, String) {
    let inherited = env
        .get("LD_PRELOAD")
        .cloned()
        .or_else(|| std::env::var("LD_PRELOAD").ok())
        .filter(|s| !s.is_empty());
    let lib = lib.display().to_string();
    let value = match inherited {
        Some(rest) => format!("{lib}:{rest}"),
        None => lib,
    };
    ("LD_PRELOAD".to_owned(), value)
}

/// Why a process without the wrapper or the preload counts nothing.
pub fn not_counted_reason(exe: Option<&Path>) -> String {
    match exe.map(is_static_elf) {
        Some(Ok(true)) => "not counted: statically linked binary, no preload possible \
                           (use harness::CountingAllocator as its #[global_allocator])"
            .to_owned(),
        _ => "not counted: preload absent (harness_interpose not loaded; or use \
              harness::CountingAllocator as the #[global_allocator])"
            .to_owned(),
    }
}

/// Whether the ELF file at `path` is statically linked: it has no `PT_INTERP` program header,
/// so no dynamic loader runs and `LD_PRELOAD` is never read. The parent asks this of a suite
/// binary before running it.
pub fn is_static_elf(path: &Path) -> std::io::Result<bool> {
    let bytes = std::fs::read(path)?;
    let bad = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: not a 64-bit little-endian ELF file", path.display()),
        )
    };
    if bytes.len() < 64 || &bytes[..4] != b"\x7fELF" || bytes[4] != 2 || bytes[5] != 1 {
        return Err(bad());
    }
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]) as usize;
    let phoff = u64::from_le_bytes(bytes[32..40].try_into().map_err(|_| bad())?) as usize;
    let (phentsize, phnum) = (u16_at(54), u16_at(56));
    const PT_INTERP: u32 = 3;
    for i in 0..phnum {
        let at = phoff + i * phentsize;
        let Some(h) = bytes.get(at..at + 4) else { return Err(bad()) };
        if u32::from_le_bytes(h.try_into().map_err(|_| bad())?) == PT_INTERP {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_test_binary_without_preload_or_wrapper_says_why_and_never_counts_zero() {
        let reason = AllocSource::find().unwrap_err();
        assert!(reason.starts_with("not counted: preload absent"), "{reason}");
    }

    #[test]
    fn a_dynamic_binary_has_an_interpreter_and_garbage_is_an_error_naming_the_file() {
        let exe = std::env::current_exe().unwrap();
        assert!(!is_static_elf(&exe).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk");
        std::fs::write(&junk, b"#!/bin/sh\n").unwrap();
        let e = is_static_elf(&junk).unwrap_err().to_string();
        assert!(e.contains("junk") && e.contains("ELF"), "{e}");
    }

    #[test]
    fn a_static_elf_without_pt_interp_is_said_to_be_static() {
        // A minimal ELF64 header with one PT_LOAD program header and no PT_INTERP.
        let mut elf = vec![0u8; 64 + 56];
        elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
        elf[32..40].copy_from_slice(&64u64.to_le_bytes());
        elf[54..56].copy_from_slice(&56u16.to_le_bytes());
        elf[56..58].copy_from_slice(&1u16.to_le_bytes());
        elf[64..68].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("static");
        std::fs::write(&path, &elf).unwrap();
        assert!(is_static_elf(&path).unwrap());
        assert!(not_counted_reason(Some(&path)).contains("statically linked"));
        elf[64..68].copy_from_slice(&3u32.to_le_bytes()); // PT_INTERP
        std::fs::write(&path, &elf).unwrap();
        assert!(!is_static_elf(&path).unwrap());
    }
}
