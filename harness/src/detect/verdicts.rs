//! Detect's third phase: each scenario's verdict (after the extra isolated runs of those that
//! failed somewhere: [`super::settle`]), localization of culprits and cleaners (a culprit found
//! for one scenario is tried first for the next), and measured values in-suite against
//! isolated, confirmed on fresh runs. What the budget left undecided is `unknown`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::classify::{Initial, failure_rate};
use super::hazards::hazards;
use super::localize::{Localized, Localizer};
use super::pipeline::{GroupRuns, PendingShift, classify};
use super::probe::{Observation, Prober, SharedProber};
use super::settle::{before_localization, extra_isolated, families, undecided};
use crate::errors::Error;
use crate::model::{DetectEntry, Evidence, EvidenceKind, OrderVerdict, WouldDecide};

mod alone;
mod value_shifts;

use value_shifts::{ConfirmCache, value_shifts};

/// Every scenario's entry; value comparisons go to `pending` (entry indices from `first`).
/// Candidates are localized side by side (up to the prober's workers), then measurements'
/// values are compared one at a time.
pub(super) fn judge_all(
    prober: &mut Prober<'_>,
    runs: &mut GroupRuns,
    seed: u64,
    first: usize,
    pending: &mut Vec<PendingShift>,
) -> Result<Vec<DetectEntry>, Error> {
    let family = families(runs);
    let cut = extra_isolated(prober, runs, &|runs, name| before_localization(runs, name, &family))?;
    let workers = prober.workers;
    let observes_env = SharedProber::new(prober).target().observes_env();
    let mut entries: Vec<Option<DetectEntry>> = Vec::with_capacity(runs.names.len());
    let mut candidates = Vec::new();
    for (i, name) in runs.names.iter().enumerate() {
        let would = undecided(runs, name, &cut);
        let state = classify(&runs.iso[name], &runs.shared[name]);
        entries.push(if !would.is_empty() {
            Some(unknown(runs, name, would))
        } else if let Some(verdict) = settled_verdict(state) {
            Some(entry_of(runs, name, verdict, Localized::default(), None, observes_env))
        } else {
            candidates.push((i, state));
            None
        });
    }
    let base = seed.wrapping_mul(0x9e37_79b9).wrapping_add(1);
    let localized = localize_candidates(&SharedProber::new(prober), runs, &candidates, workers, base)?;
    for (i, entry, seen) in localized {
        entries[i] = Some(entry);
        runs.absorb(seen);
    }
    let mut entries: Vec<DetectEntry> = entries.into_iter().map(|e| e.expect("every scenario is judged")).collect();
    let indices: Vec<usize> = candidates.iter().map(|c| c.0).collect();
    alone::after_localization(prober, runs, &mut entries, &indices, observes_env)?;
    let shared = SharedProber::new(prober);
    let mut loc = Localizer::new(&shared, base);
    let mut cache = ConfirmCache::new();
    for (i, name) in runs.names.clone().iter().enumerate() {
        if runs.is_measure(name) {
            value_shifts(&mut loc, runs, name, &mut entries[i], &mut cache, first + i, pending)?;
            runs.absorb(loc.take_seen());
        }
    }
    Ok(entries)
}

/// The verdict of a scenario whose observations settle it (no localization needed).
fn settled_verdict(state: Initial) -> Option<OrderVerdict> {
    match state {
        Initial::Pass => Some(OrderVerdict::Pass),
        Initial::Fail => Some(OrderVerdict::Fail),
        Initial::Flaky => Some(OrderVerdict::Flaky),
        Initial::VictimCandidate | Initial::BrittleCandidate => None,
    }
}

/// Culprits confirmed so far in this group: a later scenario that flipped after one of them
/// tries it first, by pair runs, instead of bisecting again.
#[derive(Default)]
struct Known {
    polluters: Vec<String>,
    setters: Vec<String>,
}

impl Known {
    fn of(&mut self, victim: bool) -> &mut Vec<String> {
        if victim { &mut self.polluters } else { &mut self.setters }
    }
}

