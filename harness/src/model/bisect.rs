//! `BisectFile` and its parts: the plain record `bisect` writes as `bisect.json` after every
//! step (with `finished: false` until the search ends), and reads back for nothing else.

use serde::{Deserialize, Serialize};

use super::{HostInfo, Unit};

/// `bisect.json`'s `format_version`.
pub const BISECT_FORMAT_VERSION: u32 = 1;

/// What one step said about its commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepVerdict {
    /// The commit's value is on the good end's side (moved at most half way).
    Good,
    /// The commit's value moved more than half way towards the bad end.
    Bad,
    /// The commit could not be measured (build failed, scenario absent or not passing).
    Skipped,
}

/// One step of the search: a commit measured (or found unmeasurable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BisectStep {
    /// The commit's id.
    pub commit: String,
    /// Its position in the range (0 is good, the last is bad).
    pub index: usize,
    /// The commit's value of the metric in this step (geometric mean of its processes for a
    /// ratio-scale metric, else the mean); `None` when skipped.
    pub value: Option<f64>,
    /// 95% interval of `value`, `[low, high]`.
    pub interval: Option<[f64; 2]>,
    /// The verdict of all this commit's measurements so far.
    pub verdict: StepVerdict,
    /// The commit's value over the good end's, from every pair measured so far (interleaved
    /// against good; counters: from the means).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_to_good: Option<f64>,
    /// 95% interval of `ratio_to_good`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_interval: Option<[f64; 2]>,
    /// How far the commit moved from good towards bad (0 good, 1 bad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<f64>,
    /// Probability that the verdict is right, given this commit's measurements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_probability: Option<f64>,
    /// Processes this step ran.
    pub processes: usize,
    /// Why it was skipped, or anything else worth saying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One commit of the range, in order from good to bad.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeCommit {
    /// Position (0 is good).
    pub index: usize,
    /// Commit id.
    pub commit: String,
    /// First line of its message.
    pub subject: String,
    /// Probability that this commit is the first bad one, at the end (0 for good).
    pub probability: f64,
    /// Why it could not be measured, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// A commit and the probability that it is the first bad one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Commit id (the last of `commits` when skipped commits before it cannot be told apart).
    pub commit: String,
    /// Every commit this probability covers: more than one when the commits before `commit`
    /// could not be measured (`git bisect skip`: the first bad is any of them).
    pub commits: Vec<String>,
    /// Posterior probability (or, for counters, the chance every step's verdict was right).
    pub probability: f64,
}

/// The change from good to bad that the search looked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangeChange {
    /// bad / good.
    pub ratio: f64,
    /// 95% interval of `ratio`.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Changes within +-this fraction count as no change.
    pub noise_floor: f64,
}

/// `bisect.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BisectFile {
    /// [`BISECT_FORMAT_VERSION`].
    pub format_version: u32,
    /// The first commit whose value moved more than half way to bad, when one was named with
    /// the asked confidence; `None` otherwise (see `message` and `best`).
    pub first_bad: Option<String>,
    /// Probability that `best` is right.
    pub confidence: f64,
    /// The metric searched.
    pub metric: String,
    /// Its unit.
    pub unit: Option<Unit>,
    /// Every step, in the order run.
    pub steps: Vec<BisectStep>,
    /// The good end's commit id.
    pub good: String,
    /// The bad end's commit id.
    pub bad: String,
    /// `--good` and `--bad` as given.
    pub good_ref: String,
    /// `--bad` as given.
    pub bad_ref: String,
    /// The scenario.
    pub scenario: String,
    /// `counters` (plain binary search) or `probabilistic` (noisy wall time).
    pub method: String,
    /// The confidence asked for.
    pub target_confidence: f64,
    /// The likeliest first bad commit (also when not named), and the runner-up.
    pub best: Option<Candidate>,
    /// The second likeliest.
    pub runner_up: Option<Candidate>,
    /// The change between the ends, once measured.
    pub change: Option<RangeChange>,
    /// Every commit of the range.
    pub commits: Vec<RangeCommit>,
    /// What the search concluded, in one sentence.
    pub message: String,
    /// Anything else the reader should know (merges, a scenario appearing in the range, ...).
    pub notes: Vec<String>,
    /// Builds: made now, taken from the cache, failed.
    pub builds: BuildCounts,
    /// Seed of the pair schedules.
    pub seed: u64,
    /// The command that reproduces this search.
    pub reproduce: Vec<String>,
    /// Whether the search ended (false while it runs, or after a kill).
    pub finished: bool,
    /// Seconds spent so far.
    pub elapsed_s: f64,
    /// The machine.
    pub host: HostInfo,
    /// With `--counters` and the `instructions` metric: the functions whose instructions per
    /// call changed from the last measured commit before `first_bad` to `first_bad`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<Vec<super::ExplainEntry>>,
}

/// How the commits' binaries were obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildCounts {
    /// Built by this search.
    pub built: usize,
    /// Taken from the per-commit cache.
    pub cached: usize,
    /// Failed (now or, cached, earlier).
    pub failed: usize,
}
