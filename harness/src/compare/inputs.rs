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
use crate::errors::Error;
use crate::model::{Outcome, ResultsFile, RunRecord, ScenarioKind};

/// Every metric a passed run reported, with `resources` the process's peak RSS and CPU times too.
fn metric_names<'a>(runs: impl Iterator<Item = &'a RunRecord>, resources: bool) -> Vec<crate::model::MetricSample> {
    let mut seen: Vec<crate::model::MetricSample> = Vec::new();
    for r in runs.filter(|r| r.outcome == Outcome::Passed) {
        let metrics = if resources { r.all_metrics() } else { r.metrics.clone() };
        for m in metrics {
            if !seen.iter().any(|s| s.name == m.name) {
                seen.push(m);
            }
        }
    }
    seen
}

/// A metric's value in one run: measured, or one of the process's resources.
fn value_of(r: &RunRecord, name: &str) -> Option<f64> {
    r.metric(name)
        .map(per_process)
        .or_else(|| r.resource_metrics().into_iter().find(|m| m.name == name).map(|m| m.value))
}

fn failure_note(side: &str, runs: &[RunRecord]) -> Option<String> {
    // A counting process that skipped a measurement it cannot count (iter_custom) did not fail.
    let uncountable = |r: &RunRecord| r.counted_by.is_some() && matches!(r.outcome, Outcome::Skipped { .. });
    let bad: Vec<&RunRecord> = runs.iter().filter(|r| r.outcome != Outcome::Passed && !uncountable(r)).collect();
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
pub(crate) fn from_pairs(runs: &BTreeMap<String, ScenarioRuns>, resources: bool) -> Vec<MetricInput> {
    let mut out = Vec::new();
    for (name, sr) in runs {
        if sr.baseline.iter().chain(&sr.candidate).all(|r| r.kind != ScenarioKind::Measure) {
            continue;
        }
        let note = join_notes([failure_note("baseline", &sr.baseline), failure_note("candidate", &sr.candidate)]);
        let metrics = metric_names(sr.baseline.iter().chain(&sr.candidate), resources);
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
                source: None,
            });
            continue;
        }
        for proto in metrics {
            let value = |r: &RunRecord| (r.outcome == Outcome::Passed).then(|| value_of(r, &proto.name)).flatten();
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
                source: proto.source.clone(),
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
    let mut v: Vec<f64> = if positive {
        it.iter().map(|x| x.ln()).collect()
    } else {
        it.clone()
    };
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
pub(crate) fn from_results(
    a: &ResultsFile,
    b: &ResultsFile,
    resources: bool,
    keep: impl Fn(&str) -> bool,
) -> Result<(Vec<MetricInput>, Vec<String>), Error> {
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
            if m.source != mb_.source {
                let said = |s: &Option<String>| s.clone().unwrap_or_else(|| "wall time (no counter)".to_owned());
                return Err(Error::Counters {
                    detail: format!(
                        "{name}: metric {} was made by {} in the baseline and by {} in the candidate; \
                         counts of two sources are never compared: measure both with the same --counters",
                        m.metric,
                        said(&m.source),
                        said(&mb_.source)
                    ),
                });
            }
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
                source: m.source.clone(),
            });
        }
        if resources {
            out.extend(resource_inputs(name, a, b, &note));
        }
    }
    Ok((out, warnings))
}

/// Unpaired inputs of the process resources of `name`'s passed runs, where both sides have them.
fn resource_inputs(name: &str, a: &ResultsFile, b: &ResultsFile, note: &Option<String>) -> Vec<MetricInput> {
    let passed = |r: &ResultsFile| -> Vec<crate::model::MetricSample> {
        r.runs
            .iter()
            .filter(|x| x.scenario == name && x.outcome == Outcome::Passed)
            .flat_map(RunRecord::resource_metrics)
            .collect()
    };
    let (ra, rb) = (passed(a), passed(b));
    let mut out = Vec::new();
    for proto in metric_protos(&ra) {
        let values =
            |v: &[crate::model::MetricSample]| -> Vec<f64> { v.iter().filter(|m| m.name == proto.name).map(|m| m.value).collect() };
        let (va, vb) = (values(&ra), values(&rb));
        if va.is_empty() || vb.is_empty() {
            continue;
        }
        out.push(MetricInput {
            name: name.to_owned(),
            metric: proto.name.clone(),
            unit: proto.unit.clone(),
            better: proto.better,
            n_baseline: va.len(),
            n_candidate: vb.len(),
            baseline: va,
            candidate: vb,
            paired: false,
            within: None,
            note: note.clone(),
            source: None,
        });
    }
    out
}

/// The first sample of each metric name, in order.
fn metric_protos(samples: &[crate::model::MetricSample]) -> Vec<&crate::model::MetricSample> {
    let mut seen: Vec<&crate::model::MetricSample> = Vec::new();
    for m in samples {
        if !seen.iter().any(|s| s.name == m.name) {
            seen.push(m);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, ProcessFacts, Unit};

    fn run(rss: u64, cpu: u64) -> RunRecord {
        RunRecord {
            run_index: 0,
            scenario: "s".into(),
            kind: ScenarioKind::Measure,
            env: Default::default(),
            repetition: 0,
            outcome: Outcome::Passed,
            metrics: vec![],
            wall_ns: 1,
            started_ms: 0.0,
            env_changes: vec![],
            stdout: String::new(),
            stderr: String::new(),
            process: ProcessFacts {
                exit_code: Some(0),
                peak_rss_bytes: Some(rss),
                cpu_user_ns: Some(cpu),
                cpu_system_ns: Some(cpu / 2),
                ..Default::default()
            },
            counted_by: None,
        }
    }

    #[test]
    fn resources_are_lower_is_better_metrics_only_when_asked() {
        let sr = ScenarioRuns {
            baseline: vec![run(1000, 10), run(1100, 12)],
            candidate: vec![run(2000, 20), run(2100, 22)],
        };
        let runs = BTreeMap::from([("s".to_owned(), sr)]);
        let with = from_pairs(&runs, true);
        let rss = with.iter().find(|i| i.metric == "peak_rss_bytes").unwrap();
        assert_eq!((&rss.unit, rss.better), (&Unit::Bytes, Better::Lower));
        assert_eq!(
            (rss.baseline.clone(), rss.candidate.clone()),
            (vec![1000.0, 1100.0], vec![2000.0, 2100.0])
        );
        let cpu = with.iter().find(|i| i.metric == "cpu_system_ns").unwrap();
        assert_eq!((&cpu.unit, cpu.candidate.clone()), (&Unit::Nanoseconds, vec![10.0, 11.0]));
        assert!(with.iter().any(|i| i.metric == "cpu_user_ns"));
        let without = from_pairs(&runs, false);
        assert!(
            without.iter().all(|i| !i.metric.contains("rss") && !i.metric.starts_with("cpu_")),
            "{without:?}"
        );
    }
}
