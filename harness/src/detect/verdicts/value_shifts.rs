//! Measured values in-suite against isolated: a scenario whose value shifts in several shared
//! runs has its culprits localized, each confirmed on fresh interleaved runs.

use std::collections::BTreeMap;

use super::super::localize::Localizer;
use super::super::pipeline::{GroupRuns, PendingShift};
use super::super::probe::Observation;
use super::super::values::{ALPHA, Baseline, ShiftTest, shift_test};
use crate::errors::Error;
use crate::model::{DetectEntry, EvidenceKind};

/// Fresh (culprit, scenario) pairs and alone runs, each, behind a reported value shift.
const CONFIRM_VALUE_PAIRS: usize = 8;

/// Shared runs outside the screening band needed before a value shift is localized.
const MIN_SHIFTED_RUNS: usize = 2;

/// Fresh runs of a scenario: alone, and after a value-shift culprit.
type ConfirmRuns = (Vec<Observation>, Vec<Observation>);

/// Fresh runs behind a value-shift culprit, by (culprit, scenario).
pub(super) type ConfirmCache = BTreeMap<(String, String), ConfirmRuns>;

/// 4. Measured values: in-suite against isolated, per metric. One stray run outside the band is
///    noise on a shared machine; a culprit that runs before this scenario in about half the
///    schedules shifts several, and is then localized and confirmed on fresh runs.
pub(super) fn value_shifts(
    loc: &mut Localizer<'_, '_, '_>,
    runs: &GroupRuns,
    name: &str,
    entry: &mut DetectEntry,
    cache: &mut ConfirmCache,
    index: usize,
    pending: &mut Vec<PendingShift>,
) -> Result<(), Error> {
    // In-suite values come from the schedules (a localization run is arranged, not sampled).
    let sh: Vec<&Observation> = runs.shared[name]
        .iter()
        .filter(|o| matches!(o.kind, EvidenceKind::Order | EvidenceKind::Reverse | EvidenceKind::Shuffle))
        .collect();
    let iso_refs: Vec<&Observation> = runs.iso[name].iter().collect();
    for b in Baseline::from_isolated(&iso_refs) {
        let mut culprits = vec![];
        let mut fresh = None;
        if sh.iter().filter(|o| b.shifted(o)).count() >= MIN_SHIFTED_RUNS && !loc.spent() {
            let effect = |o: &Observation| b.shifted(o);
            let found = loc.localize_all(name, &sh, &effect, &[])?;
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
    loc: &mut Localizer<'_, '_, '_>,
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
            let Some(runs) = confirm_runs(loc, c, name)? else {
                break; // the budget is spent
            };
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

/// [`CONFIRM_VALUE_PAIRS`] of (culprit then `name`) and (`name` alone), interleaved; `None`
/// when the budget ran out first.
fn confirm_runs(loc: &mut Localizer<'_, '_, '_>, culprit: &str, name: &str) -> Result<Option<ConfirmRuns>, Error> {
    let (mut alone, mut after) = (Vec::new(), Vec::new());
    let pair = [culprit.to_owned(), name.to_owned()];
    for _ in 0..CONFIRM_VALUE_PAIRS {
        let Some(obs) = loc.run(&pair, None, EvidenceKind::Confirm)? else {
            return Ok(None);
        };
        after.extend(obs.into_iter().filter(|o| o.name == name));
        let Some(obs) = loc.run(&pair[1..], None, EvidenceKind::Isolated)? else {
            return Ok(None);
        };
        alone.extend(obs.into_iter().filter(|o| o.name == name));
    }
    Ok(Some((alone, after)))
}
