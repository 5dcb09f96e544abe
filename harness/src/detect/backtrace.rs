//! One final run per finding with the user's `RUST_BACKTRACE` ([`final_runs`]): the screening
//! runs go without (a backtrace on every panic makes them several times slower), but a person
//! who asked for backtraces gets one, in `detect.json`'s `backtrace`.

use super::probe::{Prober, Purpose, SharedProber};
use super::reproduce::finding_order;
use crate::errors::Error;
use crate::model::{DetectEntry, EvidenceKind};

/// Findings given a backtrace run, at most, per group of scenarios: each symbolizes a backtrace
/// one after another (0.1-0.6 s in a debug test binary), so 5 000 victims would add minutes. The
/// rest keep their reproduce line, which carries the user's setting.
pub(super) const MAX_BACKTRACES: usize = 20;

/// Run each finding's reproduce order once with the user's backtrace setting and keep the
/// scenario's failure message; nothing when the user asked for none or the budget is spent.
/// Returns the findings left without one past [`MAX_BACKTRACES`].
pub(super) fn final_runs(prober: &mut Prober<'_>, entries: &mut [DetectEntry]) -> Result<usize, Error> {
    if prober.backtrace.is_empty() {
        return Ok(0);
    }
    let shared = SharedProber::new(prober);
    let mut findings = entries.iter_mut().filter_map(|e| finding_order(e).map(|order| (e, order)));
    for (e, (names, seed)) in findings.by_ref().take(MAX_BACKTRACES) {
        let Some(obs) = shared.run_once(&names, seed, EvidenceKind::Confirm, Purpose::Backtrace)? else {
            return Ok(0); // the budget is spent
        };
        e.backtrace = obs.iter().find(|o| o.name == e.name && o.ran()).and_then(|o| o.message());
    }
    Ok(findings.count())
}
