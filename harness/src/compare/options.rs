//! The validated options of `compare` and `calibrate` ([`CompareOptions`], [`CalibrateOptions`])
//! and what both sides' processes share ([`RunSettings`]); `cli` builds them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::counters::CounterSettings;
use crate::plan::Selection;

/// How processes of either side run.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// A/B pairs per scenario (interleaved), or pairs per session (calibrate).
    pub runs: usize,
    /// Measured iterations per process.
    pub iterations: usize,
    /// Warm-up iterations per process.
    pub warmup: usize,
    /// Seed of the pair schedule.
    pub seed: u64,
    /// Per-process timeout (a scenario's own timeout wins).
    pub timeout: Option<Duration>,
    /// Which scenarios.
    pub selection: Selection,
    /// GPU sample rules (`None`: the defaults).
    pub gpu: Option<crate::model::GpuSettings>,
    /// `--counters`: the source and the calls of a counting process.
    pub counters: Option<CounterSettings>,
    /// Counting pairs per scenario where counting runs in processes of its own (valgrind).
    pub counter_pairs: usize,
}

/// Validated options of `compare`.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Baseline: a suite binary or a result directory.
    pub baseline: PathBuf,
    /// Candidate: likewise.
    pub candidate: PathBuf,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// Process settings (interleaved design).
    pub settings: RunSettings,
    /// `--calibration`.
    pub calibration: Option<PathBuf>,
    /// `--noise-floor`, as a fraction.
    pub floor: f64,
    /// `--margin`, as a fraction: the change that matters.
    pub margin: f64,
    /// `--counter-margin`, as a fraction: the change that matters in a counter row.
    pub counter_margin: f64,
    /// `--base-ref`: build both sides from git first (then `baseline`/`candidate` are set to the
    /// built binaries).
    pub base_ref: Option<BaseRef>,
    /// `--budget`: keep adding pairs to undecided scenarios until this much time is spent.
    pub budget: Option<Duration>,
    /// `--null-control`: share of extra A/A pairs (0 for none).
    pub null_control: f64,
    /// `--fail-on-regression`.
    pub fail_on_regression: bool,
    /// Also judge peak RSS and CPU times of each process (`--resources`).
    pub resources: bool,
    /// `--mde-report`, as a fraction.
    pub mde_report: f64,
    /// `--baseline-env`.
    pub baseline_env: BTreeMap<String, String>,
    /// `--candidate-env`.
    pub candidate_env: BTreeMap<String, String>,
    /// The command line that reproduces this comparison.
    pub command: Vec<String>,
}

/// What `--base-ref` builds.
#[derive(Debug, Clone)]
pub struct BaseRef {
    /// The git ref the baseline is built from.
    pub git_ref: String,
    /// `--package`, `--bin` or `--bench`, `--features`, `--manifest-path`.
    pub target: super::BuildTarget,
}

/// Validated options of `calibrate`.
#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    /// The suite binary compared against itself.
    pub binary: PathBuf,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// Process settings; `runs` is pairs per session.
    pub settings: RunSettings,
    /// `--sessions`.
    pub sessions: usize,
    /// `--noise-floor`, as a fraction.
    pub floor: f64,
}
