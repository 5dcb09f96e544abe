//! The record wire format: one fixed header and a name or path per hooked call, written from a
//! stack buffer with a single `write(2)` (no allocation, atomic under `O_APPEND`).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Header bytes before the payload.
pub const HEADER: usize = 24;
/// Longest payload kept; longer names are truncated and flagged.
pub const MAX_PAYLOAD: usize = 4000;
/// Stack buffer for a path being resolved.
pub const MAX_PATH: usize = 4096;
/// Flag: the payload was truncated.
pub const TRUNCATED: u8 = 1;

/// What a record says. The numbers are the wire format.
#[derive(Clone, Copy)]
#[repr(u8)]
pub enum Kind {
    /// The library loaded; payload: the current directory.
    Start = 0,
    /// `harness_interpose_mark`: a scenario starts; payload: its name.
    Mark = 1,
    /// A thread named itself (libtest names each test's thread); payload: the name (the kernel
    /// keeps 15 bytes and std passes at most that).
    Thread = 2,
    /// `getenv`; payload: the variable.
    EnvRead = 3,
    /// `setenv` / `putenv`; payload: the variable.
    EnvSet = 4,
    /// `unsetenv`; payload: the variable.
    EnvUnset = 5,
    /// `clearenv`; no payload.
    EnvClear = 6,
    /// `chdir` / `fchdir` succeeded; payload: the directory after it.
    Chdir = 7,
    /// A path opened read-only or stat-ed; payload: the path, absolute where it could be resolved.
    FileRead = 8,
    /// A path created or opened for writing (or made by `mkdir`, or a rename target).
    FileWrite = 9,
    /// A path removed (`unlink`, `rmdir`, or a rename source).
    FileRemove = 10,
}

static SEQ: AtomicU64 = AtomicU64::new(0);

/// Bumped at every scenario mark, so a read seen in one scenario is recorded again in the next.
pub static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Slots of the per-thread cache of reads already recorded (direct-mapped by hash).
const SEEN_SLOTS: usize = 64;

thread_local! {
    static SEEN: [Cell<u64>; SEEN_SLOTS] = const { [const { Cell::new(0) }; SEEN_SLOTS] };
}

/// Record a read (`getenv`, a read-only open or stat) unless this thread already recorded the
/// same one since the last mark: detect needs the set of reads, and a test that calls `getenv`
/// in a loop would otherwise pay a `write(2)` per call. libtest starts a thread per test, so the
/// cache never hides a read from the next test.
pub fn emit_read(kind: Kind, payload: &[u8]) {
    // FNV-1a over the kind, the generation and the payload.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let generation = GENERATION.load(Ordering::Relaxed);
    for b in [kind as u8].iter().chain(&generation.to_le_bytes()).chain(payload) {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let h = h | 1; // 0 marks an empty slot
    let fresh = SEEN
        .try_with(|seen| {
            let slot = &seen[(h % SEEN_SLOTS as u64) as usize];
            let fresh = slot.get() != h;
            slot.set(h);
            fresh
        })
        .unwrap_or(true);
    if fresh {
        emit(kind, payload);
    }
}

/// Write one record, if the records file is open. Never fails visibly.
pub fn emit(kind: Kind, payload: &[u8]) {
    let fd = crate::OUT_FD.load(Ordering::Acquire);
    if fd < 0 {
        return;
    }
    let mut buf = [0u8; HEADER + MAX_PAYLOAD];
    let (n, flags) = if payload.len() > MAX_PAYLOAD {
        (MAX_PAYLOAD, TRUNCATED)
    } else {
        (payload.len(), 0)
    };
    let len = (HEADER + n) as u16;
    // SAFETY: getpid and gettid cannot fail.
    let (pid, tid) = unsafe { (libc::getpid() as u32, libc::syscall(libc::SYS_gettid) as u32) };
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    buf[0..2].copy_from_slice(&len.to_le_bytes());
    buf[2] = kind as u8;
    buf[3] = flags;
    buf[4..8].copy_from_slice(&pid.to_le_bytes());
    buf[8..12].copy_from_slice(&tid.to_le_bytes());
    buf[16..24].copy_from_slice(&seq.to_le_bytes());
    buf[HEADER..HEADER + n].copy_from_slice(&payload[..n]);
    // SAFETY: errno is saved and restored so the host never sees our write's errno.
    unsafe {
        let errno = *libc::__errno_location();
        libc::write(fd, buf.as_ptr().cast(), usize::from(len));
        *libc::__errno_location() = errno;
    }
}
