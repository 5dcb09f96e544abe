//! Runs alone of victim and brittle candidates after localization, as many as their evidence
//! needs ([`settle::after_localization`]): a candidate that flipped in many shared and pair runs
//! needs few to rule out flakiness, one seen flipping once needs [`CANDIDATE_ISOLATED`]
//! (`super::super::classify`). A candidate that then shows the other outcome alone is flaky after
//! all and loses its culprits; one localization found flaky gets runs for its failure rate.

use std::collections::BTreeMap;

use super::super::classify::{Initial, failure_rate};
use super::super::pipeline::{GroupRuns, classify};
use super::super::probe::Prober;
use super::super::settle::{self, confirm_bound, extra_isolated, flaky_top_up, undecided};
use super::{Localized, entry_of, flaky_rate_evidence, isolated_evidence, unknown};
use crate::errors::Error;
use crate::model::{DetectEntry, Evidence, EvidenceKind, OrderVerdict};

/// Run the candidates' runs alone that localization's evidence leaves needed, and update their
/// entries (`candidates`: indices into `entries`).
pub(super) fn after_localization(
    prober: &mut Prober<'_>,
    runs: &mut GroupRuns,
    entries: &mut [DetectEntry],
    candidates: &[usize],
    observes_env: bool,
) -> Result<(), Error> {
    let before: BTreeMap<String, &DetectEntry> = candidates.iter().map(|&i| (entries[i].name.clone(), &entries[i])).collect();
    let want = |runs: &GroupRuns, name: &str| -> usize {
        let Some(e) = before.get(name) else { return 0 };
        let now_flaky = classify(&runs.iso[name], &runs.shared[name]) == Initial::Flaky;
        match e.verdict {
            OrderVerdict::Victim | OrderVerdict::Brittle if !now_flaky => settle::after_localization(runs, name, culprits(e), &e.cleaners),
            OrderVerdict::Victim | OrderVerdict::Brittle | OrderVerdict::Flaky => flaky_top_up(runs, name),
            _ => 0,
        }
    };
    let cut = extra_isolated(prober, runs, &want)?;
    drop(before);
    for &i in candidates {
        let name = entries[i].name.clone();
        let (iso, shared) = (&runs.iso[&name], &runs.shared[&name]);
        let verdict = entries[i].verdict;
        if cut.contains(&name) {
            entries[i] = unknown(runs, &name, undecided(runs, &name, &cut));
        } else if matches!(verdict, OrderVerdict::Victim | OrderVerdict::Brittle) {
            if classify(iso, shared) == Initial::Flaky {
                let mut entry = entry_of(runs, &name, OrderVerdict::Flaky, Localized::default(), None, observes_env);
                entry.evidence.push(note(format!(
                    "localization called it {}, but a later run alone showed the other outcome: flaky, not order-dependent",
                    verdict.as_str()
                )));
                entries[i] = entry;
            } else {
                refresh_alone(&mut entries[i], runs);
                let e = &entries[i];
                let alone = runs.iso[&name].iter().filter(|o| o.ran()).count();
                let first = settle::first_in_process(runs, &name);
                let runs_alone = if first > 0 {
                    format!("{alone} runs alone and {first} first in a process")
                } else {
                    format!("{alone} runs alone")
                };
                let why = match confirm_bound(runs, &name, culprits(e), &e.cleaners, alone + first) {
                    Some(b) => format!(
                        "{runs_alone}, and its culprits explain every run of it: a scenario failing at one rate whatever the order shows this with probability at most {:.4}%",
                        100.0 * b
                    ),
                    None => format!(
                        "{alone} runs alone: its culprits do not explain every run of it (or it has cleaners), so only runs alone tell it from a flaky scenario"
                    ),
                };
                entries[i].evidence.push(note(why));
            }
        } else if verdict == OrderVerdict::Flaky {
            refresh_alone(&mut entries[i], runs);
        }
    }
    Ok(())
}

/// Replace an entry's lines about its runs alone (and a flaky one's rate) by the current ones.
fn refresh_alone(entry: &mut DetectEntry, runs: &GroupRuns) {
    let name = entry.name.clone();
    let (iso, shared) = (&runs.iso[&name], &runs.shared[&name]);
    entry
        .evidence
        .retain(|e| !(e.kind == EvidenceKind::Isolated && e.order.len() == 1 && e.order[0] == name));
    let mut fresh = isolated_evidence(&name, iso);
    if entry.verdict == OrderVerdict::Flaky {
        fresh.push(flaky_rate_evidence(&name, iso, shared));
        let all: Vec<_> = iso.iter().chain(shared.iter()).collect();
        entry.failure_rate = Some(failure_rate(&all));
    }
    entry.evidence.splice(0..0, fresh);
}

fn note(detail: String) -> Evidence {
    Evidence {
        kind: EvidenceKind::Localize,
        order: vec![],
        order_skipped: 0,
        seed: None,
        outcome: String::new(),
        detail,
        message: None,
    }
}

/// The culprits localization listed: polluters of a victim, state setters of a brittle one.
fn culprits(e: &DetectEntry) -> &[String] {
    if e.verdict == OrderVerdict::Brittle {
        &e.state_setters
    } else {
        &e.polluters
    }
}
