//! `CompareEntry`, `CompareRun` and `CalibrationEntry`: the plain records `compare` and
//! `calibrate` write (`compare.json`, `compare-run.json`, `calibration.json`).

use serde::{Deserialize, Serialize};

use super::{Better, HostInfo, Unit};

/// The verdict on one scenario x metric of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareVerdict {
    /// Significant after Benjamini-Hochberg and the whole 95% interval is beyond the noise band
    /// on the worse side.
    Regressed,
    /// As `Regressed`, on the better side.
    Improved,
    /// The 90% interval lies inside +-noise band (two one-sided tests).
    Unchanged,
    /// Neither: the interval is too wide (see `runs_needed`), a side failed, or the metric has no
    /// better direction and changed.
    Inconclusive,
}

impl CompareVerdict {
    /// The word used in JSON, CSV and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            CompareVerdict::Regressed => "regressed",
            CompareVerdict::Improved => "improved",
            CompareVerdict::Unchanged => "unchanged",
            CompareVerdict::Inconclusive => "inconclusive",
        }
    }
}

/// One side's centre and 95% interval (geometric mean for ratio-scale metrics).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideStats {
    /// Geometric (or arithmetic) mean of the per-process values.
    pub center: f64,
    /// Lower end of its 95% interval (equal to `center` when exact or n < 2).
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// One scenario x metric compared: the row of `compare.json` and `compare.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareEntry {
    /// Scenario name as `--list` prints it.
    pub name: String,
    /// Metric name.
    pub metric: String,
    /// Unit of the metric.
    pub unit: Unit,
    /// Which direction is an improvement.
    pub better: Better,
    /// Candidate / baseline (ratio of geometric means, or of arithmetic means for metrics that
    /// can be zero); `None` when a side has no value.
    pub ratio: Option<f64>,
    /// Lower end of the 95% interval of `ratio`.
    pub low: Option<f64>,
    /// Upper end of the 95% interval of `ratio`.
    pub high: Option<f64>,
    /// Two-sided p-value (paired t on log ratios, or Welch on logs for result directories).
    pub p_value: Option<f64>,
    /// `p_value` adjusted by Benjamini-Hochberg across every entry of the comparison.
    pub p_adjusted: Option<f64>,
    /// Mann-Whitney U p-value on the same values (a rank-based cross-check, not used for the verdict).
    pub p_mann_whitney: Option<f64>,
    /// The verdict.
    pub verdict: CompareVerdict,
    /// +-fraction of change treated as noise; `None` when it could not be set.
    pub noise_band: Option<f64>,
    /// Smallest true change (fraction) this comparison detects with 80% power under its verdict rule.
    pub mde: Option<f64>,
    /// Processes of the baseline that contributed.
    pub n_baseline: usize,
    /// Processes of the candidate that contributed.
    pub n_candidate: usize,
    /// Complete A/B pairs (0 for result directories).
    pub pairs: usize,
    /// For `inconclusive`: pairs (or runs a side) that would decide with about 80% power.
    pub runs_needed: Option<usize>,
    /// Baseline centre and interval.
    pub baseline: Option<SideStats>,
    /// Candidate centre and interval.
    pub candidate: Option<SideStats>,
    /// Why the verdict is what it is, when that is not obvious (failures, no direction, exact values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Confidence level of `low`/`high` when it is not 95%: a sequential look judges its interval
    /// at the level its spent alpha allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// The metric this one is computed from (a rate from the same latency): it shares that
    /// metric's verdict and is not a hypothesis of its own in Benjamini-Hochberg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_from: Option<String>,
    /// Where the noise came from, on the log scale (interleaved design).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<NoiseSources>,
    /// The counter source of both sides' values (`valgrind-callgrind 3.19`); absent for wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For a `regressed` or `improved` instructions row counted under Callgrind: the functions
    /// whose instructions per call changed, largest |delta| first, then `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<Vec<super::ExplainEntry>>,
    /// An exact allocation row (`--allocs`), decided exactly: `+1 per call`, `-512 per call`,
    /// `unchanged` (no interval, no ratio: 0 -> 1 has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_call: Option<String>,
}

/// Where the noise of one comparison came from: standard deviations on the log scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseSources {
    /// Spread of iterations inside one process (pooled over both sides).
    pub within_process: Option<f64>,
    /// Spread of per-process values between processes of one side, beyond what `within_process`
    /// explains.
    pub between_processes: f64,
    /// Spread of the per-pair log ratio (what the interval is built from).
    pub per_pair: f64,
    /// Drift over the session: change in the baseline per 100 pairs, as a fraction.
    pub drift_per_100_pairs: f64,
    /// Pairs beyond Tukey's 3 IQR fences, cut by the trimmed mean.
    pub outliers_set_aside: usize,
}

