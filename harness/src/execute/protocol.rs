//! The parent-child wire format. The parent passes a [`ChildRequest`] as JSON in argv; the child
//! appends one [`ChildRecord`] JSON line per finished scenario to the result file, flushed before
//! the next scenario starts, so a crash loses only the scenario that crashed.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::{EnvChange, MetricSample};

/// First argument that turns a suite binary into a child running scenarios.
pub(crate) const CHILD_ARG: &str = "__harness_child";
/// First argument that makes a suite binary print its scenarios as JSON lines.
pub(crate) const LIST_ARG: &str = "__harness_list";

/// What a child is asked to run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ChildRequest {
    /// Full scenario names, run in this order in this one process.
    pub scenarios: Vec<String>,
    /// Default measured iterations (a scenario's own setting wins).
    pub iterations: usize,
    /// Default warm-up iterations.
    pub warmup: usize,
    /// Where to append result lines.
    pub result_path: PathBuf,
    /// GPU sample rules for `Bencher::iter_gpu` (absent from older parents: the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<crate::model::GpuSettings>,
    /// Count the measurements' calls, and how (`--counters`); absent: wall time only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<crate::counters::CountRequest>,
    /// This process's heap layout: the offset `suite::allocator::settle` shifts later
    /// allocations by, so that processes sample layouts (absent from older parents: none).
    #[serde(default)]
    pub layout: u64,
}

/// How one scenario ended inside the child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum ChildStatus {
    Passed,
    Failed { message: String },
    Skipped { reason: String },
}

/// One line of the result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ChildRecord {
    pub name: String,
    #[serde(flatten)]
    pub status: ChildStatus,
    #[serde(default)]
    pub metrics: Vec<MetricSample>,
    #[serde(default)]
    pub env_changes: Vec<EnvChange>,
}

/// One scenario as listed by `__harness_list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ListLine {
    pub name: String,
    pub kind: crate::model::ScenarioKind,
    #[serde(default)]
    pub ignored: Option<String>,
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Where the scenario was built, `file:line` (absent from older suites).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why `--counters` must not count it, when it must not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncounted: Option<String>,
}
