//! Detect's third phase: each scenario's verdict (with more isolated runs for candidates and
//! flaky ones), localization of culprits and cleaners, and measured values in-suite against
//! isolated, confirmed on fresh runs.

use std::collections::BTreeMap;

use super::classify::{CANDIDATE_ISOLATED, FLAKY_MIN_RUNS, Initial, failure_rate};
use super::hazards::hazards;
use super::localize::{Localized, Localizer};
use super::pipeline::{GroupRuns, PendingShift, classify, run_isolated};
use super::probe::{Observation, Prober, Purpose};
use super::values::{ALPHA, Baseline, ShiftTest, shift_test};
use crate::errors::Error;
use crate::model::{DetectEntry, Evidence, EvidenceKind, OrderVerdict};

/// Fresh (culprit, scenario) pairs and alone runs, each, behind a reported value shift.
const CONFIRM_VALUE_PAIRS: usize = 8;

/// Shared runs outside the screening band needed before a value shift is localized.
const MIN_SHIFTED_RUNS: usize = 2;

/// Fresh runs behind a value-shift culprit, by (culprit, scenario): alone, and after it.
type ConfirmCache = BTreeMap<(String, String), (Vec<Observation>, Vec<Observation>)>;

/// Every scenario's entry; value comparisons go to `pending` (entry indices from `first`).
pub(super) fn judge_all(
    prober: &mut Prober<'_>,
    runs: &mut GroupRuns,
    seed: u64,
    first: usize,
    pending: &mut Vec<PendingShift>,
) -> Result<Vec<DetectEntry>, Error> {
    let mut loc = Localizer::new(prober, seed.wrapping_mul(0x9e37_79b9).wrapping_add(1));
    let mut entries: Vec<DetectEntry> = Vec::new();
    let mut cache = ConfirmCache::new();
    for name in runs.names.clone() {
        let mut entry = judge(&mut loc, runs, &name)?;
        if runs.is_measure(&name) {
            let index = first + entries.len();
            value_shifts(&mut loc, runs, &name, &mut entry, &mut cache, index, pending)?;
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// The verdict state after the extra isolated runs a candidate or a flaky scenario gets.
fn settle(loc: &mut Localizer<'_, '_>, runs: &mut GroupRuns, name: &str) -> Result<Initial, Error> {
    let mut state = classify(&runs.iso[name], &runs.shared[name]);
    if matches!(state, Initial::VictimCandidate | Initial::BrittleCandidate) {
        // Candidates get more isolated runs before they are called order-dependent.
        while runs.iso[name].len() < CANDIDATE_ISOLATED && runs.iso[name].iter().all(|o| o.failed() == runs.iso[name][0].failed()) {
            run_isolated(loc.prober(), name, &mut runs.iso)?;
        }
        state = classify(&runs.iso[name], &runs.shared[name]);
    }
    if state == Initial::Flaky {
        while runs.iso[name].len() + runs.shared[name].len() < FLAKY_MIN_RUNS {
            run_isolated(loc.prober(), name, &mut runs.iso)?;
        }
    }
    Ok(state)
}

/// One scenario's entry: verdict, culprits, cleaners, evidence, hazards.
fn judge(loc: &mut Localizer<'_, '_>, runs: &mut GroupRuns, name: &str) -> Result<DetectEntry, Error> {
    let state = settle(loc, runs, name)?;
    let sh: Vec<&Observation> = runs.shared[name].iter().collect();
    let mut localized = Localized::default();
    let mut note = None;
    let verdict = match state {
        Initial::Pass => OrderVerdict::Pass,
        Initial::Fail => OrderVerdict::Fail,
        Initial::Flaky => OrderVerdict::Flaky,
        Initial::VictimCandidate | Initial::BrittleCandidate => {
            let victim = state == Initial::VictimCandidate;
            let effect = move |o: &Observation| o.ran() && o.failed() == victim;
            localized = loc.localize_all(name, &sh, &effect)?;
            let dependent = if localized.culprits.is_empty() {
                let reproduced = reproduce(loc, name, &sh, &effect, &mut localized)?;
                note = Some(if reproduced {
                    "order-dependent (the flipping order reproduces) but no single culprit was confirmed"
                } else {
                    "the flipping order did not reproduce: no ordering cause"
                });
                reproduced
            } else {
                true
            };
            match (dependent, victim) {
                (false, _) => OrderVerdict::Flaky,
                (true, true) => OrderVerdict::Victim,
                (true, false) => OrderVerdict::Brittle,
            }
        }
    };
    let (iso, shared) = (&runs.iso[name], &runs.shared[name]);
    let all: Vec<&Observation> = iso.iter().chain(shared.iter()).collect();
    let mut entry = DetectEntry {
        name: name.to_owned(),
        binary: None,
        package: None,
        verdict,
        polluters: vec![],
        state_setters: vec![],
        cleaners: localized.cleaners.clone(),
        failure_rate: (verdict == OrderVerdict::Flaky).then(|| failure_rate(&all)),
        evidence: evidence(name, verdict, iso, shared, &localized, note),
        hazards: if loc.prober().target().observes_env() {
            hazards(&all)
        } else {
            vec![]
        },
        value_shifts: vec![],
        reproduce: None,
        mechanism: vec![],
    };
    match verdict {
        OrderVerdict::Victim => entry.polluters = localized.culprits,
        OrderVerdict::Brittle => entry.state_setters = localized.culprits,
        _ => {}
    }
    Ok(entry)
}

/// 4. Measured values: in-suite against isolated, per metric. One stray run outside the band is
///    noise on a shared machine; a culprit that runs before this scenario in about half the
///    schedules shifts several, and is then localized and confirmed on fresh runs.
fn value_shifts(
    loc: &mut Localizer<'_, '_>,
    runs: &GroupRuns,
    name: &str,
    entry: &mut DetectEntry,
    cache: &mut ConfirmCache,
    index: usize,
    pending: &mut Vec<PendingShift>,
) -> Result<(), Error> {
    let sh: Vec<&Observation> = runs.shared[name].iter().collect();
    let iso_refs: Vec<&Observation> = runs.iso[name].iter().collect();
    for b in Baseline::from_isolated(&iso_refs) {
        let mut culprits = vec![];
        let mut fresh = None;
        if sh.iter().filter(|o| b.shifted(o)).count() >= MIN_SHIFTED_RUNS {
            let effect = |o: &Observation| b.shifted(o);
            let found = loc.localize_all(name, &sh, &effect)?;
            entry.evidence.extend(found.evidence.iter().cloned().map(|mut e| {
                e.detail = format!("{} (value of {})", e.detail, b.metric);
                e
            }));
            (culprits, fresh) = confirm_culprits(loc, &b, name, &found.culprits, cache)?;
        }
        let in_suite: Vec<f64> = sh.iter().filter_map(|o| b.value_of(o)).collect();
        if let Some(test) = fresh.or_else(|| b.test(&in_suite)) {
            pending.push(PendingShift {
                entry: index,
                metric: b.metric.clone(),
                test,
                culprits,
            });
        }
    }
    Ok(())
}

/// Each localized candidate is tested on fresh runs: the candidate then this scenario,
/// interleaved with this scenario alone, so both see the same machine load. Candidates whose
/// shift is significant after Bonferroni across the candidates are the culprits; the most
/// significant one's test (with its Bonferroni-scaled p, which Benjamini-Hochberg then adjusts
/// across scenarios) is returned.
fn confirm_culprits(
    loc: &mut Localizer<'_, '_>,
    b: &Baseline,
    name: &str,
    candidates: &[String],
    cache: &mut ConfirmCache,
) -> Result<(Vec<String>, Option<ShiftTest>), Error> {
    let tried = candidates.len() as f64;
    let mut culprits = Vec::new();
    let mut fresh: Option<ShiftTest> = None;
    for c in candidates {
        let key = (c.clone(), name.to_owned());
        if !cache.contains_key(&key) {
            let runs = confirm_runs(loc.prober(), c, name)?;
            cache.insert(key.clone(), runs);
        }
        let (alone, after) = &cache[&key];
        let reference: Vec<f64> = alone.iter().filter_map(|o| b.value_of(o)).collect();
        let sample: Vec<f64> = after.iter().filter_map(|o| b.value_of(o)).collect();
        let Some(mut t) = shift_test(b.ratio, &reference, &sample) else {
            continue;
        };
        t.p_value = (t.p_value * tried).min(1.0);
        if t.p_value <= ALPHA {
            culprits.push(c.clone());
            if fresh.as_ref().is_none_or(|f| t.p_value < f.p_value) {
                fresh = Some(t);
            }
        }
    }
    Ok((culprits, fresh))
}

/// [`CONFIRM_VALUE_PAIRS`] of (culprit then `name`) and (`name` alone), interleaved.
fn confirm_runs(prober: &mut Prober<'_>, culprit: &str, name: &str) -> Result<(Vec<Observation>, Vec<Observation>), Error> {
    let (mut alone, mut after) = (Vec::new(), Vec::new());
    let pair = [culprit.to_owned(), name.to_owned()];
    for _ in 0..CONFIRM_VALUE_PAIRS {
        let obs = prober.run_once(&pair, None, EvidenceKind::Confirm, Purpose::Localization)?;
        after.extend(obs.into_iter().filter(|o| o.name == name));
        let obs = prober.run_once(&pair[1..], None, EvidenceKind::Isolated, Purpose::Localization)?;
        alone.extend(obs.into_iter().filter(|o| o.name == name));
    }
    Ok((alone, after))
}

/// Re-run the shortest flipping order once: does the flip come back?
fn reproduce(
    loc: &mut Localizer<'_, '_>,
    name: &str,
    shared: &[&Observation],
    effect: &dyn Fn(&Observation) -> bool,
    localized: &mut Localized,
) -> Result<bool, Error> {
    let Some(src) = shared.iter().filter(|o| effect(o)).min_by_key(|o| o.prefix.len()) else {
        return Ok(false);
    };
    let prober = loc.prober();
    let seed = if prober.target().honours_order() { None } else { src.seed };
    let obs = prober.run_once(&src.order(), seed, EvidenceKind::Localize, Purpose::Localization)?;
    localized.runs += 1;
    let again = obs.iter().find(|o| o.name == name);
    let ok = again.is_some_and(effect);
    localized.evidence.push(Evidence {
        kind: EvidenceKind::Localize,
        order: obs.iter().filter(|o| o.ran()).map(|o| o.name.clone()).collect(),
        seed,
        outcome: again.map_or("not_run".into(), |o| o.outcome.status().as_str().into()),
        detail: format!(
            "rerun of the shortest flipping order: {}",
            if ok { "reproduced" } else { "did not reproduce" }
        ),
        message: again.and_then(Observation::message),
    });
    Ok(ok)
}

fn evidence(
    name: &str,
    verdict: OrderVerdict,
    iso: &[Observation],
    shared: &[Observation],
    loc: &Localized,
    note: Option<&str>,
) -> Vec<Evidence> {
    let mut ev = Vec::new();
    let mut by_status: BTreeMap<&'static str, usize> = BTreeMap::new();
    for o in iso {
        *by_status.entry(o.outcome.status().as_str()).or_default() += 1;
    }
    for (status, k) in &by_status {
        ev.push(Evidence {
            kind: EvidenceKind::Isolated,
            order: vec![name.to_owned()],
            seed: None,
            outcome: (*status).to_owned(),
            detail: format!("{k} of {} isolated runs", iso.len()),
            message: first_message(iso, status),
        });
    }
    if matches!(verdict, OrderVerdict::Pass | OrderVerdict::Fail) {
        let mut by: BTreeMap<&'static str, usize> = BTreeMap::new();
        for o in shared {
            *by.entry(o.outcome.status().as_str()).or_default() += 1;
        }
        for (status, k) in by {
            ev.push(Evidence {
                kind: EvidenceKind::Order,
                order: vec![],
                seed: None,
                outcome: status.to_owned(),
                detail: format!("{k} of {} shared runs (schedules in detect-run.json)", shared.len()),
                message: first_message(shared, status),
            });
        }
    } else {
        for o in shared {
            ev.push(Evidence {
                kind: o.kind,
                order: o.order(),
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

/// The message of the first of `obs` that ended with `status` (a failure's text, kept once per status).
fn first_message(obs: &[Observation], status: &str) -> Option<String> {
    obs.iter()
        .find(|o| o.outcome.status().as_str() == status)
        .and_then(Observation::message)
}
