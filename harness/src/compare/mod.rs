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

mod analyze;
mod base_ref;
mod budget;
mod calibrate;
#[expect(clippy::module_inception, reason = "the pipeline of the compare module is its own concept")]
mod compare;
mod control;
mod effect;
mod inputs;
mod interleave;
mod markdown;
mod output;
mod sequential;
mod verdict;

#[cfg(test)]
mod estimator_sim;
#[cfg(test)]
mod sequential_sim;
#[cfg(test)]
mod simulation;

pub use compare::{BaseRef, CalibrateOptions, CompareOptions, RunSettings, run_calibrate, run_compare};
pub use verdict::{ALPHA, DEFAULT_MARGIN, DEFAULT_NOISE_FLOOR, POWER};
