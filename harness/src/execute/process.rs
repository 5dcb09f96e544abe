//! `run_process`: spawn one child in its own process group, its stdout and stderr going to
//! files, and wait for it with a timeout.
//!
//! Output goes to in-memory files rather than pipes so a grandchild that keeps the descriptors open can
//! never hang the parent, and the wait uses a pidfd so a run costs no polling latency.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Kept from each of stdout and stderr: the head and the tail, this many bytes each.
const KEEP_BYTES: usize = 16 * 1024;

/// One child process to run.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Variables set in its environment, on top of the parent's.
    pub env: Vec<(String, String)>,
    /// Kill it (and its process group) after this long.
    pub timeout: Option<Duration>,
    /// Directory for its captured output.
    pub scratch: PathBuf,
    /// Unique id within the scratch directory.
    pub id: String,
}

/// How a child process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessEnd {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by us).
    Signaled(i32),
    /// Killed by us after its timeout.
    TimedOut,
}

impl ProcessEnd {
    /// The outcome of a scenario that was running when the process ended this way, without
    /// reporting a result: killed by a signal, timed out, or exited silently.
    pub fn outcome_without_result(self, timeout: Option<Duration>) -> crate::model::Outcome {
        use crate::model::Outcome;
        match self {
            ProcessEnd::TimedOut => Outcome::TimedOut {
                after_s: timeout.map_or(0.0, |t| t.as_secs_f64()),
            },
            ProcessEnd::Signaled(sig) => Outcome::Crashed {
                signal: super::signal_name(sig),
                signal_number: sig,
            },
            ProcessEnd::Exited(code) => Outcome::NoResult { exit_code: code },
        }
    }
}

/// What a finished child left behind.
#[derive(Debug, Clone)]
pub struct ProcessOutput {
    /// How it ended.
    pub end: ProcessEnd,
    /// Captured stdout, lossily decoded, head and tail kept.
    pub stdout: String,
    /// Captured stderr, likewise.
    pub stderr: String,
    /// Spawn to reap.
    pub wall: Duration,
    /// What the kernel reported at reaping (`wait4`): peak RSS and CPU times.
    pub usage: Option<Usage>,
}

/// Resources one child used, from `wait4`'s `rusage` (the child and its reaped descendants).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Peak resident set size, bytes.
    pub peak_rss_bytes: u64,
    /// User CPU time, nanoseconds.
    pub cpu_user_ns: u64,
    /// System CPU time, nanoseconds.
    pub cpu_system_ns: u64,
}

impl ProcessOutput {
    /// The process facts a [`RunRecord`](crate::model::RunRecord) keeps: exit code or signal, and
    /// the resources from `wait4`.
    pub fn facts(&self) -> crate::model::ProcessFacts {
        let (exit_code, signal) = match self.end {
            ProcessEnd::Exited(c) => (Some(c), None),
            ProcessEnd::Signaled(s) => (None, Some(super::signal_name(s))),
            ProcessEnd::TimedOut => (None, Some("SIGKILL".to_owned())),
        };
        crate::model::ProcessFacts {
            exit_code,
            signal,
            peak_rss_bytes: self.usage.map(|u| u.peak_rss_bytes),
            cpu_user_ns: self.usage.map(|u| u.cpu_user_ns),
            cpu_system_ns: self.usage.map(|u| u.cpu_system_ns),
        }
    }
}

/// Spawn, wait (killing the process group at the timeout), and collect the output.
pub fn run_process(spec: &ProcessSpec) -> io::Result<ProcessOutput> {
    run_process_whole(spec).map(|(out, _)| out)
}

/// [`run_process`], also returning the whole stdout (the kept one is its head and tail), for a
/// target that reads structured results from it.
pub fn run_process_whole(spec: &ProcessSpec) -> io::Result<(ProcessOutput, String)> {
    let mut out_file = capture_file(spec, "out")?;
    let mut err_file = capture_file(spec, "err")?;
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out_file.try_clone()?)
        .stderr(err_file.try_clone()?)
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let (end, usage) = wait(&mut child, spec.timeout)?;
    let wall = start.elapsed();
    // Whatever the child left behind in its group (a hung grandchild) goes with it.
    kill_group(child.id());
    let whole = read_all(&mut out_file);
    let stdout = kept(&whole);
    let stderr = kept(&read_all(&mut err_file));
    let output = ProcessOutput {
        end,
        stdout,
        stderr,
        wall,
        usage,
    };
    Ok((output, String::from_utf8_lossy(&whole).into_owned()))
}

/// An anonymous in-memory file (memfd) for captured output: no directory entries to create or
/// remove per run. Falls back to an unlinked file in the scratch directory.
fn capture_file(spec: &ProcessSpec, stream: &str) -> io::Result<File> {
    let name = std::ffi::CString::new(format!("harness-{stream}")).expect("no NUL in name");
    // SAFETY: memfd_create takes a NUL-terminated name and flags and returns a new fd or -1.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd >= 0 {
        // SAFETY: fd is a fresh descriptor that nothing else owns.
        return Ok(unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(fd) });
    }
    let path = spec.scratch.join(format!("{}.{stream}", spec.id));
    let f = File::options().create(true).truncate(true).read(true).write(true).open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(f)
}

