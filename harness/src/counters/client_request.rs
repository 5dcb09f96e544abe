//! Valgrind client requests, issued with the instruction sequence that `valgrind.h` documents
//! (a no-op preamble of rotates that valgrind's JIT recognises, then a marker instruction).
//!
//! Why not a crate: `crabgrind` and `valgrind-requests` both build their requests with bindgen
//! from the installed `valgrind.h`, so a crate depending on `harness` would need libclang (and
//! the valgrind headers) to build: `valgrind-requests` 1.2 fails its build script here for want
//! of libclang. The sequence below needs neither. Natively it rotates a register four times by
//! 128 bits in all (a no-op) and swaps a register with itself: it returns `default`.

/// Callgrind's requests: `VG_USERREQ_TOOL_BASE('C','T')` and the next five (callgrind.h).
const CALLGRIND_BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
pub(crate) const DUMP_STATS_AT: usize = CALLGRIND_BASE + 3;
pub(crate) const ZERO_STATS: usize = CALLGRIND_BASE + 1;
pub(crate) const START_INSTRUMENTATION: usize = CALLGRIND_BASE + 4;
pub(crate) const STOP_INSTRUMENTATION: usize = CALLGRIND_BASE + 5;
/// `VG_USERREQ__RUNNING_ON_VALGRIND` (valgrind.h).
const RUNNING_ON_VALGRIND: usize = 0x1001;

/// Issue request `code` with one argument; returns `default` when not under valgrind.
#[inline(always)]
pub(crate) fn request(code: usize, arg1: usize, default: usize) -> usize {
    let args: [usize; 6] = [code, arg1, 0, 0, 0, 0];
    imp(&args, default)
}

/// Whether this process runs under valgrind (any tool).
pub(crate) fn running_on_valgrind() -> bool {
    request(RUNNING_ON_VALGRIND, 0, 0) != 0
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn imp(args: &[usize; 6], default: usize) -> usize {
    let mut result = default;
    // SAFETY: the documented amd64 sequence: %rdx = request(%rax). It reads the six words at
    // `args`, which outlive the call, and changes only %rdx and %rdi's bits (rotated back to
    // themselves) and the flags.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            options(nostack),
        );
    }
    result
}

#[cfg(target_arch = "aarch64")]
#[inline(always)]
fn imp(args: &[usize; 6], default: usize) -> usize {
    let mut result = default;
    // SAFETY: the documented arm64 sequence: x3 = request(x4); x12 is rotated back to itself.
    unsafe {
        std::arch::asm!(
            "ror x12, x12, #3", "ror x12, x12, #13", "ror x12, x12, #51", "ror x12, x12, #61",
            "orr x10, x10, x10",
            inout("x3") result,
            in("x4") args.as_ptr(),
            options(nostack),
        );
    }
    result
}

/// Elsewhere valgrind's sequence is not implemented here: requests do nothing, and counting under
/// valgrind is refused before a process starts (see `source.rs`).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
fn imp(_args: &[usize; 6], default: usize) -> usize {
    default
}

/// Whether this build can issue client requests at all.
pub(crate) const SUPPORTED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natively_a_request_returns_its_default_and_changes_nothing() {
        // Under `cargo test` (not valgrind) every request is the documented no-op.
        assert!(!running_on_valgrind());
        assert_eq!(request(ZERO_STATS, 0, 42), 42);
        let kept = std::hint::black_box(0x1234_5678_u64);
        assert_eq!(request(START_INSTRUMENTATION, 7, 0), 0);
        assert_eq!(kept, 0x1234_5678);
    }
}
