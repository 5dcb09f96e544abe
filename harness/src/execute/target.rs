//! `Target`: something whose scenarios can be listed and run in fresh processes — a suite binary
//! speaking our protocol, or an ordinary libtest binary.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use super::ProcessOutput;
use crate::errors::Error;
use crate::model::{EnvChange, Listed, MetricSample, Outcome};

/// One process to run: these scenarios, in this order, in one child.
#[derive(Debug, Clone)]
pub struct TargetRequest {
    /// Scenario names in the order asked for.
    pub names: Vec<String>,
    /// Env the process starts with, on top of the parent's.
    pub env: BTreeMap<String, String>,
    /// Measured iterations per measurement.
    pub iterations: usize,
    /// Warm-up iterations per measurement.
    pub warmup: usize,
    /// Kill the process after this long.
    pub timeout: Option<Duration>,
    /// Directory for scratch files.
    pub scratch: PathBuf,
    /// Unique id for scratch file names.
    pub id: String,
    /// GPU sample rules for the suite's GPU measurements (`None`: the defaults).
    pub gpu: Option<crate::model::GpuSettings>,
    /// Run this process to count (`--counters`): under valgrind, or counting itself (perf).
    pub counters: Option<crate::counters::CounterSource>,
}

/// One scenario's result inside a process.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioResult {
    /// Full name.
    pub name: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Metrics it reported.
    pub metrics: Vec<MetricSample>,
    /// Env or cwd changes it made.
    pub env_changes: Vec<EnvChange>,
}

impl ScenarioResult {
    /// A result with an outcome and nothing measured.
    pub fn bare(name: impl Into<String>, outcome: Outcome) -> Self {
        ScenarioResult {
            name: name.into(),
            outcome,
            metrics: Vec::new(),
            env_changes: Vec::new(),
        }
    }
}

/// Everything one process produced.
#[derive(Debug, Clone)]
pub struct ProcessResult {
    /// Results in the order the scenarios actually ran; requested scenarios that never started
    /// come last as `NotRun`.
    pub results: Vec<ScenarioResult>,
    /// The process's captured output and end.
    pub process: ProcessOutput,
}

/// A binary whose scenarios the harness can list and run.
pub trait Target: Send + Sync {
    /// Path or description, for messages and reports.
    fn describe(&self) -> String;
    /// Every scenario (variant), in name order.
    fn list(&self) -> Result<Vec<Listed>, Error>;
    /// Run the request in one fresh process.
    fn run(&self, request: &TargetRequest) -> io::Result<ProcessResult>;
    /// Whether the target runs the requested order exactly (libtest binaries may not).
    fn honours_order(&self) -> bool {
        true
    }
}
