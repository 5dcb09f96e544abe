//! `compare` and `calibrate`: is the candidate build slower or faster than the baseline, with an
//! interval, a multiple-comparison-adjusted test and a verdict a CI gate can trust.
//!
//! Two binaries are run in seeded random A/B pairs ([`interleave`]) so drift hits both sides;
//! each metric's change is the ratio of geometric means with a paired-t interval on per-pair log
//! ratios ([`effect`]); p-values are adjusted with Benjamini-Hochberg across every scenario x
//! metric and each row gets a verdict against its noise band ([`verdict`]). Two result
//! directories are compared unpaired (Welch on logs), which is the blocked design and says so.
//! `calibrate` runs a binary against itself to measure each scenario's noise band.
//! See docs/statistics.md, "Comparing builds".
//!
//! Owns the compare pipeline and its files (as reporters); may import `execute`, `events`, `model`,
//! `plan`, `stats` and `report`'s writers; never `cli` (it returns a `CompareOutcome`).

mod analyze;
mod calibrate;
#[expect(clippy::module_inception, reason = "the pipeline of the compare module is its own concept")]
mod compare;
mod effect;
mod inputs;
mod interleave;
mod markdown;
mod output;
mod verdict;

#[cfg(test)]
mod simulation;

pub use compare::{CalibrateOptions, CompareOptions, RunSettings, plan_compare, run_calibrate, run_compare};
pub use output::{CompareFiles, CompareSummary};
pub use verdict::DEFAULT_NOISE_FLOOR;
