//! `Series`: one scenario's metric across the stored runs, and the [`Change`]s found in it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::store::{StoredRun, StoredValue};
use crate::stats::{ChangePointConfig, Interval, change_points, run_level, summarize};

/// One run's values of one series.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Position of the run in the history (0-based, oldest first).
    pub run: usize,
    /// Per-process values.
    pub values: Vec<f64>,
    /// The run's level ([`run_level`]) on the values' own scale.
    pub level: f64,
    /// 95% interval of the run's centre across its processes, if it has one.
    pub ci: Option<Interval>,
}

/// One scenario's metric across the history.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Scenario name.
    pub scenario: String,
    /// Metric name.
    pub metric: String,
    /// The counter source of its values; `None` for wall time. Two sources are two series.
    pub source: Option<String>,
    /// Unit symbol.
    pub unit: String,
    /// Runs that measured it, oldest first.
    pub points: Vec<Point>,
    /// Whether levels are on a log scale (every value positive).
    pub log_scale: bool,
}

/// A level shift, as written to `changes.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Scenario name.
    pub name: String,
    /// Metric name.
    pub metric: String,
    /// Label of the first run after the change.
    pub label: Option<String>,
    /// Git commit of the first run after the change (with `-dirty` if its tree was).
    pub commit: Option<String>,
    /// Level before the change: geometric mean of the run levels back to the previous change.
    pub before: f64,
    /// Level after it, up to the next change.
    pub after: f64,
    /// `after / before`.
    pub ratio: f64,
    /// Permutation p-value of the split.
    pub p_value: f64,
    /// 1-based position of the first run after the change in the history.
    pub run: usize,
    /// Start time of that run.
    pub started_at: String,
    /// The counter source of the series (`valgrind-callgrind 3.19`); absent for wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For an `instructions` series counted under Callgrind: the functions whose instructions
    /// per call changed from the run before the change to the first run after it (see
    /// `explain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<Vec<crate::model::ExplainEntry>>,
    /// Set with `explain` when some code had no symbols (a stripped binary): which objects, and
    /// that their functions are named by address (`object+0xoffset`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain_note: Option<String>,
    /// An exact allocation series (`--allocs`): the change per call, `+1 per call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_call: Option<String>,
    /// What differs between the environment fingerprints of the run before the change and the
    /// first run after it (`kernel: 6.1 -> 6.8`). Non-empty: the change is labelled "environment
    /// changed", not regressed or improved, and does not fail `history check`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub environment: Vec<String>,
}

impl Change {
    /// A change of `series` from `before` to `after` whose first run after it is `run` (at
    /// position `position` in the history), `previous` the run before it: names, commit, time
    /// and the environment that differs. No p-value, explanation or per-call change yet.
    pub fn between(series: &Series, previous: &StoredRun, run: &StoredRun, position: usize, before: f64, after: f64) -> Change {
        Change {
            name: series.scenario.clone(),
            metric: series.metric.clone(),
            label: run.label.clone(),
            commit: run
                .commit
                .as_ref()
                .map(|c| if run.dirty { format!("{c}-dirty") } else { c.clone() }),
            before,
            after,
            ratio: after / before,
            p_value: 0.0,
            run: position + 1,
            started_at: run.started_at.clone(),
            source: series.source.clone(),
            explain: None,
            explain_note: None,
            environment: crate::fingerprint::differences(&previous.fingerprint, &run.fingerprint),
            per_call: None,
        }
    }

    /// The change coincides with a change of the environment fingerprint.
    pub fn environment_changed(&self) -> bool {
        !self.environment.is_empty()
    }
}

/// Groups stored values into series, each point one run.
pub fn build_series(runs: &[StoredRun], values: &[StoredValue]) -> Vec<Series> {
    let position: BTreeMap<i64, usize> = runs.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
    // (scenario, metric, source) -> (unit, run position -> per-process values)
    type Grouped = BTreeMap<(String, String, Option<String>), (String, BTreeMap<usize, Vec<f64>>)>;
    let mut grouped: Grouped = BTreeMap::new();
    for v in values {
        let Some(&run) = position.get(&v.run_id) else { continue };
        let entry = grouped
            .entry((v.scenario.clone(), v.metric.clone(), v.source.clone()))
            .or_insert_with(|| (v.unit.clone(), BTreeMap::new()));
        entry.1.entry(run).or_default().push(v.value);
    }
    grouped
        .into_iter()
        .map(|((scenario, metric, source), (unit, by_run))| {
            let log_scale = by_run.values().flatten().all(|v| *v > 0.0);
            let points = by_run
                .into_iter()
                .filter_map(|(run, values)| {
                    let level = run_level(&values)?;
                    let ci = summarize(&values, None, log_scale, 0.95).ok().and_then(|s| s.ci);
                    let level = if log_scale && values.iter().all(|v| *v > 0.0) {
                        level.exp()
                    } else {
                        level
                    };
                    Some(Point { run, values, level, ci })
                })
                .collect();
            Series {
                scenario,
                metric,
                source,
                unit,
                points,
                log_scale,
            }
        })
        .collect()
}

/// The change points of `series`, with their levels and the run that follows each.
pub fn find_changes(series: &Series, runs: &[StoredRun], config: &ChangePointConfig) -> Vec<Change> {
    let scale = |v: f64| if series.log_scale { v.ln() } else { v };
    let x: Vec<f64> = series.points.iter().map(|p| scale(p.level)).collect();
    let found = change_points(&x, config);
    let mut bounds: Vec<usize> = vec![0];
    bounds.extend(found.iter().map(|c| c.index));
    bounds.push(x.len());
    let mean_level = |lo: usize, hi: usize| {
        let m = x[lo..hi].iter().sum::<f64>() / (hi - lo) as f64;
        if series.log_scale { m.exp() } else { m }
    };
    found
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let before = mean_level(bounds[k], bounds[k + 1]);
            let after = mean_level(bounds[k + 1], bounds[k + 2]);
            let run = &runs[series.points[c.index].run];
            let previous = &runs[series.points[c.index.saturating_sub(1)].run];
            Change {
                p_value: c.p_value,
                ..Change::between(series, previous, run, series.points[c.index].run, before, after)
            }
        })
        .collect()
}
