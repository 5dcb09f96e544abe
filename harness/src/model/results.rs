//! `ResultsFile`: everything one `run` produced, as written to `results.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Better, HostInfo, OutcomeCounts, RunRecord, ScenarioKind, Unit};
use crate::stats::{Interval, Summary};

/// Version of the `results.json` / `results.jsonl` schema; bumped on incompatible change.
pub const FORMAT_VERSION: u32 = 1;

/// Facts about the run as a whole: how to reproduce it and where it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// Schema version, [`FORMAT_VERSION`].
    pub format_version: u32,
    /// Version of the harness that wrote this.
    pub harness_version: String,
    /// The suite binary's path.
    pub binary: String,
    /// The exact command line that reproduces the run (seed included).
    pub command: Vec<String>,
    /// Seed of the shuffled order.
    pub seed: u64,
    /// Scenario names in the order their first runs started.
    pub order: Vec<String>,
    /// Isolated processes per scenario requested.
    pub repeat: usize,
    /// Measured in-process iterations per process.
    pub iterations: usize,
    /// Discarded warm-up iterations per process.
    pub warmup: usize,
    /// Target relative CI half-width, if adaptive repetition was asked for.
    pub target_ci: Option<f64>,
    /// `--min-time`: seconds the measuring processes were spread over, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_time_s: Option<f64>,
    /// Parallel workers for checks.
    pub test_threads: usize,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// End time, RFC 3339 UTC (empty while running).
    pub finished_at: String,
    /// Where it ran.
    pub host: HostInfo,
    /// The plan this run is (part of): set by `run`, absent in files of older harnesses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanInfo>,
    /// How counter metrics were made, when `--counters` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<CounterMeta>,
    /// The full speed an earlier run on this host met since it booted, read when this run
    /// started (`run/speed_memory.rs`); the run's processes are judged against it only where the
    /// run never met it (`model/slowed.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remembered_full_speed: Option<super::RememberedSpeed>,
}

/// How a run counted (`--counters`): the source, its fixed settings, and what it left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterMeta {
    /// The source label every counter metric carries (`valgrind-callgrind 3.19`, `perf`).
    pub source: String,
    /// Counting processes per measurement at most (`--counter-processes`): a run stops at two
    /// where they counted alike. 0: the measuring processes count themselves.
    pub processes: usize,
    /// Counted calls per counted process.
    pub iterations: usize,
    /// Uncounted warm-up calls before them.
    pub warmup: usize,
    /// The simulated caches (valgrind), as Callgrind's options.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cache: Vec<String>,
    /// How `estimated_cycles` is made (valgrind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_model: Option<String>,
    /// Measurements that are not counted, with why (CUDA kernels: host instructions mean nothing).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub uncounted: BTreeMap<String, String>,
}

/// Which seeded plan a run executed, and which part of it (`--partition`, `merge`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanInfo {
    /// Fingerprint of the whole unsharded plan (seed, iterations, warm-up, every job in order).
    pub fingerprint: String,
    /// Jobs in the whole plan.
    pub total_jobs: usize,
    /// This shard as `K/N`; absent for the whole plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// For a merged run: where each shard ran and which runs (by merged run index) it holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<ShardOrigin>,
}

/// One shard of a merged run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardOrigin {
    /// `K/N`.
    pub partition: String,
    /// The machine it ran on.
    pub hostname: String,
    /// Its first run's index in the merged `runs`.
    pub first_run: usize,
    /// How many runs it holds.
    pub runs: usize,
}

impl RunMeta {
    /// A command of one process at a time that has just started: no order recorded, no
    /// adaptive target, not finished. `run` fills in what it knows beyond that.
    #[expect(
        clippy::too_many_arguments,
        reason = "each is one fact of the run; a builder would only rename them"
    )]
    pub fn started(
        binary: String,
        command: Vec<String>,
        seed: u64,
        repeat: usize,
        iterations: usize,
        warmup: usize,
        started_at: String,
        host: HostInfo,
    ) -> Self {
        RunMeta {
            format_version: FORMAT_VERSION,
            harness_version: env!("CARGO_PKG_VERSION").to_owned(),
            binary,
            command,
            seed,
            order: Vec::new(),
            repeat,
            iterations,
            warmup,
            target_ci: None,
            min_time_s: None,
            test_threads: 1,
            started_at,
            finished_at: String::new(),
            host,
            plan: None,
            counters: None,
            remembered_full_speed: None,
        }
    }
}

/// Summary of one metric of one scenario across its processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    /// Metric name.
    pub metric: String,
    /// Unit of the metric.
    pub unit: Unit,
    /// Which direction is an improvement.
    pub better: Better,
    /// Statistics across processes (the process is the unit of repetition).
    #[serde(flatten)]
    pub stats: Summary,
    /// The per-process values, in run order, with their run indices.
    pub values: Vec<(usize, f64)>,
    /// The counter source that made it; `None` for wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// An allocation metric (`--allocs`): its count per call over every counted call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_call: Option<PerCall>,
    /// Processes measured while the machine ran slower than its fastest in this run (the speed
    /// probe, `model/slowed.rs`): left out of `stats` and `values` when enough processes ran at
    /// full speed to stand for the row, else kept; the row is `unstable` when they were kept or
    /// were the majority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowed: Option<Slowed>,
}

