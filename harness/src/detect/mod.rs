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
//! Without the `cli` feature (a suite binary) only [`preload`] is compiled: `--allocs` finds
//! the interposer through it.
//!
//! May import `execute`, `events`, `model`, `plan`, `stats` and `report`'s writers; never `cli`
//! (it returns a `DetectOutcome`).

#[cfg(feature = "cli")]
mod backtrace;
#[cfg(feature = "cli")]
pub(crate) mod classify;
#[cfg(feature = "cli")]
mod command;
#[cfg(feature = "cli")]
pub(crate) mod coverage;
#[cfg(feature = "cli")]
pub(crate) mod footprint;
#[cfg(feature = "cli")]
pub(crate) mod gather;
#[cfg(feature = "cli")]
pub(crate) mod hazards;
#[cfg(feature = "cli")]
pub(crate) mod libtest_shuffle;
#[cfg(feature = "cli")]
pub(crate) mod localize;
#[cfg(feature = "cli")]
pub(crate) mod mechanism;
#[cfg(feature = "cli")]
mod observation;
#[cfg(feature = "cli")]
pub(crate) mod pipeline;
#[cfg(feature = "cli")]
pub(crate) mod pool;
pub(crate) mod preload;
#[cfg(feature = "cli")]
pub(crate) mod probe;
#[cfg(feature = "cli")]
pub(crate) mod report;
#[cfg(feature = "cli")]
pub(crate) mod reproduce;
#[cfg(feature = "cli")]
pub(crate) mod schedule;
#[cfg(feature = "cli")]
mod screen;
#[cfg(feature = "cli")]
pub(crate) mod settle;
#[cfg(all(feature = "cli", any(test, feature = "test-support")))]
pub(crate) mod simulate;
#[cfg(feature = "cli")]
pub(crate) mod subject;
#[cfg(feature = "cli")]
pub(crate) mod values;
#[cfg(feature = "cli")]
mod verdicts;

#[cfg(feature = "cli")]
pub use command::{DetectOutcome, run_detect};
#[cfg(feature = "cli")]
pub use pipeline::{DetectConfig, DetectResult, detect};
#[cfg(feature = "cli")]
pub use probe::PreloadCounts;
#[cfg(feature = "cli")]
pub(crate) use report::{DetectFiles, DetectSummary};
#[cfg(all(feature = "cli", any(test, feature = "test-support")))]
pub use simulate::{SimScenario, SimTarget};
#[cfg(feature = "cli")]
pub(crate) use subject::Exact;
#[cfg(feature = "cargo")]
pub(crate) use subject::Labeled;
#[cfg(feature = "cli")]
pub use subject::OrderTarget;

#[cfg(all(test, feature = "cli"))]
mod family_tests;
#[cfg(all(test, feature = "cli"))]
mod pipeline_tests;
#[cfg(all(test, feature = "cli"))]
mod schedule_tests;
