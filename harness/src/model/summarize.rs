//! From run records to per-scenario summaries: counts, verdict, and statistics per metric with
//! the process as the unit of repetition.

use std::collections::BTreeMap;

use super::{MetricSummary, Outcome, OutcomeCounts, RunRecord, ScenarioKind, ScenarioSummary, Slowed, Verdict};
use crate::stats;

/// Summaries of every scenario in `records`, in name order.
pub fn summarize_runs(records: &[RunRecord]) -> Vec<ScenarioSummary> {
    summarize_remembering(records, None)
}

/// [`summarize_runs`], judging a slowed machine against `remembered` (a full speed an earlier run
/// on this boot met, in ns of the speed probe) where the run never met it (`slowed.rs`).
pub fn summarize_remembering(records: &[RunRecord], remembered: Option<f64>) -> Vec<ScenarioSummary> {
    let fastest = super::slowed::full_speed(records, remembered);
    summarize_judged(records, &|_| fastest)
}

/// [`summarize_runs`], judging each process (by run index) against `fastest_of`'s full speed:
/// merged shards of several hosts judge each host's processes against that host's own.
pub fn summarize_judged(records: &[RunRecord], fastest_of: &dyn Fn(usize) -> Option<(f64, bool)>) -> Vec<ScenarioSummary> {
    let mut by_name: BTreeMap<&str, Vec<&RunRecord>> = BTreeMap::new();
    for r in records {
        by_name.entry(r.scenario.as_str()).or_default().push(r);
    }
    by_name.into_values().map(|runs| summarize_scenario(&runs, fastest_of)).collect()
}

fn summarize_scenario(runs: &[&RunRecord], fastest_of: &dyn Fn(usize) -> Option<(f64, bool)>) -> ScenarioSummary {
    let first = runs[0];
    let mut counts = OutcomeCounts::default();
    for r in runs {
        counts.add(&r.outcome);
    }
    let metrics = metric_summaries(runs, fastest_of);
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

/// `fastest_of`: each process's full-speed probe (and whether it is remembered), against which
/// its probe says it met a slowed machine (`slowed.rs`).
fn metric_summaries(runs: &[&RunRecord], fastest_of: &dyn Fn(usize) -> Option<(f64, bool)>) -> Vec<MetricSummary> {
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
            let mut samples: Vec<(usize, &super::MetricSample)> =
                passed.iter().filter_map(|r| r.metric(name).map(|m| (r.run_index, m))).collect();
            let slowed = super::slowed::split_slowed(&mut samples, fastest_of);
            let proto = samples.first()?.1;
            let values: Vec<f64> = samples.iter().map(|(_, m)| m.value).collect();
            let within: Vec<Vec<f64>> = samples.iter().map(|(_, m)| m.iterations.clone()).collect();
            let has_within = within.iter().all(|w| w.len() >= 2);
            let mut summary = stats::summarize(&values, has_within.then_some(within.as_slice()), proto.unit.is_ratio_scale(), 0.95).ok()?;
            // The method's own distortion (a batch that changes the per-call time) is never `ok`.
            if let Some(why) = samples.iter().find_map(|(_, m)| m.distortion.as_deref()) {
                flag(&mut summary, why.to_owned());
            }
            // Measured mostly on a slowed machine: the number is not what the machine mostly ran.
            if let Some(why) = slowed.as_ref().filter(|s| s.flags_row()).map(Slowed::describe) {
                flag(&mut summary, why);
            }
            if summary.exact && proto.source.is_none() && has_within {
                resolve_a_tick(&mut summary, &within);
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
                slowed,
            })
        })
        .collect()
}

/// Marks a summary `unstable`, adding `why` to its reasons.
fn flag(summary: &mut crate::stats::Summary, why: String) {
    summary.unstable = true;
    let all = summary.unstable_reason.take().into_iter().chain([why]);
    summary.unstable_reason = Some(all.collect::<Vec<_>>().join("; "));
}

/// A timed value is never exact. Processes that agree to the nanosecond while their samples vary
/// agree on a clock tick (a few samples a process, the middle ones on one tick): the interval is
/// then the value plus or minus the smallest gap between two samples, the resolution the data
/// shows, which holds the value whatever its distribution within the tick.
fn resolve_a_tick(summary: &mut crate::stats::Summary, within: &[Vec<f64>]) {
    let mut all: Vec<f64> = within.iter().flatten().copied().collect();
    all.sort_by(f64::total_cmp);
    let Some(tick) = all.windows(2).map(|w| w[1] - w[0]).filter(|d| *d > 0.0).min_by(f64::total_cmp) else {
        return;
    };
    let v = summary.center_value;
    summary.exact = false;
    summary.ci = Some(crate::stats::Interval {
        low: (v - tick).max(0.0),
        high: v + tick,
        level: 0.95,
    });
    summary.rel_half_width = (v != 0.0).then(|| tick / v.abs());
}

#[cfg(test)]
mod tests {
    /// Three processes whose middle samples all fall on the 190 ns tick: not exact, an interval of
    /// one tick (10 ns) each side. A counted metric (a source) that agrees stays exact.
    #[test]
    fn timed_processes_that_agree_on_a_tick_get_a_one_tick_interval() {
        let run = |i: usize, source: Option<&str>| -> super::super::RunRecord {
            serde_json::from_value(serde_json::json!({"run_index": i, "scenario": "s", "kind": "measure",
                "repetition": i, "outcome": {"status": "passed"}, "wall_ns": 1, "started_ms": 0.0,
                "metrics": [{"name": "latency_ns", "unit": "ns", "better": "lower", "value": 190.0,
                    "source": source, "iterations": [180.0, 190.0, 190.0, 230.0]}]}))
            .expect("a record parses")
        };
        let timed: Vec<_> = (0..3).map(|i| run(i, None)).collect();
        let s = &super::summarize_runs(&timed)[0].metrics[0].stats;
        assert!(!s.exact, "{s:?}");
        let ci = s.ci.as_ref().expect("an interval");
        assert_eq!((ci.low, ci.high), (180.0, 200.0));
        let counted: Vec<_> = (0..3).map(|i| run(i, Some("valgrind-callgrind 3.19"))).collect();
        assert!(super::summarize_runs(&counted)[0].metrics[0].stats.exact);
    }
}
