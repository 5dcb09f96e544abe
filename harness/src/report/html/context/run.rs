//! `RunContext`: the run's sections (overview, summary, measurements, failures) from one
//! results file.

use super::failures::{FailedRun, failed_runs};
use super::overview::{HazardRow, hazards, status_counts, verdict_counts};
use super::summary::{MeasurementCard, SummaryRow, rows_and_cards};
use crate::model::{ResultsFile, RunMeta, Status, Verdict};

/// The `run` section, from `results.json` (and `results.jsonl` for a cut-short run).
#[derive(Debug, Clone)]
pub(crate) struct RunContext {
    pub meta: RunMeta,
    /// True when the run did not finish (summaries recomputed from results.jsonl).
    pub partial: bool,
    pub scenarios: usize,
    pub processes: usize,
    /// Runs by status, every status with a non-zero count, in `Status::ALL` order.
    pub status_counts: Vec<(Status, usize)>,
    /// Scenarios by verdict.
    pub verdict_counts: Vec<(Verdict, usize)>,
    pub hazards: Vec<HazardRow>,
    pub rows: Vec<SummaryRow>,
    pub cards: Vec<MeasurementCard>,
    pub failures: Vec<FailedRun>,
    /// Failed runs beyond [`super::failures::MAX_FAILED_RUNS`], not listed.
    pub failures_omitted: usize,
    /// GPU series that discarded throttled samples.
    pub gpu_notes: Vec<crate::model::ThrottleNote>,
    /// Scenarios whose calls leak (`--allocs`), with `leaked_bytes` per call.
    pub leaks: Vec<(String, String)>,
}

impl RunContext {
    /// Everything the run section shows, from a results file.
    pub(crate) fn build(results: ResultsFile) -> Self {
        let (rows, cards) = rows_and_cards(&results.summaries);
        let (failures, failures_omitted) = failed_runs(&results.runs);
        RunContext {
            partial: results.meta.finished_at.is_empty(),
            scenarios: results.summaries.len(),
            processes: results.runs.len(),
            status_counts: status_counts(&results.runs),
            verdict_counts: verdict_counts(&results.summaries),
            hazards: hazards(&results.runs),
            gpu_notes: crate::model::throttle_notes(&results.summaries),
            leaks: crate::report::leaks(&results)
                .map(|(s, p)| (s.to_owned(), p.display("leaked_bytes")))
                .collect(),
            meta: results.meta,
            rows,
            cards,
            failures,
            failures_omitted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::{record, results};
    use super::*;
    use crate::model::{Outcome, ScenarioKind};

    #[test]
    fn counts_rows_cards_and_failures_follow_the_runs() {
        let mut runs = vec![
            record(0, "ok", ScenarioKind::Check, Outcome::Passed, None),
            record(1, "bad", ScenarioKind::Check, Outcome::Failed { message: "boom".into() }, None),
            record(2, "bad", ScenarioKind::Check, Outcome::TimedOut { after_s: 1.0 }, None),
        ];
        for (i, v) in [100.0, 101.0, 99.0, 100.5, 99.5].into_iter().enumerate() {
            runs.push(record(3 + i, "m", ScenarioKind::Measure, Outcome::Passed, Some(v)));
        }
        runs[1].stdout = "printed before failing".into();
        let ctx = RunContext::build(results(runs));
        assert_eq!(ctx.scenarios, 3);
        assert_eq!(ctx.processes, 8);
        assert_eq!(
            ctx.status_counts,
            vec![(Status::Passed, 6), (Status::Failed, 1), (Status::TimedOut, 1)]
        );
        assert_eq!(ctx.verdict_counts[0], (Verdict::Failed, 1));
        assert_eq!(ctx.rows.len(), 3);
        let bad = ctx.rows.iter().find(|r| r.scenario == "bad").unwrap();
        assert_eq!(bad.detail, "2/2 runs did not pass");
        assert_eq!(ctx.cards.len(), 1);
        assert_eq!(ctx.cards[0].values.iter().map(|v| v.0).collect::<Vec<_>>(), vec![3, 4, 5, 6, 7]);
        assert_eq!(ctx.rows.iter().find(|r| r.scenario == "m").unwrap().card_id.as_deref(), Some("m0"));
        assert_eq!(ctx.failures.len(), 2);
        assert_eq!(ctx.failures[0].message.as_deref(), Some("boom"));
        assert_eq!(ctx.failures[0].stdout, "printed before failing");
        assert_eq!(ctx.failures[1].outcome, "timed out after 1.0 s");
        assert!(!ctx.partial);
    }

    /// A card names the processes its row left out for a slowed machine; a row that kept them
    /// (a slowed majority) says so once, in its unstable reason, not again in a note.
    #[test]
    fn a_card_notes_processes_left_out_for_a_slowed_machine() {
        let mut runs = Vec::new();
        for (row, slowed) in [("minority", 1), ("majority", 4)] {
            for i in 0..6 {
                let mut r = record(runs.len(), row, ScenarioKind::Measure, Outcome::Passed, Some(100.0 + i as f64));
                let p = if i < slowed { 50_000.0 } else { 25_000.0 };
                r.metrics[0].speed_probe_ns = Some([p, p]);
                runs.push(r);
            }
        }
        let ctx = RunContext::build(results(runs));
        let card = |name: &str| ctx.cards.iter().find(|c| c.scenario == name).expect("a card");
        let note = card("minority").slowed.as_deref().unwrap_or("");
        assert!(note.starts_with("1 of 6 processes left out"), "{note}");
        assert_eq!(card("minority").values.len(), 5);
        assert_eq!(card("majority").slowed, None);
        assert!(
            card("majority")
                .stats
                .unstable_reason
                .as_deref()
                .unwrap_or("")
                .contains("4 of 6 processes")
        );
    }
}
