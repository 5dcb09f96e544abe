//! What each scenario still needs before its verdict: [`extra_isolated`] runs the extra
//! isolated processes of every scenario that failed somewhere (alone or in a shared process),
//! side by side, in rounds; [`undecided`] says which runs would decide a scenario that
//! `--budget` left short of them (its verdict is then `unknown`).
//!
//! A victim or brittle candidate (its outcome alone differs from one in a shared run) gets up to
//! [`BEFORE_LOCALIZATION`] runs alone before localization where it is one of a family
//! ([`families`]), and after it as many as its evidence needs ([`after_localization`]), at most [`CANDIDATE_ISOLATED`]; a flaky one gets
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
/// Runs alone a victim or brittle candidate of a family gets before localization: its first
/// one only. Localization's pair runs put each member first in a process of its own before
/// every peer it pollutes ([`first_in_process`]), which says what a run alone says, so a
/// member of the fixture's family (8 installers) ends localization with 1 run alone, 7 runs
/// first and 7 failing pairs: 0.003% under any fixed failure rate. Extra runs alone before
/// localization (four until 2026-12-06) cost 24 processes there and decided nothing more.
pub const BEFORE_LOCALIZATION: usize = 1;
/// Bound on the chance that a scenario failing at one rate whatever the order shows a
/// candidate's evidence ([`flaky_bound`]): the chance that a 50% flaky scenario shows one outcome
/// in [`CANDIDATE_ISOLATED`] runs alone (2 x 0.5^10).
pub const FLAKY_ALPHA: f64 = 0.002;

/// The largest chance, over every failure rate p, that a scenario whose outcome does not depend
/// on the order shows `alone` runs alone with one outcome and `elsewhere` runs with the other:
/// max_p p^alone (1-p)^elsewhere, at p = alone / (alone + elsewhere).
pub fn flaky_bound(alone: usize, elsewhere: usize) -> f64 {
    if alone == 0 || elsewhere == 0 {
        return 1.0;
    }
    let (a, b) = (alone as f64, elsewhere as f64);
    let p = a / (a + b);
    p.powf(a) * (1.0 - p).powf(b)
}

/// How strongly localization's pair runs of a candidate rule out a scenario that
/// fails at one rate whatever the order: the largest chance, over that rate, that `alone` runs
/// alone show its outcome alone and some `flipped` of its `confirms` pair runs show the other ([`flaky_bound`] times the ways to choose them: localization lists as culprits those
/// whose runs flipped). Runs found before localization chose its culprits are left out: they
/// chose them. `None` when a run contradicts the culprits (one before it and no flip, or a flip
/// with none before it), it has cleaners (they explain runs after the fact), its runs alone
/// disagree, or it has no culprit: then only runs alone tell it from a flaky scenario.
pub(super) fn confirm_bound(runs: &GroupRuns, name: &str, culprits: &[String], cleaners: &[String], alone: usize) -> Option<f64> {
    pair_runs(runs, name, culprits, cleaners).map(|(confirms, flipped)| bound_of(confirms, flipped, alone))
}

/// [`confirm_bound`] from localization's pair runs (`confirms` of them, `flipped` flipping) and
/// `alone` runs alone.
fn bound_of(confirms: usize, flipped: usize, alone: usize) -> f64 {
    choose(confirms, flipped) * flaky_bound(alone + confirms - flipped, flipped)
}

/// Localization's pair runs of `name` and how many of them flipped, or `None` where
/// [`confirm_bound`] gives up. It reads every prefix `name` ran after (thousands of names in a
/// large binary's shared orders), so callers trying several counts of runs alone call it once.
fn pair_runs(runs: &GroupRuns, name: &str, culprits: &[String], cleaners: &[String]) -> Option<(usize, usize)> {
    let (iso, shared) = (&runs.iso[name], &runs.shared[name]);
    let ran: Vec<&Observation> = iso.iter().filter(|o| o.ran()).collect();
    let failed = ran.first()?.failed();
    if culprits.is_empty() || !cleaners.is_empty() || ran.iter().any(|o| o.failed() != failed) {
        return None;
    }
    let (mut confirms, mut flipped) = (0, 0);
    for o in shared.iter().filter(|o| o.ran()) {
        let flips = o.failed() != failed;
        if o.prefix.iter().any(|n| culprits.contains(n)) != flips {
            return None;
        }
        // Localization's runs of a pair: [culprit, it] confirming, [other, it] ruling out.
        if matches!(o.kind, EvidenceKind::Localize | EvidenceKind::Confirm) && o.prefix.len() == 1 {
            confirms += 1;
            flipped += usize::from(flips);
        }
    }
    Some((confirms, flipped))
}

