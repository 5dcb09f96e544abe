//! The overview's data: runs by status, scenarios by verdict, and the hazards (process-wide
//! state a run changed), merged across runs.

use std::collections::BTreeMap;

use crate::model::{RunRecord, ScenarioSummary, Status, Verdict};

/// An environment or cwd change one run made (a hazard when scenarios share a process).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HazardRow {
    pub scenario: String,
    pub name: String,
    pub before: Option<String>,
    pub after: Option<String>,
    /// How many runs made this same change.
    pub runs: usize,
}

/// Runs by status, every status with a non-zero count, in `Status::ALL` order.
pub(super) fn status_counts(runs: &[RunRecord]) -> Vec<(Status, usize)> {
    let mut counts: BTreeMap<Status, usize> = BTreeMap::new();
    for r in runs {
        *counts.entry(r.outcome.status()).or_default() += 1;
    }
    Status::ALL.iter().filter_map(|s| counts.get(s).map(|&c| (*s, c))).collect()
}

/// Scenarios by verdict, problems first.
pub(super) fn verdict_counts(summaries: &[ScenarioSummary]) -> Vec<(Verdict, usize)> {
    let mut counts: Vec<(Verdict, usize)> = Vec::new();
    for s in summaries {
        match counts.iter_mut().find(|(v, _)| *v == s.verdict) {
            Some((_, c)) => *c += 1,
            None => counts.push((s.verdict, 1)),
        }
    }
    counts.sort_by_key(|(v, _)| verdict_rank(*v));
    counts
}

/// Every distinct change, with how many runs made it.
pub(super) fn hazards(runs: &[RunRecord]) -> Vec<HazardRow> {
    let mut hazards: Vec<HazardRow> = Vec::new();
    for r in runs {
        for c in &r.env_changes {
            match hazards
                .iter_mut()
                .find(|h| h.scenario == r.scenario && h.name == c.name && h.before == c.before && h.after == c.after)
            {
                Some(h) => h.runs += 1,
                None => hazards.push(HazardRow {
                    scenario: r.scenario.clone(),
                    name: c.name.clone(),
                    before: c.before.clone(),
                    after: c.after.clone(),
                    runs: 1,
                }),
            }
        }
    }
    hazards
}

/// Problems first in the overview.
pub(crate) fn verdict_rank(v: Verdict) -> u8 {
    match v {
        Verdict::Failed => 0,
        Verdict::Flaky => 1,
        Verdict::Unstable => 2,
        Verdict::Passed => 3,
        Verdict::Measured => 4,
        Verdict::Skipped => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::record;
    use super::*;
    use crate::model::{EnvChange, Outcome, ScenarioKind};

    #[test]
    fn identical_env_changes_are_merged_with_a_count() {
        let mut runs = vec![
            record(0, "setter", ScenarioKind::Check, Outcome::Passed, None),
            record(1, "setter", ScenarioKind::Check, Outcome::Passed, None),
        ];
        let change = EnvChange {
            name: "MODE".into(),
            before: None,
            after: Some("fast".into()),
        };
        runs[0].env_changes = vec![change.clone()];
        runs[1].env_changes = vec![change];
        let hazards = hazards(&runs);
        assert_eq!(hazards.len(), 1);
        assert_eq!(hazards[0].runs, 2);
        assert_eq!(hazards[0].after.as_deref(), Some("fast"));
    }
}
