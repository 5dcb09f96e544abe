//! Compare and history decide an exact allocation row exactly: counts are integers that do not
//! vary, so any change is real and no interval or ratio applies. A row where any call of either
//! side varied is left to the ordinary statistics (`Statistical`).

use crate::model::{CompareEntry, CompareVerdict, MetricSample, Outcome, PerCall, RunRecord};

/// How an allocation row changed between a baseline and a candidate.
#[derive(Debug, Clone, PartialEq)]
pub enum AllocChange {
    /// Identical exact counts: unchanged, with no interval.
    Unchanged(u64),
    /// More per call (lower is better): regressed by `after - before`.
    Regressed {
        /// Baseline per call.
        before: u64,
        /// Candidate per call.
        after: u64,
    },
    /// Fewer per call.
    Improved {
        /// Baseline per call.
        before: u64,
        /// Candidate per call.
        after: u64,
    },
    /// Some call varied on a side: the ordinary statistics decide.
    Statistical,
}

impl AllocChange {
    /// The row's change as shown: `+1 per call` (never a ratio: 0 -> 1 has none), `-512 per
    /// call`, `unchanged`, or `varies`.
    pub fn display(&self) -> String {
        match self {
            AllocChange::Unchanged(_) => "unchanged".to_owned(),
            AllocChange::Regressed { before, after } => format!("+{} per call", after - before),
            AllocChange::Improved { before, after } => format!("-{} per call", before - after),
            AllocChange::Statistical => "varies".to_owned(),
        }
    }
}

/// The exact per-call value of one side's samples (one per process): every call of every
/// process counted the same integer, else `None`.
pub fn exact_value(samples: &[MetricSample]) -> Option<u64> {
    let mut values = samples
        .iter()
        .flat_map(|s| std::iter::once(s.value).chain(s.iterations.iter().copied()));
    let first = values.next()?;
    (first >= 0.0 && first.fract() == 0.0 && values.all(|v| v == first)).then_some(first as u64)
}

/// Decide the allocation rows of a comparison exactly where both sides' calls were exact (from
/// each side's run records); a row where a call varied keeps the ordinary statistics' verdict,
/// with a note saying so.
pub fn attach(entries: &mut [CompareEntry], baseline: &[RunRecord], candidate: &[RunRecord]) {
    let samples = |runs: &[RunRecord], e: &CompareEntry| -> Vec<MetricSample> {
        runs.iter()
            .filter(|r| r.scenario == e.name && r.outcome == Outcome::Passed)
            .filter_map(|r| r.metric(&e.metric))
            .filter(|m| m.source.as_deref().is_some_and(|s| s.starts_with(LABEL_PREFIX)))
            .cloned()
            .collect()
    };
    for e in entries.iter_mut() {
        let (before, after) = (samples(baseline, e), samples(candidate, e));
        if before.is_empty() || after.is_empty() {
            continue;
        }
        let change = decide(&before, &after);
        let (verdict, ratio) = match change {
            AllocChange::Statistical => {
                e.note = Some("calls vary: decided by the ordinary statistics on each process's median".to_owned());
                continue;
            }
            AllocChange::Unchanged(_) => (CompareVerdict::Unchanged, Some(1.0)),
            AllocChange::Regressed { before, after } => (CompareVerdict::Regressed, (before > 0).then(|| after as f64 / before as f64)),
            AllocChange::Improved { before, after } => (CompareVerdict::Improved, Some(after as f64 / before as f64)),
        };
        let (b, a) = (exact_value(&before).unwrap_or(0), exact_value(&after).unwrap_or(0));
        // An exact count has no noise: no interval, no p-value, no band.
        e.verdict = verdict;
        e.ratio = ratio;
        (e.low, e.high, e.p_value, e.p_adjusted, e.p_mann_whitney) = (None, None, None, None, None);
        (e.noise_band, e.mde, e.runs_needed, e.level) = (None, None, None, None);
        e.per_call = Some(change.display());
        e.note = (b != a).then(|| format!("exact: {b} → {a} per call, in every call of every process"));
    }
}