/// A row's processes that met a slowed machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slowed {
    /// Processes whose speed probe read over `SLOWED_FACTOR` times the run's fastest.
    pub processes: usize,
    /// The row's processes in all.
    pub of: usize,
    /// The slowed processes' median probe over the run's fastest (1.7 = 1.7x slower).
    pub probe_ratio: f64,
    /// The slowed processes left out of the statistics, with their run indices and values; empty
    /// when they were too many to leave out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<(usize, f64)>,
    /// Judged against a full speed an earlier run on this host and boot met, because this run
    /// never met it (`RunMeta::remembered_full_speed`); `probe_ratio` is over that speed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remembered: bool,
}

impl Slowed {
    /// The row is `unstable` for it: its slowed processes were kept (too few at full speed to
    /// stand for it), or were the majority. A number from the full-speed minority is the machine
    /// at its fastest, which anything else measured on this machine meanwhile (another tool,
    /// another run) mostly did not see: the row says so rather than disagree quietly.
    pub fn flags_row(&self) -> bool {
        self.left_out.is_empty() || 2 * self.processes > self.of
    }

    /// In words, for the terminal, the HTML and the agreement tables.
    pub fn describe(&self) -> String {
        let (k, n, r) = (self.processes, self.of, self.probe_ratio);
        let (fastest, of_the_run) = match self.remembered {
            true => (
                "the full speed an earlier run met on this boot",
                "the full speed an earlier run met on this boot",
            ),
            false => ("its fastest", "its fastest of the run"),
        };
        if self.left_out.is_empty() {
            format!("the machine ran slower while measured: a speed probe read {r:.1}x {of_the_run} in {k} of {n} processes")
        } else if self.flags_row() {
            format!(
                "measured mostly on a slowed machine: {k} of {n} processes left out (speed probe {r:.1}x {fastest}); the number is its {} processes at full speed",
                n - k
            )
        } else {
            format!("{k} of {n} processes left out: the machine ran slower while they measured (speed probe {r:.1}x {fastest})")
        }
    }
}

/// An allocation metric's count per call, over every counted call of every process: exact
/// (every call the same) or varying between `min` and `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerCall {
    /// Every call counted the same (`min == max`).
    pub exact: bool,
    /// Fewest per call.
    pub min: u64,
    /// Most per call.
    pub max: u64,
}

impl PerCall {
    /// As a cell: `3 allocs/call`, `4096 bytes/call`, or `varies 2..5`.
    pub fn display(&self, metric: &str) -> String {
        if !self.exact {
            return format!("varies {}..{}", self.min, self.max);
        }
        let what = match metric {
            "allocations" => "allocs",
            "deallocations" => "deallocs",
            _ => "bytes",
        };
        format!("{} {what}/call", self.min)
    }
}

impl MetricSummary {
    /// The 95% interval of the centre, if there is one.
    pub fn ci(&self) -> Option<&Interval> {
        self.stats.ci.as_ref()
    }
}

/// The one-word verdict of a scenario in a `run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every run passed.
    Passed,
    /// Every run failed, crashed or timed out.
    Failed,
    /// Some runs passed and some did not.
    Flaky,
    /// Every run was skipped or ignored.
    Skipped,
    /// A measurement whose every run finished; its metrics are stable.
    Measured,
    /// A measurement flagged unstable (severe outliers or strong autocorrelation).
    Unstable,
}

impl Verdict {
    /// The word shown in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "FAILED",
            Verdict::Flaky => "FLAKY",
            Verdict::Skipped => "skipped",
            Verdict::Measured => "ok",
            Verdict::Unstable => "unstable",
        }
    }

    /// Whether this verdict makes the run's exit status non-zero.
    pub fn is_failure(self) -> bool {
        matches!(self, Verdict::Failed | Verdict::Flaky)
    }
}

/// One scenario (variant) across all of its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioSummary {
    /// Full name, variant included.
    pub scenario: String,
    /// Check or measure.
    pub kind: ScenarioKind,
    /// The env-matrix values of this variant.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Runs by outcome.
    pub counts: OutcomeCounts,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it was skipped (ignored scenarios, run-time skips).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    /// One entry per metric.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricSummary>,
}

/// The whole of `results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultsFile {
    /// How to reproduce the run and where it ran.
    pub meta: RunMeta,
    /// Per-scenario summaries, in name order.
    pub summaries: Vec<ScenarioSummary>,
    /// Every run, in execution order.
    pub runs: Vec<RunRecord>,
}
