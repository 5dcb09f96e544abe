//! The hooked libc functions: each calls the real one (found with `dlsym(RTLD_NEXT)`) and, on a
//! thread not already inside a hook, writes one record. `open`-family functions are variadic in C;
//! they are defined with the mode as a fixed third argument, which the x86_64 and aarch64 Linux
//! calling conventions pass in the same register either way (the real function ignores it
//! unless `O_CREAT`/`O_TMPFILE` is set).

use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

use libc::pthread_t;

use crate::record::{Kind, MAX_PATH, emit, emit_read};

thread_local! {
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

/// Record with `f` unless this thread is already recording; `errno` is kept as the real call left it.
fn guarded(f: impl FnOnce()) {
    let entered = BUSY
        .try_with(|b| {
            if b.get() {
                false
            } else {
                b.set(true);
                true
            }
        })
        .unwrap_or(false);
    if entered {
        // SAFETY: errno is thread-local and always addressable.
        let errno = unsafe { *libc::__errno_location() };
        f();
        // SAFETY: as above.
        unsafe { *libc::__errno_location() = errno };
        let _ = BUSY.try_with(|b| b.set(false));
    }
}

/// A real libc function, resolved once.
struct Real {
    addr: AtomicUsize,
    name: &'static CStr,
}

impl Real {
    const fn new(name: &'static CStr) -> Self {
        Real {
            addr: AtomicUsize::new(0),
            name,
        }
    }

    fn get(&self) -> usize {
        let p = self.addr.load(Ordering::Acquire);
        if p != 0 {
            return p;
        }
        // SAFETY: dlsym with a NUL-terminated name; RTLD_NEXT skips this library.
        let p = unsafe { libc::dlsym(libc::RTLD_NEXT, self.name.as_ptr()) } as usize;
        self.addr.store(p, Ordering::Release);
        p
    }
}

/// Defines a hook: `$real` is the static holding the real function (resolved by [`resolve_all`]),
/// `$sym` the exported name; `$after` runs (guarded) after the call with the arguments and the
/// result `$r` in scope.
macro_rules! hook {
    ($real:ident, $sym:ident, $cname:literal, fn($($arg:ident: $t:ty),*) -> $ret:ty, $fail:expr, |$r:ident| $after:block) => {
        static $real: Real = Real::new($cname);

        #[doc = concat!("Interposed `", stringify!($sym), "`: pass-through, then a record.")]
        ///
        /// # Safety
        /// As for the libc function of the same name.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $sym($($arg: $t),*) -> $ret {
            let addr = $real.get();
            if addr == 0 {
                // SAFETY: errno is thread-local.
                unsafe { *libc::__errno_location() = libc::ENOSYS };
                return $fail;
            }
            // SAFETY: the address is libc's function of this name and signature.
            let real: unsafe extern "C" fn($($t),*) -> $ret = unsafe { std::mem::transmute(addr) };
            // SAFETY: the caller's arguments, passed on unchanged.
            let $r = unsafe { real($($arg),*) };
            guarded(|| $after);
            $r
        }
    };
}

/// The real `getenv`, for the constructor.
pub(crate) fn real_getenv() -> Option<unsafe extern "C" fn(*const c_char) -> *mut c_char> {
    let addr = REAL_GETENV.get();
    // SAFETY: libc's getenv.
    (addr != 0).then(|| unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*const c_char) -> *mut c_char>(addr) })
}

/// Resolve the real functions now (the constructor), so no hook resolves one mid-call.
pub(crate) fn resolve_all() {
    for real in [
        &REAL_GETENV,
        &REAL_SETENV,
        &REAL_UNSETENV,
        &REAL_PUTENV,
        &REAL_CLEARENV,
        &REAL_CHDIR,
        &REAL_FCHDIR,
        &REAL_OPEN,
        &REAL_OPEN64,
        &REAL_OPENAT,
        &REAL_OPENAT64,
        &REAL_UNLINK,
        &REAL_UNLINKAT,
        &REAL_RMDIR,
        &REAL_MKDIR,
        &REAL_MKDIRAT,
        &REAL_RENAME,
        &REAL_RENAMEAT,
        &REAL_STATX,
        &REAL_PTHREAD_SETNAME_NP,
    ] {
        real.get();
    }
}