/// A candidate's entry and the observations its localization made.
type Localization = (usize, DetectEntry, Vec<Observation>);

/// Localize every candidate, up to `workers` at a time, each on its own [`Localizer`] over the
/// shared prober; culprits found go to the others as hints.
fn localize_candidates(
    shared: &SharedProber<'_, '_>,
    runs: &GroupRuns,
    candidates: &[(usize, Initial)],
    workers: usize,
    base: u64,
) -> Result<Vec<Localization>, Error> {
    let next = AtomicUsize::new(0);
    let known = Mutex::new(Known::default());
    let done: Mutex<Vec<Localization>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, candidates.len().max(1)) {
            scope.spawn(|| {
                let mut loc = Localizer::new(shared, base);
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= candidates.len() || locked(&failure).is_some() {
                        break;
                    }
                    let (i, state) = candidates[k];
                    let name = &runs.names[i];
                    loc.reseed(base ^ name_hash(name));
                    let victim = state == Initial::VictimCandidate;
                    let mut hints = locked(&known).of(victim).clone();
                    for p in peers(runs, candidates, name) {
                        if !hints.contains(&p) {
                            hints.push(p);
                        }
                    }
                    match judge_candidate(&mut loc, runs, name, victim, &hints) {
                        Ok(entry) => {
                            let found = if victim { &entry.polluters } else { &entry.state_setters };
                            let mut k = locked(&known);
                            for c in found {
                                if !k.of(victim).contains(c) {
                                    k.of(victim).push(c.clone());
                                }
                            }
                            drop(k);
                            locked(&done).push((i, entry, loc.take_seen()));
                        }
                        Err(e) => {
                            *locked(&failure) = Some(e);
                            break;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        return Err(e);
    }
    let mut done = done.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    done.sort_by_key(|d| d.0);
    Ok(done)
}

/// Other victim candidates that first failed in shared runs with the same headline as `name`:
/// likely a family (each sets one process-global and fails after any other), tried first by
/// pair runs.
fn peers(runs: &GroupRuns, candidates: &[(usize, Initial)], name: &str) -> Vec<String> {
    let headline = |n: &str| -> Option<String> {
        let m = runs.shared[n].iter().filter(|o| o.ran() && o.failed()).find_map(|o| o.message())?;
        Some(crate::model::headline(&m).to_owned())
    };
    let Some(own) = headline(name) else { return Vec::new() };
    candidates
        .iter()
        .filter(|(_, s)| *s == Initial::VictimCandidate)
        .map(|(i, _)| runs.names[*i].as_str())
        .filter(|n| *n != name && headline(n).as_deref() == Some(own.as_str()))
        .map(str::to_owned)
        .collect()
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock means another thread panicked, which the scope re-raises anyway.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// FNV-1a of a name: each scenario's own libtest seeds.
fn name_hash(name: &str) -> u64 {
    crate::fnv::fnv1a(name.as_bytes())
}

/// An entry the budget left undecided: what was seen, and the runs that would decide it.
fn unknown(runs: &GroupRuns, name: &str, would: Vec<WouldDecide>) -> DetectEntry {
    let (iso, shared) = (&runs.iso[name], &runs.shared[name]);
    let mut entry = empty_entry(name, OrderVerdict::Unknown);
    entry.evidence = evidence(name, OrderVerdict::Unknown, iso, shared, &Localized::default(), None);
    entry.would_decide = would;
    entry
}

pub(super) fn empty_entry(name: &str, verdict: OrderVerdict) -> DetectEntry {
    DetectEntry {
        name: name.to_owned(),
        binary: None,
        package: None,
        verdict,
        polluters: vec![],
        state_setters: vec![],
        cleaners: vec![],
        cleaners_stopped: None,
        backtrace: None,
        failure_rate: None,
        evidence: vec![],
        hazards: vec![],
        value_shifts: vec![],
        reproduce: None,
        mechanism: vec![],
        would_decide: vec![],
    }
}

/// One scenario's entry from its verdict and what localization found: culprits, cleaners,
/// failure rate, evidence, hazards.
fn entry_of(
    runs: &GroupRuns,
    name: &str,
    verdict: OrderVerdict,
    localized: Localized,
    note: Option<&str>,
    observes_env: bool,
) -> DetectEntry {
    let (iso, shared) = (&runs.iso[name], &runs.shared[name]);
    let all: Vec<&Observation> = iso.iter().chain(shared.iter()).collect();
    let mut entry = empty_entry(name, verdict);
    entry.cleaners = localized.cleaners.clone();
    entry.cleaners_stopped = localized.cleaners_stopped.clone();
    entry.failure_rate = (verdict == OrderVerdict::Flaky).then(|| failure_rate(&all));
    entry.evidence = evidence(name, verdict, iso, shared, &localized, note);
    if observes_env {
        entry.hazards = hazards(&all);
    }
    match verdict {
        OrderVerdict::Victim => entry.polluters = localized.culprits,
        OrderVerdict::Brittle => entry.state_setters = localized.culprits,
        _ => {}
    }
    entry
}

/// A victim or brittle candidate: localize its culprits (trying `hints` first); with none
/// confirmed, does its shortest flipping order reproduce?
fn judge_candidate(
    loc: &mut Localizer<'_, '_, '_>,
    runs: &GroupRuns,
    name: &str,
    victim: bool,
    hints: &[String],
) -> Result<DetectEntry, Error> {
    let sh: Vec<&Observation> = runs.shared[name].iter().collect();
    let effect = move |o: &Observation| o.ran() && o.failed() == victim;
    let mut localized = loc.localize_all(name, &sh, &effect, hints)?;
    let mut note = None;
    let dependent = if localized.cut {
        None
    } else if localized.culprits.is_empty() {
        let reproduced = reproduce(loc, name, &sh, &effect, &mut localized)?;
        note = match reproduced {
            Some(true) => Some("order-dependent (the flipping order reproduces) but no single culprit was confirmed"),
            Some(false) => Some("the flipping order did not reproduce: no ordering cause"),
            None => None,
        };
        reproduced
    } else {
        Some(true)
    };
    let verdict = match (dependent, victim) {
        (None, _) => OrderVerdict::Unknown,
        (Some(false), _) => OrderVerdict::Flaky,
        (Some(true), true) => OrderVerdict::Victim,
        (Some(true), false) => OrderVerdict::Brittle,
    };
    let mut entry = entry_of(runs, name, verdict, localized, note, loc.target().observes_env());
    if verdict == OrderVerdict::Unknown {
        entry.would_decide.push(super::settle::would_localize(&sh, victim));
    }
    Ok(entry)
}

/// Re-run the shortest flipping order once: does the flip come back? `None` when the budget
/// ran out first.
fn reproduce(
    loc: &mut Localizer<'_, '_, '_>,
    name: &str,
    shared: &[&Observation],
    effect: &dyn Fn(&Observation) -> bool,
    localized: &mut Localized,
) -> Result<Option<bool>, Error> {
    let Some(src) = shared.iter().filter(|o| effect(o)).min_by_key(|o| o.prefix.len()) else {
        return Ok(Some(false));
    };
    let seed = if loc.target().honours_order() { None } else { src.seed };
    let Some(obs) = loc.run(&src.order(), seed, EvidenceKind::Localize)? else {
        return Ok(None);
    };
    localized.runs += 1;
    let again = obs.iter().find(|o| o.name == name);
    let ok = again.is_some_and(effect);
    let executed: Vec<String> = obs.iter().filter(|o| o.ran()).map(|o| o.name.clone()).collect();
    let (order, order_skipped) = Evidence::order_tail(&executed);
    localized.evidence.push(Evidence {
        kind: EvidenceKind::Localize,
        order,
        order_skipped,
        seed,
        outcome: again.map_or("not_run".into(), |o| o.outcome.status().as_str().into()),
        detail: format!(
            "rerun of the shortest flipping order: {}",
            if ok { "reproduced" } else { "did not reproduce" }
        ),
        message: again.and_then(Observation::message),
    });
    Ok(Some(ok))
}

fn evidence(
    name: &str,
    verdict: OrderVerdict,
    iso: &[Observation],
    shared: &[Observation],
    loc: &Localized,
    note: Option<&str>,
) -> Vec<Evidence> {
    let mut ev = isolated_evidence(name, iso);
    if verdict == OrderVerdict::Flaky {
        ev.push(flaky_rate_evidence(name, iso, shared));
    }
    if matches!(verdict, OrderVerdict::Pass | OrderVerdict::Fail | OrderVerdict::Unknown) {
        let mut by: BTreeMap<&'static str, usize> = BTreeMap::new();
        for o in shared {
            *by.entry(o.outcome.status().as_str()).or_default() += 1;
        }
        for (status, k) in by {
            ev.push(Evidence {
                kind: EvidenceKind::Order,
                order: vec![],
                order_skipped: 0,
                seed: None,
                outcome: status.to_owned(),
                detail: format!(
                    "{k} of {} shared runs (schedules in detect-run.json, and localization runs of others)",
                    shared.len()
                ),
                message: first_message(shared, status),
            });
        }
    } else {
        for o in shared {
            let (order, order_skipped) = Evidence::order_tail(&o.order());
            ev.push(Evidence {
                kind: o.kind,
                order,
                order_skipped,
                seed: o.seed,
                outcome: o.outcome.status().as_str().to_owned(),
                detail: format!("shared run, after {} others", o.prefix.len()),
                message: o.message(),
            });
        }
    }
    ev.extend(loc.evidence.iter().cloned());
    if matches!(verdict, OrderVerdict::Victim | OrderVerdict::Brittle) || loc.runs > 0 {
        ev.push(Evidence {
            kind: EvidenceKind::Localize,
            order: vec![],
            order_skipped: 0,
            seed: None,
            outcome: String::new(),
            detail: match note {
                Some(n) => format!("{n}; localization took {} runs", loc.runs),
                None => format!("localization took {} runs", loc.runs),
            },
            message: None,
        });
    }
    ev
}

/// One line per outcome of the runs alone.
fn isolated_evidence(name: &str, iso: &[Observation]) -> Vec<Evidence> {
    let mut by_status: BTreeMap<&'static str, usize> = BTreeMap::new();
    for o in iso {
        *by_status.entry(o.outcome.status().as_str()).or_default() += 1;
    }
    by_status
        .iter()
        .map(|(status, k)| Evidence {
            kind: EvidenceKind::Isolated,
            order: vec![name.to_owned()],
            order_skipped: 0,
            seed: None,
            outcome: (*status).to_owned(),
            detail: format!("{k} of {} isolated runs", iso.len()),
            message: first_message(iso, status),
        })
        .collect()
}

/// A flaky scenario's failures over every run of it.
fn flaky_rate_evidence(name: &str, iso: &[Observation], shared: &[Observation]) -> Evidence {
    let ran = |v: &[Observation]| v.iter().filter(|o| o.ran()).count();
    let failed = iso.iter().chain(shared).filter(|o| o.ran() && o.failed()).count();
    Evidence {
        kind: EvidenceKind::Isolated,
        order: vec![name.to_owned()],
        order_skipped: 0,
        seed: None,
        outcome: "failed".into(),
        detail: format!(
            "failure rate over every run of it: {failed} of {} failed ({} alone, {} in shared processes)",
            ran(iso) + ran(shared),
            ran(iso),
            ran(shared)
        ),
        message: None,
    }
}

/// The message of the first of `obs` that ended with `status` (a failure's text, kept once per status).
fn first_message(obs: &[Observation], status: &str) -> Option<String> {
    obs.iter()
        .find(|o| o.outcome.status().as_str() == status)
        .and_then(Observation::message)
}