/// The A/A null control run inside a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NullControl {
    /// Most A/A pairs of any scenario.
    pub pairs: usize,
    /// Directed, non-derived control rows judged.
    pub rows: usize,
    /// Control rows with p <= alpha.
    pub significant: usize,
    /// How many chance would give (alpha x rows).
    pub expected: f64,
    /// Control rows called regressed or improved, with their change.
    pub moved: Vec<String>,
    /// The control moved beyond its expectation: verdicts were downgraded.
    pub too_noisy: bool,
}

/// What a sequential comparison (`--budget`) did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SequentialRun {
    /// The time budget, seconds.
    pub budget_s: f64,
    /// Seconds spent running pairs.
    pub spent_s: f64,
    /// Batches run (looks taken).
    pub looks: usize,
    /// Pairs run over all scenarios.
    pub pairs: usize,
    /// Scenarios that still wanted pairs when the budget ran out.
    pub cut_by_budget: Vec<String>,
    /// More seconds that would likely (80%) decide the inconclusive rows, at the measured pair cost.
    pub seconds_to_decide_rest: f64,
    /// The most pairs a scenario could get, sized to the budget after the pilot.
    #[serde(default)]
    pub horizon: usize,
}

/// Metadata of one comparison: `compare-run.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareRun {
    /// Schema version (1).
    pub format_version: u32,
    /// The baseline binary or result directory.
    pub baseline: String,
    /// The candidate binary or result directory.
    pub candidate: String,
    /// `interleaved` (two binaries, random A/B pairs) or `result-dirs` (unpaired, blocked).
    pub design: String,
    /// Seed of the pair schedule (`None` for result directories).
    pub seed: Option<u64>,
    /// Significance level of the verdicts (after Benjamini-Hochberg).
    pub alpha: f64,
    /// The calibration file used, if any.
    pub calibration: Option<String>,
    /// The default noise floor (fraction).
    pub noise_floor: f64,
    /// Pairs asked for (interleaved design).
    pub runs: Option<usize>,
    /// Measured iterations per process.
    pub iterations: Option<usize>,
    /// Warm-up iterations per process.
    pub warmup: Option<usize>,
    /// Env set only on the baseline side.
    #[serde(default)]
    pub baseline_env: Vec<String>,
    /// Env set only on the candidate side.
    #[serde(default)]
    pub candidate_env: Vec<String>,
    /// Warnings (environment suspect, scenarios on one side only).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Margin of practical relevance (fraction), when the comparison used one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// What the sequential run did (`--budget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<SequentialRun>,
    /// Commit the baseline was built from (`--base-ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_commit: Option<String>,
    /// Commit the candidate was built from (`--base-ref`; `-dirty` when the tree had changes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_commit: Option<String>,
    /// Seconds `--base-ref` spent building both sides, apart from the measuring (which
    /// `--budget` bounds and `sequential.spent_s` reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_s: Option<f64>,
    /// The counter source of the counter rows (`--counters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<String>,
    /// Margin of the counter rows (fraction), when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_margin: Option<f64>,
    /// Counting pairs run of every counted scenario (`--counter-processes`, fewer when the
    /// budget held fewer); absent without separate counting processes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_pairs: Option<usize>,
    /// Seconds the counting pairs took, apart from the wall-time pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counting_s: Option<f64>,
    /// The A/A null control, when one ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null_control: Option<NullControl>,
    /// Where it ran.
    pub host: HostInfo,
    /// The command line that reproduces it (seed included).
    pub command: Vec<String>,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// RFC 3339 UTC.
    pub finished_at: String,
}

/// One scenario x metric of an A/A calibration: a row of `calibration.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationEntry {
    /// Scenario name.
    pub name: String,
    /// Metric name.
    pub metric: String,
    /// +-fraction of change that A/A sessions of `n` pairs produce (see docs/statistics.md).
    pub noise_band: f64,
    /// Minimal detectable effect (fraction) at `n` pairs, 80% power, under the verdict rule.
    pub mde: f64,
    /// Pairs per session.
    pub n: usize,
    /// Sessions run.
    pub sessions: usize,
    /// Pooled standard deviation of the per-pair log ratio.
    pub sd_log_ratio: f64,
    /// Each session's A/A change (ratio - 1).
    pub session_changes: Vec<f64>,
    /// Sessions whose verdict was `regressed` or `improved` (false positives by construction).
    pub false_positives: usize,
}
