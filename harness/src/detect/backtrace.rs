//! One final run per finding with the user's `RUST_BACKTRACE` ([`final_runs`]): the screening
//! runs go without (a backtrace on every panic makes them several times slower), but a person
//! who asked for backtraces gets one, in `detect.json`'s `backtrace`.

use super::probe::{Prober, Purpose, SharedProber};
use super::reproduce::finding_order;
use crate::errors::Error;
use crate::model::{DetectEntry, EvidenceKind};

/// Run each finding's reproduce order once with the user's backtrace setting and keep the
/// scenario's failure message; nothing when the user asked for none or the budget is spent.
pub(super) fn final_runs(prober: &mut Prober<'_>, entries: &mut [DetectEntry]) -> Result<(), Error> {
    if prober.backtrace.is_empty() {
        return Ok(());
    }
    let shared = SharedProber::new(prober);
    for e in entries.iter_mut() {
        let Some((names, seed)) = finding_order(e) else { continue };
        let Some(obs) = shared.run_once(&names, seed, EvidenceKind::Confirm, Purpose::Backtrace)? else {
            break; // the budget is spent
        };
        e.backtrace = obs.iter().find(|o| o.name == e.name && o.ran()).and_then(|o| o.message());
    }
    Ok(())
}
