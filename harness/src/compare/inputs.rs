//! From runs to [`MetricInput`]s: complete A/B pairs of the interleaved design, or the
//! per-process values of two result directories. Only runs that passed contribute; failures on
//! either side become a note (and an `inconclusive` verdict).
//!
//! A process contributes the median of its iterations (geometric: the median of the logs, so a
//! rate and the latency it is computed from stay exact reciprocals), not their mean: within-process
//! spikes of 1.5-3x pull a mean, and the estimator simulation (`estimator_sim.rs`) found the
//! median with a trimmed mean across pairs the most powerful choice that keeps its coverage.

use std::collections::BTreeMap;

use super::analyze::MetricInput;
use super::interleave::ScenarioRuns;
use crate::model::{Outcome, ResultsFile, RunRecord, ScenarioKind};

fn metric_names<'a>(runs: impl Iterator<Item = &'a RunRecord>) -> Vec<&'a crate::model::MetricSample> {
    let mut seen: Vec<&crate::model::MetricSample> = Vec::new();
    for r in runs.filter(|r| r.outcome == Outcome::Passed) {
        for m in &r.metrics {
            if !seen.iter().any(|s| s.name == m.name) {
                seen.push(m);
            }
        }
    }
    seen
}

fn failure_note(side: &str, runs: &[RunRecord]) -> Option<String> {
    let bad: Vec<&RunRecord> = runs.iter().filter(|r| r.outcome != Outcome::Passed).collect();
    let first = bad.first()?;
    Some(format!(
        "{} of {} {side} runs did not pass (first: {})",
        bad.len(),
        runs.len(),
        first.outcome.short()
    ))
}

fn join_notes(notes: [Option<String>; 2]) -> Option<String> {
    let v: Vec<String> = notes.into_iter().flatten().collect();
    (!v.is_empty()).then(|| v.join("; "))
}

/// One input per scenario x metric seen in a passed run of either side; pairs whose two runs
/// both passed and both reported the metric.
pub(crate) fn from_pairs(runs: &BTreeMap<String, ScenarioRuns>) -> Vec<MetricInput> {
    let mut out = Vec::new();
    for (name, sr) in runs {
        if sr.baseline.iter().chain(&sr.candidate).all(|r| r.kind != ScenarioKind::Measure) {
            continue;
        }
        let note = join_notes([failure_note("baseline", &sr.baseline), failure_note("candidate", &sr.candidate)]);
        let metrics = metric_names(sr.baseline.iter().chain(&sr.candidate));
        if metrics.is_empty() {
            out.push(MetricInput {
                name: name.clone(),
                metric: String::new(),
                unit: crate::model::Unit::Nanoseconds,
                better: crate::model::Better::Lower,
                baseline: Vec::new(),
                candidate: Vec::new(),
                paired: true,
                n_baseline: 0,
                n_candidate: 0,
                note: Some(note.unwrap_or_else(|| "no run reported a metric".into())),
                within: None,
            });
            continue;
        }
        for proto in metrics {
            let value = |r: &RunRecord| {
                (r.outcome == Outcome::Passed)
                    .then(|| r.metric(&proto.name).map(per_process))
                    .flatten()
            };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (ra, rb) in sr.baseline.iter().zip(&sr.candidate) {
                if let (Some(x), Some(y)) = (value(ra), value(rb)) {
                    a.push(x);
                    b.push(y);
                }
            }
            out.push(MetricInput {
                name: name.clone(),
                metric: proto.name.clone(),
                unit: proto.unit.clone(),
                better: proto.better,
                n_baseline: sr.baseline.iter().filter_map(value).count(),
                n_candidate: sr.candidate.iter().filter_map(value).count(),
                baseline: a,
                candidate: b,
                paired: true,
                note: note.clone(),
                within: within_sd(sr.baseline.iter().chain(&sr.candidate).filter_map(|r| r.metric(&proto.name))),
            });
        }
    }
    out
}

/// The value a process contributes: the median of its iterations (of their logs when all are
/// positive), or its recorded value when it kept no iterations.
pub(crate) fn per_process(m: &crate::model::MetricSample) -> f64 {
    let it = &m.iterations;
    if it.is_empty() {
        return m.value;
    }
    let positive = it.iter().all(|&x| x > 0.0);
    let mut v: Vec<f64> = if positive { it.iter().map(|x| x.ln()).collect() } else { it.clone() };
    v.sort_by(f64::total_cmp);
    let k = v.len();
    let med = if k % 2 == 1 { v[k / 2] } else { (v[k / 2 - 1] + v[k / 2]) / 2.0 };
    if positive { med.exp() } else { med }
}

/// Pooled within-process sd of log iterations (processes with at least 2 positive iterations).
fn within_sd<'a>(samples: impl Iterator<Item = &'a crate::model::MetricSample>) -> Option<f64> {
    let (mut ss, mut df) = (0.0, 0usize);
    for m in samples.filter(|m| m.iterations.len() >= 2 && m.iterations.iter().all(|&x| x > 0.0)) {
        let l: Vec<f64> = m.iterations.iter().map(|x| x.ln()).collect();
        let mean = l.iter().sum::<f64>() / l.len() as f64;
        ss += l.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
        df += l.len() - 1;
    }
    (df > 0).then(|| (ss / df as f64).sqrt())
}

/// Unpaired inputs from two result directories: scenarios measured in both. Names measured on
/// one side only come back as warnings.
pub(crate) fn from_results(a: &ResultsFile, b: &ResultsFile, keep: impl Fn(&str) -> bool) -> (Vec<MetricInput>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let measured = |r: &ResultsFile| -> BTreeMap<String, crate::model::ScenarioSummary> {
        r.summaries
            .iter()
            .filter(|s| s.kind == ScenarioKind::Measure && keep(&s.scenario))
            .map(|s| (s.scenario.clone(), s.clone()))
            .collect()
    };
    let (ma, mb) = (measured(a), measured(b));
    for name in ma.keys().filter(|n| !mb.contains_key(*n)) {
        warnings.push(format!("{name} is measured in the baseline only"));
    }
    for name in mb.keys().filter(|n| !ma.contains_key(*n)) {
        warnings.push(format!("{name} is measured in the candidate only"));
    }
    for (name, sa) in &ma {
        let Some(sb) = mb.get(name) else { continue };
        let side_note = |side: &str, s: &crate::model::ScenarioSummary| {
            let f = s.counts.failures();
            (f > 0).then(|| format!("{f} of {} {side} runs did not pass", s.counts.total()))
        };
        let note = join_notes([side_note("baseline", sa), side_note("candidate", sb)]);
        for m in &sa.metrics {
            let Some(mb_) = sb.metrics.iter().find(|x| x.metric == m.metric) else {
                warnings.push(format!("{name}: metric {} is in the baseline only", m.metric));
                continue;
            };
            let va: Vec<f64> = m.values.iter().map(|(_, v)| *v).collect();
            let vb: Vec<f64> = mb_.values.iter().map(|(_, v)| *v).collect();
            out.push(MetricInput {
                name: name.clone(),
                metric: m.metric.clone(),
                unit: m.unit.clone(),
                better: m.better,
                n_baseline: va.len(),
                n_candidate: vb.len(),
                baseline: va,
                candidate: vb,
                paired: false,
                note: note.clone(),
                within: None,
            });
        }
    }
    (out, warnings)
}
