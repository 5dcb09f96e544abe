//! `detect`, order dependence: does a scenario's result (or measured value) depend on what ran before it
//! in the same process, and which scenario is the culprit. Entry points: [`run_detect`] (the
//! command, several targets) and [`detect`] (one target).
//!
//! Each scenario runs R times alone (the trusted reference) and in shared processes: the
//! original order, its reverse and K seeded shuffles ([`schedule`]). [`classify`] turns the
//! outcomes into pass / fail / flaky or a victim / brittle candidate; [`localize`] bisects the
//! prefix that preceded a flip down to one culprit, confirms it by a two-scenario run and finds
//! cleaners; [`values`] compares measured values in-suite with their isolated distribution;
//! [`hazards`] lists env/cwd changes; [`mechanism`] says how each culprit acts (env, cwd, file or
//! memory) from the [`footprint`]s the `LD_PRELOAD` interposer ([`preload`]) recorded; [`report`] holds the reporters that write `detect.json`,
//! `detect-run.json` and the summary; `command` drives every target through one executor on the
//! event seam.
//! See docs/failure-modes.md for the method and its limits.
//!
//! May import `execute`, `events`, `model`, `plan`, `stats` and `report`'s writers; never `cli`
//! (it returns a `DetectOutcome`).

mod backtrace;
pub(crate) mod classify;
mod command;
pub(crate) mod coverage;
pub(crate) mod footprint;
pub(crate) mod gather;
pub(crate) mod hazards;
pub(crate) mod libtest_shuffle;
pub(crate) mod localize;
pub(crate) mod mechanism;
mod observation;
pub(crate) mod pipeline;
pub(crate) mod pool;
pub(crate) mod preload;
pub(crate) mod probe;
#[cfg(feature = "cli")]
pub(crate) mod report;
pub(crate) mod reproduce;
pub(crate) mod schedule;
#[cfg(feature = "cli")]
mod screen;
pub(crate) mod settle;
#[cfg(any(test, feature = "test-support"))]
pub(crate) mod simulate;
pub(crate) mod subject;
pub(crate) mod values;
mod verdicts;

pub use command::{DetectOutcome, run_detect};
pub use pipeline::{DetectConfig, DetectResult, detect};
pub use probe::PreloadCounts;
#[cfg(feature = "cli")]
pub(crate) use report::{DetectFiles, DetectSummary};
#[cfg(any(test, feature = "test-support"))]
pub use simulate::{SimScenario, SimTarget};
#[cfg(feature = "cli")]
pub(crate) use subject::Exact;
#[cfg(feature = "cargo")]
pub(crate) use subject::Labeled;
pub use subject::OrderTarget;

#[cfg(test)]
mod family_tests;
#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod schedule_tests;
