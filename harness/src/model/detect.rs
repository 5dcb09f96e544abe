//! `DetectEntry` and `DetectRun`: what `detect` found, as written to `detect.json` and
//! `detect-run.json` (schema: /work/briefs/schemas.md, docs/failure-modes.md).

use serde::{Deserialize, Serialize};

use super::{EnvChange, HostInfo};

/// Schema version of `detect-run.json`.
pub const DETECT_FORMAT_VERSION: u32 = 1;

/// One word per scenario: how its result depends on what ran before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderVerdict {
    /// Passes alone and in every order.
    Pass,
    /// Fails alone and in every order.
    Fail,
    /// Passes alone, fails after some other scenario (its polluter).
    Victim,
    /// Fails alone, passes after some other scenario (its state-setter).
    Brittle,
    /// The outcome varies with no ordering cause.
    Flaky,
    /// Undecided: `--budget` was spent before the runs that decide it (`would_decide` lists them).
    Unknown,
}

impl OrderVerdict {
    /// The word used in JSON and the terminal.
    pub fn as_str(self) -> &'static str {
        match self {
            OrderVerdict::Pass => "pass",
            OrderVerdict::Fail => "fail",
            OrderVerdict::Victim => "victim",
            OrderVerdict::Brittle => "brittle",
            OrderVerdict::Flaky => "flaky",
            OrderVerdict::Unknown => "unknown",
        }
    }
}

/// A failure rate k/n with its 95% Wilson interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRate {
    /// k / n.
    pub estimate: f64,
    /// Lower bound of the 95% interval.
    pub low: f64,
    /// Upper bound of the 95% interval.
    pub high: f64,
    /// Failed runs.
    pub k: u64,
    /// Runs observed.
    pub n: u64,
}

/// Which kind of run a piece of evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    /// One process for this scenario alone.
    Isolated,
    /// The original (listing) order, shared process.
    Order,
    /// The reverse order, shared process.
    Reverse,
    /// A seeded shuffle, shared process.
    Shuffle,
    /// A run made while localizing a culprit.
    Localize,
    /// The two- (or three-) scenario rerun that confirms a culprit.
    Confirm,
}

/// One run that shows something about a scenario: the order it ran in and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// What kind of run.
    pub kind: EvidenceKind,
    /// The order the process actually ran, up to and including this scenario: its last
    /// [`Evidence::ORDER_TAIL`] names, `order_skipped` more before them.
    pub order: Vec<String>,
    /// How many names ran before the first one `order` lists. A shared run's whole order is in
    /// `detect-run.json`'s `schedules` (same `kind` and `seed`); without this cap, a victim among
    /// 10 000 tests carried 10 000 names per shared run, and detect.json grew with victims x tests.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub order_skipped: usize,
    /// The shuffle seed, if the order came from one.
    pub seed: Option<u64>,
    /// This scenario's outcome (`passed`, `failed`, `crashed`, ...).
    pub outcome: String,
    /// What the run shows.
    pub detail: String,
    /// When this scenario did not pass: its failure message (panic message or libtest's output of
    /// the test, signal, exit code), and the tail of the process's stderr after a crash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Evidence {
    /// Names of an order that evidence keeps: enough for the culprits a person reads (a
    /// bisection's flipping prefix ends in them), bounded whatever the binary's size.
    pub const ORDER_TAIL: usize = 64;

    /// `order`'s last [`Self::ORDER_TAIL`] names and how many were left out before them.
    pub fn order_tail(order: &[String]) -> (Vec<String>, usize) {
        let skipped = order.len().saturating_sub(Self::ORDER_TAIL);
        (order[skipped..].to_vec(), skipped)
    }
}

/// A measured value that differs in-suite from its isolated distribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueShift {
    /// The metric's name.
    pub metric: String,
    /// Shift of the in-suite value relative to the isolated one, in percent.
    pub shift_pct: f64,
    /// Lower bound of its 95% interval, in percent.
    pub low_pct: f64,
    /// Upper bound of its 95% interval, in percent.
    pub high_pct: f64,
    /// Benjamini-Hochberg adjusted p-value across every scenario and metric tested.
    pub p_adjusted: f64,
    /// Scenarios that, run before this one, cause the shift.
    pub culprits: Vec<String>,
}

