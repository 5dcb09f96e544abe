//! History decides exact allocation series exactly (`run --allocs --history`): where every
//! process of every run stored the same integer for its run, each step between consecutive runs
//! is a change, shown `+1 per call` (0 -> 1 has no ratio), with no test and no noise. A series
//! whose processes disagree goes to the ordinary change-point search.
//!
//! The store keeps each process's median per call, not every call: a routine whose calls vary
//! but whose medians agree in every process is judged on its medians here.

use super::series::{Change, Series};
use super::store::StoredRun;
use crate::allocs::decide::LABEL_PREFIX;
use crate::allocs::{AllocChange, decide::decide_exact};

/// The exact changes of `series`, or `None` when it is no allocation series or not exact.
pub fn exact_changes(series: &Series, runs: &[StoredRun]) -> Option<Vec<Change>> {
    if !series.source.as_deref()?.starts_with(LABEL_PREFIX) {
        return None;
    }
    let levels: Vec<u64> = series
        .points
        .iter()
        .map(|p| {
            let first = *p.values.first()?;
            (first >= 0.0 && first.fract() == 0.0 && p.values.iter().all(|v| *v == first)).then_some(first as u64)
        })
        .collect::<Option<_>>()?;
    let mut changes = Vec::new();
    for (k, pair) in levels.windows(2).enumerate() {
        let change = decide_exact(pair[0], pair[1]);
        if matches!(change, AllocChange::Unchanged(_)) {
            continue;
        }
        let point = &series.points[k + 1];
        let run = &runs[point.run];
        let previous = &runs[series.points[k].run];
        let (before, after) = (pair[0] as f64, pair[1] as f64);
        // 0 -> 1 has no ratio: infinite here (null in changes.json), `+1 per call` shown.
        changes.push(Change {
            per_call: Some(change.display()),
            ..Change::between(series, previous, run, point.run, before, after)
        });
    }
    Some(changes)
}
