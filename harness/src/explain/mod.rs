//! Explain a counted change: the functions whose instructions per call changed between two
//! sides, from the per-function profiles the counting processes keep on their `instructions`
//! metric (`counters/profile.rs`).
//!
//! The list is a true decomposition: self (exclusive) costs, so no instruction is counted in two
//! functions, and a last `other` entry holds every function not listed plus the difference
//! between the row's centres and the profiles' sums; the `delta`s add up to the row's change.
//! Inlined functions count in the function they were inlined into.

mod html;
mod render;

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{CompareEntry, CompareVerdict, ExplainEntry, ExplainStatus, Profile, RunRecord};

pub use html::{HTML_TOP, html_section, html_view};
pub use render::{markdown_lines, markdown_section, terminal_lines};

/// Entries listed before `other`.
pub const MAX_ENTRIES: usize = 50;

/// One side's instructions per call by function: the mean over its processes' profiles.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideProfile {
    /// Function -> mean instructions per call.
    pub functions: BTreeMap<String, f64>,
    /// Processes whose profiles were averaged.
    pub processes: usize,
    /// A process's note about code without symbols, if any said so.
    pub note: Option<String>,
}

impl SideProfile {
    /// The mean of `profiles` (a function missing from one counts 0 there); `None` when empty.
    pub fn mean<'a>(profiles: impl IntoIterator<Item = &'a Profile>) -> Option<SideProfile> {
        let mut side = SideProfile::default();
        for p in profiles {
            side.processes += 1;
            for (f, v) in &p.functions {
                *side.functions.entry(f.clone()).or_insert(0.0) += v;
            }
            if side.note.is_none() {
                side.note = p.note.clone();
            }
        }
        if side.processes == 0 {
            return None;
        }
        let n = side.processes as f64;
        side.functions.values_mut().for_each(|v| *v /= n);
        Some(side)
    }

    /// The profiles of `scenario`'s `instructions` metric among `runs`.
    pub fn of_runs(runs: &[RunRecord], scenario: &str, source: &str) -> Option<SideProfile> {
        SideProfile::mean(
            runs.iter()
                .filter(|r| r.scenario == scenario)
                .flat_map(|r| &r.metrics)
                .filter(|m| m.name == "instructions" && m.source.as_deref() == Some(source))
                .filter_map(|m| m.profile.as_ref()),
        )
    }
}

/// The functions whose instructions per call changed from `baseline` to `candidate`, largest
/// |delta| first, at most [`MAX_ENTRIES`], then `other` so that the deltas sum to
/// `candidate_total - baseline_total` (the row's centres).
pub fn explain(baseline: &SideProfile, candidate: &SideProfile, baseline_total: f64, candidate_total: f64) -> Vec<ExplainEntry> {
    let names: BTreeSet<&String> = baseline.functions.keys().chain(candidate.functions.keys()).collect();
    let mut changed: Vec<ExplainEntry> = names
        .into_iter()
        .filter_map(|f| {
            let (b, c) = (baseline.functions.get(f).copied(), candidate.functions.get(f).copied());
            let delta = c.unwrap_or(0.0) - b.unwrap_or(0.0);
            (delta != 0.0).then(|| ExplainEntry {
                function: f.clone(),
                baseline: b,
                candidate: c,
                delta,
                status: match (b, c) {
                    (None, _) => Some(ExplainStatus::New),
                    (_, None) => Some(ExplainStatus::Gone),
                    _ => None,
                },
            })
        })
        .collect();
    changed.sort_by(|a, b| b.delta.abs().total_cmp(&a.delta.abs()).then_with(|| a.function.cmp(&b.function)));
    changed.truncate(MAX_ENTRIES);
    let listed = |side: fn(&ExplainEntry) -> Option<f64>| changed.iter().filter_map(side).sum::<f64>();
    let (listed_b, listed_c) = (listed(|e| e.baseline), listed(|e| e.candidate));
    let other_delta = (candidate_total - baseline_total) - changed.iter().map(|e| e.delta).sum::<f64>();
    changed.push(ExplainEntry {
        function: "other".to_owned(),
        baseline: Some(baseline_total - listed_b),
        candidate: Some(candidate_total - listed_c),
        delta: other_delta,
        status: Some(ExplainStatus::Other),
    });
    changed
}

/// Whether a row gets an explanation: a counted `instructions` row that changed.
pub fn wants_explain(e: &CompareEntry) -> bool {
    e.metric == "instructions" && e.source.is_some() && matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved)
}

/// Fill `explain` of every row that [`wants_explain`], from the two sides' runs. A row whose
/// sides kept no profile (an older harness, perf counters) stays without one.
pub fn attach(entries: &mut [CompareEntry], baseline: &[RunRecord], candidate: &[RunRecord]) {
    for e in entries.iter_mut().filter(|e| wants_explain(e)) {
        let source = e.source.clone().unwrap_or_default();
        let (Some(pb), Some(pc)) = (
            SideProfile::of_runs(baseline, &e.name, &source),
            SideProfile::of_runs(candidate, &e.name, &source),
        ) else {
            continue;
        };
        let (Some(b), Some(c)) = (&e.baseline, &e.candidate) else {
            continue;
        };
        e.explain = Some(explain(&pb, &pc, b.center, c.center));
        if let Some(n) = pb.note.or(pc.note) {
            let note = e.note.take().map_or(n.clone(), |old| format!("{old}; {n}"));
            e.note = Some(note);
        }
    }
}

#[cfg(test)]
mod tests;