/// One scenario or test and its verdict, as an element of `detect.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectEntry {
    /// Name exactly as `--list` prints it.
    pub name: String,
    /// The test binary it belongs to, only when several binaries were given and they share this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// The cargo package of its test binary (`cargo harness detect`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The verdict.
    pub verdict: OrderVerdict,
    /// For a victim: scenarios after which it fails (each one alone suffices).
    pub polluters: Vec<String>,
    /// For a brittle scenario: scenarios after which it passes.
    pub state_setters: Vec<String>,
    /// Scenarios that, run between a culprit and this one, mask the effect.
    pub cleaners: Vec<String>,
    /// Set when the cleaner search stopped before it could tell there are no more (a cap, the
    /// budget, a search that gave up): `cleaners` lists at least these, and this says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleaners_stopped: Option<String>,
    /// For flaky only: how often it failed.
    pub failure_rate: Option<FailureRate>,
    /// The runs that show the verdict.
    pub evidence: Vec<Evidence>,
    /// Environment / current-directory changes this scenario made in shared runs.
    pub hazards: Vec<EnvChange>,
    /// Measured values that shift in-suite.
    pub value_shifts: Vec<ValueShift>,
    /// One shell line that shows the finding: a victim's culprit then the victim in one process,
    /// a brittle or failing scenario alone. It exits non-zero while the finding holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
    /// For a victim or brittle scenario: how each culprit acts on it (empty where the process
    /// could not be observed; `detect-run.json` notes say why).
    #[serde(default)]
    pub mechanism: Vec<Mechanism>,
    /// The failure message of one final run of the finding (the `reproduce` order) with the
    /// user's `RUST_BACKTRACE`, when the user set one: screening runs go without backtraces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backtrace: Option<String>,
    /// For an `unknown` verdict: the runs that would decide it, which `--budget` left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub would_decide: Vec<WouldDecide>,
}

/// Runs that would decide an `unknown` verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WouldDecide {
    /// What kind of run: `isolated`, a shared order (`order`, `reverse`, `shuffle`), or
    /// `localize` (bisection and confirmation).
    pub kind: EvidenceKind,
    /// How many processes, at most.
    pub runs: usize,
    /// What they would show.
    pub detail: String,
}

/// Through what a culprit affects a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MechanismKind {
    /// The culprit wrote an environment variable the scenario read.
    Env,
    /// The culprit left the process in another directory, which the scenario ran in.
    Cwd,
    /// The culprit left (or removed) a path the scenario touched.
    File,
    /// None of the above was observed: in-process state (statics, caches, interned data).
    Memory,
}

impl MechanismKind {
    /// The word used in JSON, the terminal and the HTML.
    pub fn as_str(self) -> &'static str {
        match self {
            MechanismKind::Env => "env",
            MechanismKind::Cwd => "cwd",
            MechanismKind::File => "file",
            MechanismKind::Memory => "memory",
        }
    }
}

/// One way a culprit acts on a scenario, with a suggested fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mechanism {
    /// env, cwd, file or memory.
    pub kind: MechanismKind,
    /// The variable, the directory or the path (for memory: what was ruled out).
    pub name: String,
    /// The polluter or state-setter.
    pub culprit: String,
    /// A suggested fix, as plain text.
    pub fix: String,
}

/// Processes spent, by purpose.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCounts {
    /// One-scenario processes.
    pub isolated: usize,
    /// Shared processes of the schedules (crash continuations included).
    pub shared: usize,
    /// Processes spent localizing and confirming culprits.
    pub localization: usize,
    /// All of them.
    pub total: usize,
}

/// One schedule of shared runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleRecord {
    /// `original`, `reverse` or `shuffle`.
    pub kind: String,
    /// The shuffle seed, for shuffles.
    pub seed: Option<u64>,
    /// The order as executed (concatenated over continuation processes after a crash).
    pub order: Vec<String>,
    /// The binary, when several were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
}

/// Metadata of one `detect`, as written to `detect-run.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectRun {
    /// [`DETECT_FORMAT_VERSION`].
    pub format_version: u32,
    /// The binary (several joined by `; `).
    pub binary: String,
    /// `suite` or `libtest`.
    pub kind: String,
    /// The seed every shuffle derives from.
    pub seed: u64,
    /// The command line that reproduces this detect.
    pub command: Vec<String>,
    /// Where it ran.
    pub host: HostInfo,
    /// Processes spent.
    pub runs: RunCounts,
    /// The shared schedules that ran.
    pub schedules: Vec<ScheduleRecord>,
    /// Processes and time per phase (phases overlap: shared orders run beside isolated runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseRecord>,
    /// `--budget` in seconds, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// Scenarios left `unknown` because the budget was spent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unknown: usize,
    /// What detect could not observe (e.g. environment changes inside a libtest binary).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// End time, RFC 3339 UTC.
    pub finished_at: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One phase of detect: its processes and when they ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseRecord {
    /// `isolated` (each scenario alone, up front), `shared` (whole orders and their top-ups),
    /// `extra_isolated` (more runs alone of scenarios that failed or shifted somewhere),
    /// `localization` (bisection, confirmation, value-shift confirmation).
    pub name: String,
    /// Processes it started.
    pub processes: usize,
    /// Scenario executions in them.
    pub executions: usize,
    /// Seconds from the command's start to the phase's first process start.
    pub started_s: f64,
    /// Seconds from its first process start to its last process end.
    pub wall_s: f64,
    /// Sum of its processes' wall times, in seconds (above `wall_s` when they ran side by side).
    pub process_s: f64,
}
