//! `Outcome`: how one scenario run in one process ended. Every way a child can end is a value here.

use serde::{Deserialize, Serialize};

/// How one run of one scenario ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Returned normally (a check passed, a measurement finished).
    Passed,
    /// Panicked or returned `Err`; `message` is the panic message or the error.
    Failed {
        /// The panic message or the returned error.
        message: String,
    },
    /// Asked to be skipped at run time (e.g. no CUDA driver); never counted as passed.
    Skipped {
        /// Why it was skipped.
        reason: String,
    },
    /// Killed by a signal.
    Crashed {
        /// The signal's name, e.g. `SIGSEGV`.
        signal: String,
        /// The signal's number.
        signal_number: i32,
    },
    /// Ran past its timeout; the child and its process group were killed.
    TimedOut {
        /// The timeout that expired, in seconds.
        after_s: f64,
    },
    /// The process exited without reporting a result for this scenario.
    NoResult {
        /// The process's exit code.
        exit_code: i32,
    },
    /// The result channel held something that is not the protocol.
    ProtocolGarbage {
        /// What was wrong, with the offending text (truncated).
        detail: String,
    },
    /// Not run: an earlier scenario in the same shared process ended the process.
    NotRun,
}

/// The outcome's kind without its details, for counting and filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// See [`Outcome::Passed`].
    Passed,
    /// See [`Outcome::Failed`].
    Failed,
    /// See [`Outcome::Skipped`].
    Skipped,
    /// See [`Outcome::Crashed`].
    Crashed,
    /// See [`Outcome::TimedOut`].
    TimedOut,
    /// See [`Outcome::NoResult`].
    NoResult,
    /// See [`Outcome::ProtocolGarbage`].
    ProtocolGarbage,
    /// See [`Outcome::NotRun`].
    NotRun,
}

impl Outcome {
    /// The outcome's kind.
    pub fn status(&self) -> Status {
        match self {
            Outcome::Passed => Status::Passed,
            Outcome::Failed { .. } => Status::Failed,
            Outcome::Skipped { .. } => Status::Skipped,
            Outcome::Crashed { .. } => Status::Crashed,
            Outcome::TimedOut { .. } => Status::TimedOut,
            Outcome::NoResult { .. } => Status::NoResult,
            Outcome::ProtocolGarbage { .. } => Status::ProtocolGarbage,
            Outcome::NotRun => Status::NotRun,
        }
    }

    /// True for every ending that makes a check not pass (skips and not-run excluded).
    pub fn is_failure(&self) -> bool {
        !matches!(self, Outcome::Passed | Outcome::Skipped { .. } | Outcome::NotRun)
    }

    /// The failure in full, for reports: the panic message (libtest's captured output for a
    /// test), the signal, the timeout or the exit code. `None` when it did not fail.
    pub fn message(&self) -> Option<String> {
        match self {
            Outcome::Passed | Outcome::Skipped { .. } | Outcome::NotRun => None,
            Outcome::Failed { message } => Some(message.clone()),
            Outcome::Crashed { signal, signal_number } => Some(format!("killed by {signal} (signal {signal_number})")),
            Outcome::TimedOut { after_s } => Some(format!("timed out after {after_s:.1} s; its process group was killed")),
            Outcome::NoResult { exit_code } => Some(format!("the process exited with code {exit_code} without reporting a result")),
            Outcome::ProtocolGarbage { detail } => Some(detail.clone()),
        }
    }

    /// One line for tables and the terminal.
    pub fn short(&self) -> String {
        match self {
            Outcome::Passed => "passed".into(),
            Outcome::Failed { .. } => "failed".into(),
            Outcome::Skipped { reason } => format!("skipped ({reason})"),
            Outcome::Crashed { signal, .. } => format!("crashed ({signal})"),
            Outcome::TimedOut { after_s } => format!("timed out after {after_s:.1} s"),
            Outcome::NoResult { exit_code } => format!("no result (exit {exit_code})"),
            Outcome::ProtocolGarbage { .. } => "protocol garbage".into(),
            Outcome::NotRun => "not run".into(),
        }
    }
}

/// The line of a failure message that says what went wrong: for a Rust panic the line after
/// `thread '...' panicked at FILE:LINE:` (the assertion or panic text), else the first
/// non-empty line.
pub fn headline(message: &str) -> &str {
    let mut lines = message.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("");
    if first.starts_with("thread '") && first.contains("panicked at") {
        return lines.next().unwrap_or(first);
    }
    first
}

impl Status {
    /// Every status, in the order reports list them.
    pub const ALL: [Status; 8] = [
        Status::Passed,
        Status::Failed,
        Status::Skipped,
        Status::Crashed,
        Status::TimedOut,
        Status::NoResult,
        Status::ProtocolGarbage,
        Status::NotRun,
    ];

    /// The snake_case name used in JSON and CSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
            Status::Crashed => "crashed",
            Status::TimedOut => "timed_out",
            Status::NoResult => "no_result",
            Status::ProtocolGarbage => "protocol_garbage",
            Status::NotRun => "not_run",
        }
    }
}

/// Runs counted by status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeCounts {
    /// Passed runs.
    pub passed: usize,
    /// Failed runs (panic or `Err`).
    pub failed: usize,
    /// Skipped runs.
    pub skipped: usize,
    /// Runs killed by a signal.
    pub crashed: usize,
    /// Runs past their timeout.
    pub timed_out: usize,
    /// Runs whose process exited without a result.
    pub no_result: usize,
    /// Runs whose result channel held garbage.
    pub protocol_garbage: usize,
}

impl OutcomeCounts {
    /// Count one outcome.
    pub fn add(&mut self, outcome: &Outcome) {
        match outcome.status() {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::Skipped => self.skipped += 1,
            Status::Crashed => self.crashed += 1,
            Status::TimedOut => self.timed_out += 1,
            Status::NoResult => self.no_result += 1,
            Status::ProtocolGarbage => self.protocol_garbage += 1,
            Status::NotRun => {}
        }
    }

    /// Runs that did not pass and were not skipped.
    pub fn failures(&self) -> usize {
        self.failed + self.crashed + self.timed_out + self.no_result + self.protocol_garbage
    }

    /// All counted runs.
    pub fn total(&self) -> usize {
        self.passed + self.skipped + self.failures()
    }
}