fn wait(child: &mut Child, timeout: Option<Duration>) -> io::Result<(ProcessEnd, Option<Usage>)> {
    let Some(timeout) = timeout else {
        return reap(child, true).map(|r| r.expect("a blocking wait4 reaps"));
    };
    let deadline = Instant::now() + timeout;
    let pidfd = pidfd_open(child.id());
    loop {
        if let Some(done) = reap(child, false)? {
            close(pidfd);
            return Ok(done);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            close(pidfd);
            kill_group(child.id());
            let _ = child.kill();
            let usage = reap(child, true)?.and_then(|(_, u)| u);
            return Ok((ProcessEnd::TimedOut, usage));
        }
        match pidfd {
            Some(fd) => poll_readable(fd, left),
            // No pidfd (old kernel): poll the child, 1 ms at a time.
            None => std::thread::sleep(left.min(Duration::from_millis(1))),
        }
    }
}

/// Reap the child with `wait4` (blocking or not), keeping its `rusage`: std's `wait` drops it.
/// The `Child` is not waited on again afterwards (its drop does not wait).
fn reap(child: &Child, block: bool) -> io::Result<Option<(ProcessEnd, Option<Usage>)>> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; zeroed is a valid value that wait4 overwrites.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if block { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: wait4 on our own child's pid with valid pointers to a status and an rusage.
        let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, flags, &mut ru) };
        if pid == 0 {
            return Ok(None);
        }
        if pid < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        let end = end_of(ExitStatus::from_raw(status));
        let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
        let usage = Usage {
            // ru_maxrss is in kilobytes on Linux.
            peak_rss_bytes: ru.ru_maxrss as u64 * 1024,
            cpu_user_ns: ns(ru.ru_utime),
            cpu_system_ns: ns(ru.ru_stime),
        };
        return Ok(Some((end, Some(usage))));
    }
}

fn end_of(status: ExitStatus) -> ProcessEnd {
    match (status.code(), status.signal()) {
        (Some(code), _) => ProcessEnd::Exited(code),
        (None, Some(sig)) => ProcessEnd::Signaled(sig),
        (None, None) => ProcessEnd::Exited(-1),
    }
}

fn pidfd_open(pid: u32) -> Option<i32> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    (fd >= 0).then_some(fd as i32)
}

fn poll_readable(fd: i32, timeout: Duration) {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().clamp(1, i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd for the duration of the call.
    unsafe { libc::poll(&mut pfd, 1, ms) };
}

fn close(fd: Option<i32>) {
    if let Some(fd) = fd {
        // SAFETY: fd came from pidfd_open and is closed once.
        unsafe { libc::close(fd) };
    }
}

fn kill_group(pgid: u32) {
    // SAFETY: signalling a process group we created; ESRCH (already gone) is fine.
    unsafe { libc::killpg(pgid as libc::pid_t, libc::SIGKILL) };
}

fn read_all(file: &mut File) -> Vec<u8> {
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(0)).and_then(|_| file.read_to_end(&mut bytes)).is_err() {
        return Vec::new();
    }
    bytes
}

/// The head and the tail of `bytes`, [`KEEP_BYTES`] each, lossily decoded.
fn kept(bytes: &[u8]) -> String {
    if bytes.len() <= 2 * KEEP_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let dropped = bytes.len() - 2 * KEEP_BYTES;
    format!(
        "{}\n[... {dropped} bytes not kept ...]\n{}",
        String::from_utf8_lossy(&bytes[..KEEP_BYTES]),
        String::from_utf8_lossy(&bytes[bytes.len() - KEEP_BYTES..])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Option<Duration>) -> ProcessOutput {
        let spec = ProcessSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            env: vec![],
            timeout,
            scratch: std::env::temp_dir(),
            id: format!("process-test-{}", std::process::id()),
        };
        run_process(&spec).unwrap()
    }

    #[test]
    fn exit_code_signal_and_usage_are_kept() {
        let out = sh("echo hi; exit 3", Some(Duration::from_secs(30)));
        let f = out.facts();
        assert_eq!((f.exit_code, f.signal.as_deref()), (Some(3), None));
        assert!(f.peak_rss_bytes.unwrap() > 100 * 1024, "{f:?}");
        assert_eq!(out.stdout, "hi\n");
        let f = sh("kill -SEGV $$", None).facts();
        assert_eq!((f.exit_code, f.signal.as_deref()), (None, Some("SIGSEGV")));
        assert!(f.cpu_user_ns.is_some() && f.cpu_system_ns.is_some());
    }

    #[test]
    fn cpu_time_of_a_busy_child_is_counted() {
        // A shell loop burns user CPU; the wall clock bounds what it can have used.
        let out = sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", Some(Duration::from_secs(120)));
        let u = out.usage.unwrap();
        assert!(u.cpu_user_ns + u.cpu_system_ns > 1_000_000, "{u:?}");
        assert!(u.cpu_user_ns <= out.wall.as_nanos() as u64 + 10_000_000, "{u:?} {:?}", out.wall);
    }
}
