//! From run records to per-scenario summaries: counts, verdict, and statistics per metric with
//! the process as the unit of repetition.

use std::collections::BTreeMap;

use super::{MetricSummary, Outcome, OutcomeCounts, RunRecord, ScenarioKind, ScenarioSummary, Verdict};
use crate::stats;

/// Summaries of every scenario in `records`, in name order.
pub fn summarize_runs(records: &[RunRecord]) -> Vec<ScenarioSummary> {
    let mut by_name: BTreeMap<&str, Vec<&RunRecord>> = BTreeMap::new();
    for r in records {
        by_name.entry(r.scenario.as_str()).or_default().push(r);
    }
    by_name.into_values().map(|runs| summarize_scenario(&runs)).collect()
}

fn summarize_scenario(runs: &[&RunRecord]) -> ScenarioSummary {
    let first = runs[0];
    let mut counts = OutcomeCounts::default();
    for r in runs {
        counts.add(&r.outcome);
    }
    let metrics = metric_summaries(runs);
    let unstable = metrics.iter().any(|m| m.stats.unstable);
    let verdict = match (counts.passed, counts.failures()) {
        (0, 0) => Verdict::Skipped,
        (_, 0) if first.kind == ScenarioKind::Measure && unstable => Verdict::Unstable,
        (_, 0) if first.kind == ScenarioKind::Measure => Verdict::Measured,
        (_, 0) => Verdict::Passed,
        (0, _) => Verdict::Failed,
        _ => Verdict::Flaky,
    };
    let skip_reason = runs.iter().find_map(|r| match &r.outcome {
        Outcome::Skipped { reason } => Some(reason.clone()),
        _ => None,
    });
    ScenarioSummary {
        scenario: first.scenario.clone(),
        kind: first.kind,
        env: first.env.clone(),
        counts,
        verdict,
        skip_reason,
        metrics,
    }
}

fn metric_summaries(runs: &[&RunRecord]) -> Vec<MetricSummary> {
    let passed: Vec<&RunRecord> = runs.iter().copied().filter(|r| r.outcome == Outcome::Passed).collect();
    let mut names: Vec<&str> = Vec::new();
    for r in &passed {
        for m in &r.metrics {
            if !names.contains(&m.name.as_str()) {
                names.push(&m.name);
            }
        }
    }
    names
        .into_iter()
        .filter_map(|name| {
            let samples: Vec<(usize, &super::MetricSample)> =
                passed.iter().filter_map(|r| r.metric(name).map(|m| (r.run_index, m))).collect();
            let proto = samples.first()?.1;
            let values: Vec<f64> = samples.iter().map(|(_, m)| m.value).collect();
            let within: Vec<Vec<f64>> = samples.iter().map(|(_, m)| m.iterations.clone()).collect();
            let has_within = within.iter().all(|w| w.len() >= 2);
            let mut summary = stats::summarize(&values, has_within.then_some(within.as_slice()), proto.unit.is_ratio_scale(), 0.95).ok()?;
            // The method's own distortion (a batch that changes the per-call time) is never `ok`.
            if let Some(why) = samples.iter().find_map(|(_, m)| m.distortion.as_deref()) {
                summary.unstable = true;
                let all = summary.unstable_reason.take().into_iter().chain([why.to_owned()]);
                summary.unstable_reason = Some(all.collect::<Vec<_>>().join("; "));
            }
            // An allocation row is exact only if every call of every process was: equal process
            // medians over varying calls (every third call allocating) are not.
            let refs: Vec<&super::MetricSample> = samples.iter().map(|(_, m)| *m).collect();
            let per_call = crate::allocs::decide::per_call(&refs);
            if per_call.is_some_and(|p| !p.exact) {
                summary.exact = false;
            }
            Some(MetricSummary {
                per_call,
                metric: name.to_owned(),
                unit: proto.unit.clone(),
                better: proto.better,
                stats: summary,
                values: samples.iter().map(|(i, m)| (*i, m.value)).collect(),
                source: proto.source.clone(),
            })
        })
        .collect()
}
