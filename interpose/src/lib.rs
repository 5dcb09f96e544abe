//! `harness_interpose`: an `LD_PRELOAD` library that records, for `detect`, what each test of a
//! shared process does to the environment, the current directory and files, so detect can say
//! how a culprit acts; and counts malloc-family calls inside `--allocs` windows ([`allocs`]).
//! Records are written only when `HARNESS_INTERPOSE_OUT` names the records file.
//!
//! Rules that keep the host process's behaviour unchanged:
//! - every hooked call is passed to the real function (`dlsym(RTLD_NEXT)`, resolved once in the
//!   `.init_array` constructor, lazily if a hook runs before it) and its result returned as is,
//!   `errno` included;
//! - hooks never allocate or lock: a record is built in a stack buffer and written with one
//!   `write(2)` to an `O_APPEND` descriptor moved above the descriptors programs expect;
//! - a thread-local guard makes a hook called from inside a hook a plain pass-through.
//!
//! Record layout ([`record`]): a 24-byte little-endian header `{len u16, kind u8, flags u8,
//! pid u32, tid u32, reserved u32, seq u64}` and the name or path (truncated to
//! [`record::MAX_PAYLOAD`] bytes, flag 1). The parser is `harness/src/detect/footprint.rs`.

// One source with the recorder every binary with harness carries (harness's build script
// compiles it on its own), so the two never count differently.
#[path = "../../harness/src/allocs/preload/recorder.rs"]
mod allocs;
mod hooks;
pub mod record;

use std::sync::atomic::{AtomicI32, Ordering};

/// The records descriptor, -1 until the constructor opened it (or when no records are wanted).
pub(crate) static OUT_FD: AtomicI32 = AtomicI32::new(-1);

/// Lowest descriptor number the records file is moved to, away from 0..2 and the next free ones.
const HIGH_FD: libc::c_int = 900;

extern "C" fn init() {
    allocs::resolve_all();
    hooks::resolve_all();
    let Some(getenv) = hooks::real_getenv() else { return };
    // SAFETY: a NUL-terminated literal; the real getenv has no side effects.
    let path = unsafe { getenv(c"HARNESS_INTERPOSE_OUT".as_ptr()) };
    if path.is_null() {
        return;
    }
    // SAFETY: path is a NUL-terminated string from the environment.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat,
            libc::AT_FDCWD,
            path,
            libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC,
            0o600,
        )
    } as libc::c_int;
    if fd < 0 {
        return;
    }
    // SAFETY: fcntl on a descriptor we own.
    let high = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, HIGH_FD) };
    let fd = if high >= 0 {
        // SAFETY: closing the descriptor we just duplicated.
        unsafe { libc::close(fd) };
        high
    } else {
        fd
    };
    OUT_FD.store(fd, Ordering::Release);
    let mut buf = [0u8; record::MAX_PATH];
    let n = hooks::cwd_into(&mut buf);
    record::emit(record::Kind::Start, &buf[..n]);
}

/// Runs `init` when the library is loaded, before the program's `main`.
#[used]
#[unsafe(link_section = ".init_array")]
static INIT: extern "C" fn() = init;

/// Marks the start of a scenario named `name` (a NUL-terminated string). Suite children built
/// with the harness call it (found with `dlsym(RTLD_DEFAULT)`); libtest binaries need no call:
/// their test threads name themselves (`pthread_setname_np`, recorded as [`record::Kind::Thread`]).
///
/// # Safety
/// `name` must be null or a valid NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn harness_interpose_mark(name: *const libc::c_char) {
    if !name.is_null() {
        // SAFETY: the caller passes a NUL-terminated string.
        let bytes = unsafe { std::ffi::CStr::from_ptr(name) }.to_bytes();
        record::GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        record::emit(record::Kind::Mark, bytes);
    }
}