/// Runs in which `name` ran first in its process (a pair run confirming it as another's culprit,
/// a shared order it opened): with one test a thread, one after another, nothing ran before it,
/// so each is a run alone for its own outcome. A different outcome there than alone makes
/// [`confirm_bound`] give up, as a run alone would.
pub(super) fn first_in_process(runs: &GroupRuns, name: &str) -> usize {
    runs.shared[name].iter().filter(|o| o.ran() && o.prefix.is_empty()).count()
}

fn choose(n: usize, k: usize) -> f64 {
    (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product()
}

/// Extra runs alone a victim or brittle candidate needs after localization found `culprits`:
/// enough that [`confirm_bound`], counting its runs first in a process as runs alone, is at
/// most [`FLAKY_ALPHA`]; at least [`BEFORE_LOCALIZATION`] and at most [`CANDIDATE_ISOLATED`]
/// runs alone in all.
pub(super) fn after_localization(runs: &GroupRuns, name: &str, culprits: &[String], cleaners: &[String]) -> usize {
    let alone = runs.iso[name].iter().filter(|o| o.ran()).count();
    let first = first_in_process(runs, name);
    let pairs = pair_runs(runs, name, culprits, cleaners);
    let wanted = (BEFORE_LOCALIZATION..CANDIDATE_ISOLATED)
        .find(|&k| pairs.is_some_and(|(c, f)| bound_of(c, f, k + first) <= FLAKY_ALPHA))
        .unwrap_or(CANDIDATE_ISOLATED);
    wanted.saturating_sub(alone)
}

/// Extra runs a scenario that localization found flaky needs for its failure rate.
pub(super) fn flaky_top_up(runs: &GroupRuns, name: &str) -> usize {
    let ran = |v: &[Observation]| v.iter().filter(|o| o.ran()).count();
    FLAKY_MIN_RUNS.saturating_sub(ran(&runs.iso[name]) + ran(&runs.shared[name]))
}

/// Victim candidates that are likely a family: at least [`FAMILY`] fail in shared runs with the
/// same headline. Only these wait for localization's pair runs to size their runs alone; a lone
/// victim's one or two confirming pairs are weak evidence and it gets [`CANDIDATE_ISOLATED`] up
/// front, before localization spends on a candidate that may be flaky.
pub(super) fn families(runs: &GroupRuns) -> BTreeSet<String> {
    let mut by: std::collections::BTreeMap<String, Vec<&String>> = Default::default();
    for n in &runs.names {
        if classify(&runs.iso[n], &runs.shared[n]) != Initial::VictimCandidate {
            continue;
        }
        let failed = runs.shared[n].iter().filter(|o| o.ran() && o.failed()).find_map(|o| o.message());
        if let Some(m) = failed {
            by.entry(crate::model::headline(&m).to_owned()).or_default().push(n);
        }
    }
    by.into_values().filter(|v| v.len() >= FAMILY).flatten().cloned().collect()
}

/// Victim candidates failing alike that make a family.
const FAMILY: usize = 3;

/// Extra runs alone that `name` needs before localization: up to [`BEFORE_LOCALIZATION`] in a
/// family, [`CANDIDATE_ISOLATED`] otherwise.
pub(super) fn before_localization(runs: &GroupRuns, name: &str, family: &BTreeSet<String>) -> usize {
    needed(
        runs,
        name,
        if family.contains(name) {
            BEFORE_LOCALIZATION
        } else {
            CANDIDATE_ISOLATED
        },
    )
}

/// Extra runs alone that `name` needs now, a candidate's counted up to `candidate` in all.
fn needed(runs: &GroupRuns, name: &str, candidate: usize) -> usize {
    let (iso, shared) = (&runs.iso[name], &runs.shared[name]);
    if iso.is_empty() || hangs_alone(iso) {
        return 0;
    }
    let ran = |v: &[Observation]| v.iter().filter(|o| o.ran()).count();
    match classify(iso, shared) {
        Initial::VictimCandidate | Initial::BrittleCandidate => {
            let alike = iso.iter().all(|o| o.failed() == iso[0].failed());
            if alike { candidate.saturating_sub(iso.len()) } else { 0 }
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

/// Run the extra isolated runs that `want` asks of each scenario, side by side, until none needs
/// more (a candidate whose runs alone disagree becomes flaky and needs observations for its
/// rate). Returns the scenarios whose runs the budget cut.
pub(super) fn extra_isolated(
    prober: &mut Prober<'_>,
    runs: &mut GroupRuns,
    want: &dyn Fn(&GroupRuns, &str) -> usize,
) -> Result<BTreeSet<String>, Error> {
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
                std::iter::repeat_n(task, want(runs, n))
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
        let more = needed(runs, name, CANDIDATE_ISOLATED).max(1);
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
