//! The summary table's rows and the measurement cards: one row per scenario x metric (or per
//! scenario without metrics), one card per scenario x metric with its per-process values.

use crate::model::{Better, ScenarioKind, ScenarioSummary, Unit, Verdict};
use crate::stats::Summary;

/// One row of the summary table: a scenario x metric, or a scenario without metrics.
#[derive(Debug, Clone)]
pub(crate) struct SummaryRow {
    pub scenario: String,
    pub kind: ScenarioKind,
    pub metric: Option<String>,
    pub unit: Option<Unit>,
    pub n: usize,
    pub centre: Option<f64>,
    pub rel_half_width: Option<f64>,
    pub cv: Option<f64>,
    pub exact: bool,
    /// An allocation row's count per call (`3 allocs/call`, `varies 0..1`), shown as its centre.
    pub per_call: Option<String>,
    pub verdict: Verdict,
    /// Failure count or skip reason, for rows without metrics.
    pub detail: String,
    /// Anchor of the measurement card, if there is one.
    pub card_id: Option<String>,
}

/// One scenario x metric with its per-process values, for the plots and the numbers.
#[derive(Debug, Clone)]
pub(crate) struct MeasurementCard {
    pub id: String,
    pub scenario: String,
    pub metric: String,
    pub unit: Unit,
    pub better: Better,
    pub verdict: Verdict,
    pub stats: Summary,
    /// `(run_index, value)` in run order.
    pub values: Vec<(usize, f64)>,
    /// An allocation metric's count per call, the card's headline.
    pub per_call: Option<String>,
    /// Processes left out because they met a slowed machine, in words (`model/slowed.rs`); a row
    /// flagged for it says so in its unstable reason instead.
    pub slowed: Option<String>,
}

/// The summary rows and the cards they link to (`m0`, `m1`, ... in summary order).
pub(super) fn rows_and_cards(summaries: &[ScenarioSummary]) -> (Vec<SummaryRow>, Vec<MeasurementCard>) {
    let mut rows = Vec::new();
    let mut cards = Vec::new();
    for s in summaries {
        if s.metrics.is_empty() {
            rows.push(row_without_metrics(s));
        }
        for m in &s.metrics {
            let id = format!("m{}", cards.len());
            let per_call = m.per_call.map(|p| p.display(&m.metric));
            // A counter's name carries its source: `instructions (valgrind-callgrind 3.19)`.
            let metric = match &m.source {
                Some(source) => format!("{} ({source})", m.metric),
                None => m.metric.clone(),
            };
            rows.push(SummaryRow {
                scenario: s.scenario.clone(),
                kind: s.kind,
                metric: Some(metric.clone()),
                unit: Some(m.unit.clone()),
                n: m.stats.n,
                centre: Some(m.stats.center_value),
                rel_half_width: m.stats.rel_half_width,
                cv: Some(m.stats.cv),
                exact: m.stats.exact,
                per_call: per_call.clone(),
                verdict: s.verdict,
                detail: if s.counts.failures() > 0 {
                    format!("{}/{} runs did not pass", s.counts.failures(), s.counts.total())
                } else {
                    String::new()
                },
                card_id: Some(id.clone()),
            });
            cards.push(MeasurementCard {
                id,
                scenario: s.scenario.clone(),
                metric,
                unit: m.unit.clone(),
                better: m.better,
                verdict: s.verdict,
                stats: m.stats.clone(),
                values: m.values.clone(),
                per_call,
                slowed: m.slowed.as_ref().filter(|s| !s.flags_row()).map(crate::model::Slowed::describe),
            });
        }
    }
    (rows, cards)
}

/// A check, or a measurement that produced no metric: its failure count or skip reason.
fn row_without_metrics(s: &ScenarioSummary) -> SummaryRow {
    let detail = match (&s.skip_reason, s.counts.failures()) {
        (_, f) if f > 0 => format!("{f}/{} runs did not pass", s.counts.total()),
        (Some(reason), _) => reason.clone(),
        _ => String::new(),
    };
    SummaryRow {
        scenario: s.scenario.clone(),
        kind: s.kind,
        metric: None,
        unit: None,
        n: s.counts.total(),
        centre: None,
        rel_half_width: None,
        cv: None,
        exact: false,
        per_call: None,
        verdict: s.verdict,
        detail,
        card_id: None,
    }
}
