//! Cleaners: for each culprit, the scenarios that, run between it and the target, mask its
//! effect, searched until the rest no longer masks or the search stops (and says why).

use super::super::probe::Observation;
use super::{Effect, Localized, Localizer, MAX_CULPRITS};
use crate::errors::Error;

impl Localizer<'_, '_, '_> {
    /// For each culprit, runs where it preceded the target and yet the effect did not show: a
    /// cleaner ran between.
    pub(super) fn cleaners(&mut self, shared: &[&Observation], target: &str, effect: Effect, out: &mut Localized) -> Result<(), Error> {
        let masked = |o: &Observation| !effect(o);
        for p in out.culprits.clone() {
            let between = shared
                .iter()
                .filter(|o| o.ran() && !effect(o))
                .filter_map(|o| o.prefix.iter().position(|x| *x == p).map(|at| o.prefix[at + 1..].to_vec()))
                .filter(|b| !b.is_empty());
            // The shortest masking segment first (its order kept), then what other masking
            // runs add: each cleaner masks in some run.
            let mut segments: Vec<Vec<String>> = between.collect();
            segments.sort_by_key(Vec::len);
            let union = segments.iter().flatten().fold(Vec::new(), |mut u: Vec<String>, x| {
                if !u.contains(x) {
                    u.push(x.clone());
                }
                u
            });
            if !union.is_empty() {
                let b = union;
                // Every cleaner, not only the first: search again without those found until the
                // rest no longer masks (one run) or the cap is reached.
                let mut b: Vec<String> = b.into_iter().filter(|x| !out.culprits.contains(x)).collect();
                let mut found = 0;
                let stopped = loop {
                    if found == MAX_CULPRITS {
                        break (!b.is_empty()).then(|| format!("the search stops at {MAX_CULPRITS} cleaners of {p}"));
                    }
                    self.gave_up = None;
                    let Some(c) = self.find_one(Some(&p), target, b.clone(), false, &masked, &mut out.evidence)? else {
                        break if self.cut {
                            Some(format!("--budget was spent while searching the cleaners of {p}"))
                        } else {
                            self.gave_up.map(|why| format!("the search for cleaners of {p} {why}"))
                        };
                    };
                    found += 1;
                    b.retain(|x| *x != c);
                    if !out.cleaners.contains(&c) {
                        out.cleaners.push(c);
                    }
                };
                if let Some(why) = stopped {
                    out.cleaners_stopped.get_or_insert(why);
                }
            }
        }
        Ok(())
    }
}
