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
    /// Counted with the run's counter source (`--counters`).
    pub counted: bool,
    /// Counted for allocations (`--allocs` beside `--counters`), in a process of its own.
    pub allocs: bool,
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

/// How `--counters` enters a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CountedPlan {
    /// No counting.
    Off,
    /// The measuring processes count themselves (perf).
    InProcess,
    /// This many counting processes per measurement, after its measuring ones (valgrind).
    Separate(usize),
}

impl CountedPlan {
    /// Counting processes a run plans at first: two, the least that shows a count exact; the
    /// rest of `processes` follow only for a scenario whose two differ (`run::more_counting`).
    pub(crate) fn at_first(self) -> CountedPlan {
        match self {
            CountedPlan::Separate(n) => CountedPlan::Separate(n.min(2)),
            other => other,
        }
    }

    /// The plan for `settings` with `processes` counting processes where they are separate.
    pub(crate) fn of(settings: Option<&crate::counters::CounterSettings>, processes: usize) -> CountedPlan {
        match settings {
            None => CountedPlan::Off,
            Some(s) if s.source.separate_processes() => CountedPlan::Separate(processes),
            Some(_) => CountedPlan::InProcess,
        }
    }

    /// Allocation-counting processes per measurement beside the `settings` source's (`--allocs`
    /// with `--counters`); 0 where allocations are not counted or are the only source.
    pub(crate) fn allocs_beside(settings: Option<&crate::counters::CounterSettings>, processes: usize) -> usize {
        if settings.is_some_and(|s| s.allocs.is_some()) {
            processes
        } else {
            0
        }
    }
}

/// `repeat` jobs per scenario (and the counting ones `counted` adds to each measurement not
/// marked uncounted), all shuffled together by `order` so repetitions interleave and drift
/// spreads over every scenario instead of landing on one.
pub(crate) fn jobs(
    selected: &[Listed],
    repeat_checks: usize,
    repeat_measures: usize,
    counted: CountedPlan,
    allocs: usize,
    default_timeout: Option<Duration>,
    order: &mut SeededOrder,
) -> Vec<Job> {
    let mut jobs: Vec<Job> = selected
        .iter()
        .flat_map(|l| {
            let measure = l.kind == ScenarioKind::Measure;
            let countable = measure && l.uncounted.is_none();
            let reps = if measure { repeat_measures } else { repeat_checks };
            let extra = match counted {
                CountedPlan::Separate(n) if countable => n,
                _ => 0,
            };
            let allocs = if countable { allocs } else { 0 };
            (0..reps + extra + allocs).map(move |repetition| Job {
                scenario: l.name.clone(),
                kind: l.kind,
                env: l.env.clone(),
                repetition,
                timeout: l.timeout.or(default_timeout),
                counted: countable && repetition < reps + extra && (repetition >= reps || counted == CountedPlan::InProcess),
                allocs: repetition >= reps + extra,
            })
        })
        .collect();
    order.shuffle(&mut jobs);
    jobs
}
