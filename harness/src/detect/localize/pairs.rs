//! Pair runs: each candidate alone before the target, where that costs less than bisection
//! (few candidates, or a family whose members are mostly culprits).

use std::collections::HashSet;

use super::super::probe::Observation;
use super::{Effect, Localized, Localizer, MAX_CULPRITS};
use crate::errors::Error;

impl Localizer<'_, '_, '_> {
    /// Try each of `candidates` alone before `target`: a culprit is confirmed by
    /// [`CONFIRM_RUNS`](super::CONFIRM_RUNS) pair runs (one for a hint), an innocent one costs
    /// one run.
    pub(super) fn pair_each(&mut self, candidates: &[String], target: &str, effect: Effect, out: &mut Localized) -> Result<(), Error> {
        for c in candidates {
            if out.culprits.len() >= MAX_CULPRITS || self.cut {
                break;
            }
            if out.culprits.contains(c) {
                continue;
            }
            if let Some(p) = self.find_one(None, target, vec![c.clone()], true, effect, &mut out.evidence)? {
                out.culprits.push(p);
            }
        }
        Ok(())
    }
}

/// The members of `src`'s prefix not yet culprits and not seen harmless before the target.
pub(super) fn pruned_rest(src: &Observation, innocent: &HashSet<&String>, culprits: &[String]) -> Vec<String> {
    src.prefix
        .iter()
        .filter(|p| !innocent.contains(p) && !culprits.contains(p))
        .cloned()
        .collect()
}
