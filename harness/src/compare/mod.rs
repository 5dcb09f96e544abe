//! `compare` and `calibrate`: is the candidate build slower or faster than the baseline, with an
//! interval, a multiple-comparison-adjusted test and a verdict a CI gate can trust.
//!
//! Two binaries are run in seeded random A/B pairs ([`interleave`]) so drift hits both sides;
//! each process contributes the median of its iterations, each metric's change is Yuen's
//! trimmed mean of per-pair log ratios with its interval ([`effect`]); p-values are adjusted with
//! Benjamini-Hochberg across the independent rows and each row gets a verdict against the margin
//! ([`verdict`]). With `--budget`, undecided scenarios get more pairs at sequential looks with
//! alpha spending ([`sequential`], [`budget`]); an A/A null control runs alongside ([`control`]);
//! `--base-ref` builds both sides from git ([`base_ref`]). Two result
//! directories are compared unpaired (Welch on logs), which is the blocked design and says so.
//! `calibrate` runs a binary against itself to measure each scenario's noise band.
//! See docs/statistics.md, "Comparing builds".
//!
//! Owns the compare pipeline and its files (as reporters); may import `execute`, `events`, `model`,
//! `plan`, `stats` and `report`'s writers; never `cli` (it returns a `CompareOutcome`).

mod analyze;
mod base_ref;
mod budget;
mod build_target;
mod calibrate;
#[expect(clippy::module_inception, reason = "the pipeline of the compare module is its own concept")]
mod compare;
mod control;
mod count_pairs;
mod effect;
mod fit;
mod inputs;
mod interleave;
mod markdown;
mod options;
mod output;
mod sequential;
mod verdict;

#[cfg(test)]
mod counter_sim;
#[cfg(test)]
pub(crate) mod estimator_sim;
#[cfg(test)]
mod sequential_sim;
#[cfg(test)]
mod simulation;

pub use build_target::{BuildTarget, TargetKind};
pub use compare::{plan_compare, run_calibrate, run_compare};
pub use options::{BaseRef, CalibrateOptions, CompareOptions, RunSettings};
pub use output::{CompareFiles, CompareSummary};
pub use verdict::DEFAULT_NOISE_FLOOR;

// What `bisect` builds on: the per-commit builder, the interleaver and the paired estimator.
pub(crate) use base_ref::{Builder, builder, git};
pub(crate) use effect::{Effect, Scale, paired_estimate};
pub(crate) use inputs::from_pairs;
pub(crate) use interleave::{Interleaver, ProcessConfig, ScenarioRuns, SideTarget, schedule};
