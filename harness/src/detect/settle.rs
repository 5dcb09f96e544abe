//! What each scenario still needs before its verdict: [`extra_isolated`] runs the extra
//! isolated processes of every scenario that failed somewhere (alone or in a shared process),
//! side by side, in rounds; [`undecided`] says which runs would decide a scenario that
//! `--budget` left short of them (its verdict is then `unknown`).
//!
//! A victim or brittle candidate (its outcome alone differs from one in a shared run) gets
//! [`CANDIDATE_ISOLATED`] runs alone before it is called order-dependent; a flaky one gets
//! observations up to [`FLAKY_MIN_RUNS`], alone and shared together; a failing one that was seen
//! fewer than [`FAIL_MIN_RUNS`] times in all gets runs alone up to that. A scenario that passed
//! everywhere, or hung alone (each run would cost a whole timeout), gets none.

use std::collections::BTreeSet;

use super::classify::{CANDIDATE_ISOLATED, FLAKY_MIN_RUNS, Initial};
use super::pipeline::{GroupRuns, classify, hangs_alone};
use super::pool::{Plan, Start, Task};
use super::probe::{Observation, Prober, Purpose};
use crate::errors::Error;
use crate::model::{EvidenceKind, WouldDecide};

/// Observations (alone and shared) a `fail` verdict rests on at least.
pub const FAIL_MIN_RUNS: usize = 3;
/// Rounds of extra isolated runs at most (a candidate that turns out flaky needs a second).
const ROUNDS: usize = 3;
/// Phase name of the extra isolated runs.
pub const PHASE_EXTRA: &str = "extra_isolated";

/// Extra runs alone that `name` needs now.
fn needed(runs: &GroupRuns, name: &str) -> usize {
    let (iso, shared) = (&runs.iso[name], &runs.shared[name]);
    if iso.is_empty() || hangs_alone(iso) {
        return 0;
    }
    let ran = |v: &[Observation]| v.iter().filter(|o| o.ran()).count();
    match classify(iso, shared) {
        Initial::VictimCandidate | Initial::BrittleCandidate => {
            let alike = iso.iter().all(|o| o.failed() == iso[0].failed());
            if alike { CANDIDATE_ISOLATED.saturating_sub(iso.len()) } else { 0 }
        }
        Initial::Flaky => FLAKY_MIN_RUNS.saturating_sub(ran(iso) + ran(shared)),
        Initial::Fail => FAIL_MIN_RUNS.saturating_sub(ran(iso) + ran(shared)),
        Initial::Pass => 0,
    }
}

/// Collects the extra runs into the group's observations.
struct Extra<'r> {
    runs: &'r mut GroupRuns,
}

impl Plan for Extra<'_> {
    fn adjust(&mut self, _task: &mut Task) -> Start {
        Start::Now
    }

    fn done(&mut self, task: Task, observations: Vec<Observation>) -> Vec<Task> {
        for o in observations.into_iter().filter(|o| o.name == task.names[0]) {
            if let Some(v) = self.runs.iso.get_mut(&o.name) {
                v.push(o);
            }
        }
        vec![]
    }

    fn idle(&mut self) -> Vec<Task> {
        vec![]
    }
}

/// Run every scenario's extra isolated runs, side by side, until none needs more (a candidate
/// whose runs alone disagree becomes flaky and needs observations for its rate). Returns the
/// scenarios whose runs the budget cut.
pub(super) fn extra_isolated(prober: &mut Prober<'_>, runs: &mut GroupRuns) -> Result<BTreeSet<String>, Error> {
    let mut cut = BTreeSet::new();
    let mut started = false;
    for _ in 0..ROUNDS {
        let tasks: Vec<Task> = runs
            .names
            .iter()
            .flat_map(|n| {
                let task = Task {
                    names: vec![n.clone()],
                    seed: None,
                    kind: EvidenceKind::Isolated,
                    purpose: Purpose::ExtraIsolated,
                    tag: 0,
                };
                std::iter::repeat_n(task, needed(runs, n))
            })
            .collect();
        if tasks.is_empty() {
            break;
        }
        if !started {
            prober.phase_started(PHASE_EXTRA, tasks.len())?;
            started = true;
        } else {
            prober.planned(tasks.len())?;
        }
        let left = prober.run_pool(tasks, &mut Extra { runs: &mut *runs })?;
        runs.sort_by_process();
        if !left.is_empty() {
            cut.extend(left.into_iter().map(|t| t.names[0].clone()));
            break;
        }
    }
    if started {
        prober.phase_finished(PHASE_EXTRA)?;
    }
    Ok(cut)
}

/// The runs that would decide `name` and that the budget left out; empty when it is decided.
pub(super) fn undecided(runs: &GroupRuns, name: &str, cut: &BTreeSet<String>) -> Vec<WouldDecide> {
    let mut out = Vec::new();
    if runs.iso[name].is_empty() {
        out.push(WouldDecide {
            kind: EvidenceKind::Isolated,
            runs: 1,
            detail: "one run alone: it never ran alone before the budget was spent".into(),
        });
    }
    let in_shared = runs.names.len() > 1 && !runs.hung.contains(name);
    if in_shared && runs.shared[name].is_empty() {
        out.push(WouldDecide {
            kind: EvidenceKind::Order,
            runs: 1,
            detail: "a shared order: it never ran after the other scenarios".into(),
        });
    } else if in_shared && runs.cut {
        let unseen = runs.coverage.as_ref().map_or(0, |c| c.unseen_count_before(name));
        if unseen > 0 {
            // Each random order puts a given scenario before this one with probability 1/2.
            let orders = (usize::BITS - unseen.leading_zeros()) as usize + 1;
            out.push(WouldDecide {
                kind: EvidenceKind::Shuffle,
                runs: orders,
                detail: format!(
                    "shared orders with the {unseen} scenarios that never ran before it (a shuffle puts each before it with probability 1/2: about {orders})"
                ),
            });
        }
    }
    if cut.contains(name) {
        let more = needed(runs, name).max(1);
        out.push(WouldDecide {
            kind: EvidenceKind::Isolated,
            runs: more,
            detail: format!("{more} more runs alone: it failed somewhere, and runs alone tell flaky from order-dependent"),
        });
    }
    out
}

/// What would decide a candidate whose localization the budget cut.
pub(super) fn would_localize(shared: &[&Observation], victim: bool) -> WouldDecide {
    let effect = |o: &&&Observation| o.ran() && o.failed() == victim;
    let prefix = shared.iter().filter(effect).map(|o| o.prefix.len()).min().unwrap_or(0);
    let runs = (usize::BITS - prefix.leading_zeros()) as usize + 2;
    WouldDecide {
        kind: EvidenceKind::Localize,
        runs,
        detail: format!(
            "bisect the {prefix} scenarios before its shortest flipping run down to one culprit and confirm it by two pair runs (about {runs})"
        ),
    }
}