/// The count per call of an allocation metric's samples (one per process), or `None` for a
/// metric no allocation source made.
pub fn per_call(samples: &[&MetricSample]) -> Option<PerCall> {
    if !samples.first()?.source.as_deref()?.starts_with(LABEL_PREFIX) {
        return None;
    }
    let all = || {
        samples
            .iter()
            .flat_map(|s| std::iter::once(s.value).chain(s.iterations.iter().copied()))
    };
    let (min, max) = (all().fold(f64::INFINITY, f64::min), all().fold(f64::NEG_INFINITY, f64::max));
    Some(PerCall {
        exact: min == max && min.fract() == 0.0,
        min: min.max(0.0) as u64,
        max: max.max(0.0).ceil() as u64,
    })
}

/// What every allocation source's label starts with (`allocs-preload`, `allocs-wrapper`).
pub const LABEL_PREFIX: &str = "allocs-";

/// Decide one allocation metric between `before` and `after` (each side's processes' samples).
pub fn decide(before: &[MetricSample], after: &[MetricSample]) -> AllocChange {
    match (exact_value(before), exact_value(after)) {
        (Some(b), Some(a)) => decide_exact(b, a),
        _ => AllocChange::Statistical,
    }
}

/// Decide between two exact counts per call.
pub fn decide_exact(before: u64, after: u64) -> AllocChange {
    match after.cmp(&before) {
        std::cmp::Ordering::Equal => AllocChange::Unchanged(after),
        std::cmp::Ordering::Greater => AllocChange::Regressed { before, after },
        std::cmp::Ordering::Less => AllocChange::Improved { before, after },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, Unit};

    fn side(per_call: &[f64]) -> Vec<MetricSample> {
        let s = MetricSample {
            name: "allocations".into(),
            unit: Unit::Count,
            better: Better::Lower,
            value: per_call[0],
            iterations: per_call.to_vec(),
            source: Some("allocs-preload".into()),
            profile: None,
            distortion: None,
            speed_probe_ns: None,
        };
        vec![s.clone(), s]
    }

    #[test]
    fn exact_rows_are_decided_exactly() {
        let d = decide(&side(&[1.0, 1.0]), &side(&[2.0, 2.0]));
        assert_eq!(d, AllocChange::Regressed { before: 1, after: 2 });
        assert_eq!(d.display(), "+1 per call");
        let d = decide(&side(&[0.0, 0.0]), &side(&[1.0, 1.0]));
        assert_eq!(d.display(), "+1 per call", "0 -> 1 is no ratio");
        let d = decide(&side(&[3.0, 3.0]), &side(&[3.0, 3.0]));
        assert_eq!((d.clone(), d.display()), (AllocChange::Unchanged(3), "unchanged".to_owned()));
        assert_eq!(decide(&side(&[4.0]), &side(&[1.0])).display(), "-3 per call");
    }

    #[test]
    fn per_call_spans_every_call_of_every_process_and_only_allocation_rows() {
        let exact = side(&[3.0, 3.0]);
        let p = per_call(&exact.iter().collect::<Vec<_>>()).unwrap();
        assert_eq!(
            (p.exact, p.min, p.max, p.display("allocations")),
            (true, 3, 3, "3 allocs/call".to_owned())
        );
        // Equal process values (medians) over calls that differ are not exact.
        let mut varies = side(&[0.0, 0.0]);
        varies[1].iterations = vec![0.0, 1.0, 0.0];
        let p = per_call(&varies.iter().collect::<Vec<_>>()).unwrap();
        assert_eq!(
            (p.exact, p.min, p.max, p.display("alloc_bytes")),
            (false, 0, 1, "varies 0..1".to_owned())
        );
        let mut wall = side(&[5.0]);
        wall[0].source = None;
        assert_eq!(per_call(&[&wall[0]]), None, "wall time has no count per call");
        wall[0].source = Some("perf".into());
        assert_eq!(per_call(&[&wall[0]]), None, "nor do other counters");
    }

    #[test]
    fn a_side_that_varies_goes_to_the_statistics() {
        assert_eq!(decide(&side(&[1.0, 5.0]), &side(&[1.0, 1.0])), AllocChange::Statistical);
        assert_eq!(decide(&[], &side(&[1.0])), AllocChange::Statistical);
        let mut two = side(&[2.0, 2.0]);
        two[1].value = 3.0;
        two[1].iterations = vec![3.0, 3.0];
        assert_eq!(exact_value(&two), None, "processes that disagree are not exact");
    }
}