fn bytes<'a>(s: *const c_char) -> &'a [u8] {
    if s.is_null() {
        &[]
    } else {
        // SAFETY: the host passed a NUL-terminated string to a libc function.
        unsafe { CStr::from_ptr(s) }.to_bytes()
    }
}

/// Write the current directory into `buf`; returns its length (0 when unknown).
pub(crate) fn cwd_into(buf: &mut [u8]) -> usize {
    // SAFETY: getcwd writes at most buf.len() bytes, NUL included.
    let p = unsafe { libc::getcwd(buf.as_mut_ptr().cast(), buf.len()) };
    if p.is_null() { 0 } else { bytes(p).len() }
}

/// Write the path `dirfd` refers to into `buf`; returns its length (0 when unknown).
fn fd_path_into(dirfd: c_int, buf: &mut [u8]) -> usize {
    let mut link = *b"/proc/self/fd/\0\0\0\0\0\0\0\0\0\0\0\0";
    let mut digits = [0u8; 11];
    let (mut n, mut v) = (0, dirfd.unsigned_abs());
    loop {
        digits[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for i in 0..n {
        link[14 + i] = digits[n - 1 - i];
    }
    // SAFETY: link is NUL-terminated; readlink writes at most buf.len() bytes.
    let r = unsafe { libc::readlink(link.as_ptr().cast(), buf.as_mut_ptr().cast(), buf.len()) };
    if r < 0 { 0 } else { r as usize }
}

/// Record `path` (relative to `dirfd`) made absolute where it can be.
fn path_record(kind: Kind, dirfd: c_int, path: *const c_char) {
    let emit = |kind: Kind, p: &[u8]| match kind {
        Kind::FileRead => emit_read(kind, p),
        _ => emit(kind, p),
    };
    let p = bytes(path);
    if p.is_empty() {
        return;
    }
    if p[0] == b'/' {
        return emit(kind, p);
    }
    let mut buf = [0u8; MAX_PATH];
    let base = if dirfd == libc::AT_FDCWD {
        cwd_into(&mut buf)
    } else {
        fd_path_into(dirfd, &mut buf)
    };
    if base == 0 {
        return emit(kind, p);
    }
    let mut n = base;
    if n < buf.len() {
        buf[n] = b'/';
        n += 1;
    }
    let take = p.len().min(buf.len() - n);
    buf[n..n + take].copy_from_slice(&p[..take]);
    emit(kind, &buf[..n + take]);
}

fn chdir_record() {
    let mut buf = [0u8; MAX_PATH];
    let n = cwd_into(&mut buf);
    emit(Kind::Chdir, &buf[..n]);
}

fn open_kind(flags: c_int) -> Kind {
    if flags & (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) != 0 {
        Kind::FileWrite
    } else {
        Kind::FileRead
    }
}

/// A read is recorded whatever its result (a missing file is still a file the test looked for);
/// a write only when it happened.
fn open_record(dirfd: c_int, path: *const c_char, flags: c_int, fd: c_int) {
    let kind = open_kind(flags);
    if fd >= 0 || matches!(kind, Kind::FileRead) {
        path_record(kind, dirfd, path);
    }
}

hook!(
    REAL_GETENV,
    getenv,
    c"getenv",
    fn(name: *const c_char) -> *mut c_char,
    std::ptr::null_mut(),
    |r| {
        emit_read(Kind::EnvRead, bytes(name));
    }
);
hook!(
    REAL_SETENV,
    setenv,
    c"setenv",
    fn(name: *const c_char, value: *const c_char, overwrite: c_int) -> c_int,
    -1,
    |r| {
        if r == 0 {
            emit(Kind::EnvSet, bytes(name));
        }
    }
);
hook!(REAL_UNSETENV, unsetenv, c"unsetenv", fn(name: *const c_char) -> c_int, -1, |r| {
    if r == 0 {
        emit(Kind::EnvUnset, bytes(name));
    }
});
hook!(REAL_PUTENV, putenv, c"putenv", fn(string: *mut c_char) -> c_int, -1, |r| {
    if r == 0 {
        let s = bytes(string);
        let name = s.split(|&b| b == b'=').next().unwrap_or(s);
        emit(Kind::EnvSet, name);
    }
});
hook!(REAL_CLEARENV, clearenv, c"clearenv", fn() -> c_int, -1, |r| {
    if r == 0 {
        emit(Kind::EnvClear, &[]);
    }
});
hook!(REAL_CHDIR, chdir, c"chdir", fn(path: *const c_char) -> c_int, -1, |r| {
    if r == 0 {
        chdir_record();
    }
});
hook!(REAL_FCHDIR, fchdir, c"fchdir", fn(fd: c_int) -> c_int, -1, |r| {
    if r == 0 {
        chdir_record();
    }
});
hook!(
    REAL_OPEN,
    open,
    c"open",
    fn(path: *const c_char, flags: c_int, mode: c_uint) -> c_int,
    -1,
    |r| {
        open_record(libc::AT_FDCWD, path, flags, r);
    }
);
hook!(
    REAL_OPEN64,
    open64,
    c"open64",
    fn(path: *const c_char, flags: c_int, mode: c_uint) -> c_int,
    -1,
    |r| {
        open_record(libc::AT_FDCWD, path, flags, r);
    }
);
hook!(
    REAL_OPENAT,
    openat,
    c"openat",
    fn(dirfd: c_int, path: *const c_char, flags: c_int, mode: c_uint) -> c_int,
    -1,
    |r| {
        open_record(dirfd, path, flags, r);
    }
);
hook!(
    REAL_OPENAT64,
    openat64,
    c"openat64",
    fn(dirfd: c_int, path: *const c_char, flags: c_int, mode: c_uint) -> c_int,
    -1,
    |r| {
        open_record(dirfd, path, flags, r);
    }
);
hook!(REAL_UNLINK, unlink, c"unlink", fn(path: *const c_char) -> c_int, -1, |r| {
    if r == 0 {
        path_record(Kind::FileRemove, libc::AT_FDCWD, path);
    }
});
hook!(
    REAL_UNLINKAT,
    unlinkat,
    c"unlinkat",
    fn(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int,
    -1,
    |r| {
        if r == 0 {
            path_record(Kind::FileRemove, dirfd, path);
        }
    }
);
hook!(REAL_RMDIR, rmdir, c"rmdir", fn(path: *const c_char) -> c_int, -1, |r| {
    if r == 0 {
        path_record(Kind::FileRemove, libc::AT_FDCWD, path);
    }
});
hook!(
    REAL_MKDIR,
    mkdir,
    c"mkdir",
    fn(path: *const c_char, mode: libc::mode_t) -> c_int,
    -1,
    |r| {
        if r == 0 {
            path_record(Kind::FileWrite, libc::AT_FDCWD, path);
        }
    }
);
hook!(
    REAL_MKDIRAT,
    mkdirat,
    c"mkdirat",
    fn(dirfd: c_int, path: *const c_char, mode: libc::mode_t) -> c_int,
    -1,
    |r| {
        if r == 0 {
            path_record(Kind::FileWrite, dirfd, path);
        }
    }
);
hook!(
    REAL_RENAME,
    rename,
    c"rename",
    fn(old: *const c_char, new: *const c_char) -> c_int,
    -1,
    |r| {
        if r == 0 {
            path_record(Kind::FileRemove, libc::AT_FDCWD, old);
            path_record(Kind::FileWrite, libc::AT_FDCWD, new);
        }
    }
);
hook!(
    REAL_RENAMEAT,
    renameat,
    c"renameat",
    fn(olddirfd: c_int, old: *const c_char, newdirfd: c_int, new: *const c_char) -> c_int,
    -1,
    |r| {
        if r == 0 {
            path_record(Kind::FileRemove, olddirfd, old);
            path_record(Kind::FileWrite, newdirfd, new);
        }
    }
);
hook!(
    REAL_STATX,
    statx,
    c"statx",
    fn(dirfd: c_int, path: *const c_char, flags: c_int, mask: c_uint, buf: *mut c_void) -> c_int,
    -1,
    |r| {
        path_record(Kind::FileRead, dirfd, path);
    }
);
hook!(
    REAL_PTHREAD_SETNAME_NP,
    pthread_setname_np,
    c"pthread_setname_np",
    fn(thread: pthread_t, name: *const c_char) -> c_int,
    libc::ENOSYS,
    |r| {
        // SAFETY: pthread_self cannot fail.
        if r == 0 && thread == unsafe { libc::pthread_self() } {
            emit(Kind::Thread, bytes(name));
        }
    }
);
