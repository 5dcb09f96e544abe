//! `detect`, order dependence: does a scenario's result (or measured value) depend on what ran before it
//! in the same process, and which scenario is the culprit. Entry point: [`detect`].
//!
//! Each scenario runs R times alone (the trusted reference) and in shared processes: the
//! original order, its reverse and K seeded shuffles ([`schedule`]). [`classify`] turns the
//! outcomes into pass / fail / flaky or a victim / brittle candidate; [`localize`] bisects the
//! prefix that preceded a flip down to one culprit, confirms it by a two-scenario run and finds
//! cleaners; [`values`] compares measured values in-suite with their isolated distribution;
//! [`hazards`] lists env/cwd changes; [`report`] holds the reporters that write `detect.json`, `detect-run.json` and the summary;
//! `command` drives several targets through one executor on the event seam.
//! See docs/failure-modes.md for the method and its limits.

pub mod classify;
mod command;
pub mod pipeline;
pub mod hazards;
pub mod localize;
pub mod probe;
pub mod reproduce;
pub mod report;
pub mod schedule;
#[cfg(any(test, feature = "test-support"))]
pub mod simulate;
pub mod subject;
pub mod values;
mod verdicts;

pub use command::{DetectOutcome, run_detect};
pub use pipeline::{DetectConfig, DetectResult, PHASE_ISOLATED, PHASE_SHARED, PHASE_VERDICTS, detect};
pub use probe::{Observation, Prober};
pub use report::{DetectFiles, DetectSummary, write_summary};
#[cfg(any(test, feature = "test-support"))]
pub use simulate::{SimScenario, SimTarget};
pub use subject::{Exact, Labeled, OrderTarget};

#[cfg(test)]
mod pipeline_tests;
