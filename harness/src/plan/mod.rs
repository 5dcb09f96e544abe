//! Planning a run: which variants, how many isolated repetitions, in what seeded order.
//!
//! May import `model` only.

mod partition;
mod shuffle;

pub use partition::Partition;
pub(crate) use partition::fingerprint;
pub use shuffle::SeededOrder;
pub(crate) use shuffle::fresh_seed;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::model::Listed;
use crate::model::ScenarioKind;

/// One isolated process to run: one repetition of one scenario variant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Job {
    /// Full scenario name.
    pub scenario: String,
    /// Check, measure or test.
    pub kind: ScenarioKind,
    /// Env the process starts with.
    pub env: BTreeMap<String, String>,
    /// Which repetition (0-based).
    pub repetition: usize,
    /// Kill after this long.
    pub timeout: Option<Duration>,
}

/// Which listed scenarios a run selects, libtest-style.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Substring filters (or exact names with `exact`); empty selects all.
    pub filters: Vec<String>,
    /// Filters must equal the name.
    pub exact: bool,
    /// Names containing any of these are dropped (exact names with `exact`).
    pub skip: Vec<String>,
    /// Run only ignored scenarios.
    pub ignored_only: bool,
    /// Run ignored scenarios too.
    pub include_ignored: bool,
}

impl Selection {
    /// Whether `name` passes the filters and skips (ignoring the ignored-state).
    pub fn matches_name(&self, name: &str) -> bool {
        let hit = |f: &String| {
            if self.exact { name == f } else { name.contains(f.as_str()) }
        };
        (self.filters.is_empty() || self.filters.iter().any(hit)) && !self.skip.iter().any(hit)
    }

    /// The listed scenarios this selection runs, and those it leaves out as ignored.
    pub fn apply(&self, listed: &[Listed]) -> (Vec<Listed>, Vec<Listed>) {
        let mut run = Vec::new();
        let mut ignored = Vec::new();
        for l in listed.iter().filter(|l| self.matches_name(&l.name)) {
            let is_ignored = l.ignored.is_some();
            if self.include_ignored || (self.ignored_only == is_ignored) {
                run.push(l.clone());
            } else if is_ignored {
                ignored.push(l.clone());
            }
        }
        (run, ignored)
    }
}

/// `repeat` jobs per scenario, all shuffled together by `order` so repetitions interleave and
/// drift spreads over every scenario instead of landing on one.
pub(crate) fn jobs(
    selected: &[Listed],
    repeat_checks: usize,
    repeat_measures: usize,
    default_timeout: Option<Duration>,
    order: &mut SeededOrder,
) -> Vec<Job> {
    let mut jobs: Vec<Job> = selected
        .iter()
        .flat_map(|l| {
            let reps = if l.kind == ScenarioKind::Measure {
                repeat_measures
            } else {
                repeat_checks
            };
            (0..reps).map(move |repetition| Job {
                scenario: l.name.clone(),
                kind: l.kind,
                env: l.env.clone(),
                repetition,
                timeout: l.timeout.or(default_timeout),
            })
        })
        .collect();
    order.shuffle(&mut jobs);
    jobs
}
