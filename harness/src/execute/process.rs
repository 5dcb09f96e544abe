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
}

/// Spawn, wait (killing the process group at the timeout), and collect the output.
pub fn run_process(spec: &ProcessSpec) -> io::Result<ProcessOutput> {
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
    let end = wait(&mut child, spec.timeout)?;
    let wall = start.elapsed();
    // Whatever the child left behind in its group (a hung grandchild) goes with it.
    kill_group(child.id());
    let stdout = read_kept(&mut out_file);
    let stderr = read_kept(&mut err_file);
    Ok(ProcessOutput { end, stdout, stderr, wall })
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

fn wait(child: &mut Child, timeout: Option<Duration>) -> io::Result<ProcessEnd> {
    let Some(timeout) = timeout else {
        return child.wait().map(end_of);
    };
    let deadline = Instant::now() + timeout;
    let pidfd = pidfd_open(child.id());
    loop {
        if let Some(status) = child.try_wait()? {
            close(pidfd);
            return Ok(end_of(status));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            close(pidfd);
            kill_group(child.id());
            let _ = child.kill();
            child.wait()?;
            return Ok(ProcessEnd::TimedOut);
        }
        match pidfd {
            Some(fd) => poll_readable(fd, left),
            // No pidfd (old kernel): poll the child, 1 ms at a time.
            None => std::thread::sleep(left.min(Duration::from_millis(1))),
        }
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

fn read_kept(file: &mut File) -> String {
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(0)).and_then(|_| file.read_to_end(&mut bytes)).is_err() {
        return String::new();
    }
    if bytes.len() <= 2 * KEEP_BYTES {
        return String::from_utf8_lossy(&bytes).into_owned();
    }
    let dropped = bytes.len() - 2 * KEEP_BYTES;
    format!(
        "{}\n[... {dropped} bytes not kept ...]\n{}",
        String::from_utf8_lossy(&bytes[..KEEP_BYTES]),
        String::from_utf8_lossy(&bytes[bytes.len() - KEEP_BYTES..])
    )
}
