//! `RunRecord`: one scenario run in one process, as appended to `results.jsonl`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Better, MetricSample, Outcome, Unit};

/// A check passes or fails; a measurement reports metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioKind {
    /// Passes, or fails by panic or `Err`.
    Check,
    /// Returns named metrics over in-process iterations.
    Measure,
    /// A `#[test]` of an ordinary libtest binary.
    Test,
}

/// A change a scenario made to process-wide state (an environment variable or the current
/// directory) between its start and its end. `None` means unset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvChange {
    /// The variable's name, or `<cwd>` for the current directory.
    pub name: String,
    /// The value before the scenario ran.
    pub before: Option<String>,
    /// The value after it ran.
    pub after: Option<String>,
}

/// One run of one scenario (variant) in one child process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Position in the run's execution order (0-based); unique within a run.
    pub run_index: usize,
    /// Full scenario name as `--list` prints it, variant included.
    pub scenario: String,
    /// Check, measure or test.
    pub kind: ScenarioKind,
    /// The env-matrix values this variant's process started with.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Which isolated repetition of the scenario this is (0-based).
    pub repetition: usize,
    /// How it ended.
    pub outcome: Outcome,
    /// Measured metrics (measurements that finished only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricSample>,
    /// Wall time of the whole child process, spawn to reap, in nanoseconds.
    pub wall_ns: u64,
    /// Milliseconds since the run started when this process was spawned.
    pub started_ms: f64,
    /// Environment or current-directory changes the scenario made (shared-process hazard).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_changes: Vec<EnvChange>,
    /// The child's stdout (truncated to a bounded size).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout: String,
    /// The child's stderr (truncated to a bounded size).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// How the process ended and what it used (absent in files written before they were kept).
    #[serde(flatten)]
    pub process: ProcessFacts,
    /// The counter source this process ran under to count (`valgrind-callgrind 3.19`); its
    /// wall time and resources are valgrind's, not the scenario's. `None` for a plain process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_by: Option<String>,
}

/// How one child process ended and the resources it used (`wait4`), as fields of a run record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessFacts {
    /// Exit code, when the process exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it (`SIGKILL` after a timeout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Peak resident set size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// User CPU time in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_user_ns: Option<u64>,
    /// System CPU time in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_system_ns: Option<u64>,
}

impl RunRecord {
    /// The speed probe's `[start, end]` readings of this process's CPU-timed measurement, if it
    /// had one (`suite/speed_probe.rs`).
    pub fn speed_probe(&self) -> Option<[f64; 2]> {
        self.metrics.iter().find_map(|m| m.speed_probe_ns)
    }

    /// The value of one metric, if this run measured it.
    pub fn metric(&self, name: &str) -> Option<&MetricSample> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The process's resources as metrics compare can judge (`peak_rss_bytes`, `cpu_user_ns`,
    /// `cpu_system_ns`; lower is better), those that were recorded. None for a process that
    /// ran under valgrind to count: those resources are valgrind's.
    pub fn resource_metrics(&self) -> Vec<MetricSample> {
        if self.counted_by.is_some() {
            return Vec::new();
        }
        let p = &self.process;
        [
            ("peak_rss_bytes", Unit::Bytes, p.peak_rss_bytes),
            ("cpu_user_ns", Unit::Nanoseconds, p.cpu_user_ns),
            ("cpu_system_ns", Unit::Nanoseconds, p.cpu_system_ns),
        ]
        .into_iter()
        .filter_map(|(name, unit, v)| {
            Some(MetricSample {
                name: name.to_owned(),
                unit,
                better: Better::Lower,
                value: v? as f64,
                iterations: Vec::new(),
                source: None,
                profile: None,
                distortion: None,
                speed_probe_ns: None,
            })
        })
        .collect()
    }

    /// Every metric of this run: what the scenario measured, then the process's resources.
    pub fn all_metrics(&self) -> Vec<MetricSample> {
        let mut all = self.metrics.clone();
        all.extend(self.resource_metrics());
        all
    }
}
