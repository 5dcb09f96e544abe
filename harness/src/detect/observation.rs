//! [`Observation`]: one scenario's result in one detect process, with the order that preceded
//! it there ([`Prefix`], shared by every observation of the process).

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use crate::model::{EnvChange, EvidenceKind, MetricSample, Outcome, Status};

/// What ran before a scenario in its process: a view into the process's executed order, shared
/// by every observation of that process (a shared run of n scenarios holds one order, not n
/// copies of its prefixes).
#[derive(Debug, Clone, Default)]
pub struct Prefix {
    order: Option<Arc<[String]>>,
    len: usize,
}

impl Prefix {
    /// The first `len` names of `order`.
    pub fn of(order: &Arc<[String]>, len: usize) -> Self {
        Prefix {
            order: Some(Arc::clone(order)),
            len,
        }
    }
}

impl Deref for Prefix {
    type Target = [String];
    fn deref(&self) -> &[String] {
        self.order.as_deref().map_or(&[], |o| &o[..self.len])
    }
}

impl PartialEq for Prefix {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl From<Vec<String>> for Prefix {
    fn from(v: Vec<String>) -> Self {
        let len = v.len();
        Prefix {
            order: Some(v.into()),
            len,
        }
    }
}

/// One scenario's result in one process, with what ran before it there.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The scenario.
    pub name: String,
    /// Scenarios that ran before it in the same process, in order.
    pub prefix: Prefix,
    /// How it ended.
    pub outcome: Outcome,
    /// Metrics it reported.
    pub metrics: Vec<MetricSample>,
    /// Env/cwd changes it made.
    pub env_changes: Vec<EnvChange>,
    /// Which kind of run this was.
    pub kind: EvidenceKind,
    /// The shuffle seed, if any.
    pub seed: Option<u64>,
    /// The tail of the process's stderr, kept for a scenario that ended its process.
    pub output: String,
    /// The order its process was asked for in (processes are numbered as they are prepared), so
    /// observations gathered by processes run side by side can be put back in a fixed order.
    pub seq: usize,
    /// Wall time of its whole process (alone: how long the scenario takes).
    pub wall: Duration,
}

impl Observation {
    /// Ran to an outcome (anything but `not_run`).
    pub fn ran(&self) -> bool {
        self.outcome.status() != Status::NotRun
    }

    /// Did not pass (skips and not-run excluded).
    pub fn failed(&self) -> bool {
        self.outcome.is_failure()
    }

    /// Ended its process: a crash, a timeout or a silent exit (not a failed assertion).
    pub fn ended_process(&self) -> bool {
        self.ran() && self.failed() && !matches!(self.outcome, Outcome::Failed { .. })
    }

    /// What evidence keeps of a failure: the outcome's message and, after a crash, stderr's tail.
    pub fn message(&self) -> Option<String> {
        let m = self.outcome.message()?;
        Some(if self.output.is_empty() {
            m
        } else {
            format!("{m}\n--- stderr (tail) ---\n{}", self.output)
        })
    }

    /// The order up to and including this scenario.
    pub fn order(&self) -> Vec<String> {
        let mut o = self.prefix.to_vec();
        o.push(self.name.clone());
        o
    }
}
