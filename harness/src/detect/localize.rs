//! `Localizer`: finds the scenarios that flip another one — polluters, state-setters, the
//! culprits of a value shift — by bisection over the prefix that preceded the flip, confirms each
//! by a two-scenario rerun, and finds cleaners (masking scenarios) the same way.
//!
//! The search keeps a candidate set C known (or, at first, suspected) to hold the culprit and
//! runs a part T of it before the target. Every run is read through the order it actually ran:
//! the members of T seen before the target. If the effect shows, the culprit is among them;
//! if not, none of them is (one culprit acting alone, no cleaner between). An exact-order target
//! runs T exactly, so each run halves C. A libtest binary runs a subset in name order, so T runs
//! entirely before the target when T sorts before it; otherwise a shuffle seed puts a random part
//! of T before the target, which still splits C (0.72 bits a run on average instead of 1).
//! Relative order inside a failing prefix is kept, so a cleaner that ran before the polluter in
//! the original failing run stays before it and cannot mask a bisection step.

use std::collections::{HashMap, HashSet};

mod arrange;
mod cleaners;
mod pairs;

use pairs::pruned_rest;

use super::probe::{Observation, Purpose, SharedProber};
use super::subject::OrderTarget;
use crate::errors::Error;
use crate::model::{Evidence, EvidenceKind};

/// Shuffle seeds tried at most to arrange one libtest probe.
pub const MAX_SEED_TRIES: usize = 16;
/// Seeds whose order is predicted, at most, to choose one libtest probe's.
const PREDICTED_TRIES: usize = 512;
/// Two-scenario runs that must all show the effect before a culprit is reported.
pub const CONFIRM_RUNS: usize = 2;
/// The same for a hinted candidate (a culprit of another scenario, or a peer failing with the
/// same message): the group's evidence backs it, and the target's runs alone have already ruled
/// out flakiness, so one run of its own confirms it. A family of k costs k(k-1) runs, not twice.
pub const CONFIRM_RUNS_HINTED: usize = 1;
/// Flipping runs of one target used as starting points, at most.
const MAX_SOURCES: usize = 4;
/// Culprits sought per target, at most.
const MAX_CULPRITS: usize = 8;
/// Candidates this few are each tried by pair runs (one run rules out an innocent one, two
/// confirm a culprit) rather than bisected: fewer runs than one bisection and its confirmation.
const PAIRS_ALWAYS: usize = 3;
/// Candidates tried by pair runs, at most, where the evidence says most of them are culprits
/// (a family: culprits or peers of other scenarios, or two were found by bisection already).
const MAX_PAIRS: usize = 16;

/// What a culprit does, read from the target's observation.
pub type Effect<'e> = &'e dyn Fn(&Observation) -> bool;

/// The culprits and cleaners found for one target, with the runs that show them.
#[derive(Debug, Clone, Default)]
pub struct Localized {
    /// Culprits, each confirmed by a two-scenario run.
    pub culprits: Vec<String>,
    /// Cleaners, each confirmed by a three-scenario run.
    pub cleaners: Vec<String>,
    /// Why the cleaner search stopped before it could say there are no more (`cleaners` then
    /// lists at least these); `None`: every cleaner seen masking was searched to the end.
    pub cleaners_stopped: Option<String>,
    /// Every localization and confirmation run, as evidence.
    pub evidence: Vec<Evidence>,
    /// Processes spent.
    pub runs: usize,
    /// `--budget` was spent before the search finished.
    pub cut: bool,
}

/// A libtest seed and the order it ran a set of names in.
type SeenOrder = (Option<u64>, Vec<String>);

/// Runs localization probes through a [`SharedProber`] (localizations of several scenarios run
/// side by side, each on its own `Localizer`).
pub struct Localizer<'s, 'p, 'a> {
    prober: &'s SharedProber<'p, 'a>,
    next_seed: u64,
    /// Every observation of every scenario in the processes run since the last
    /// [`Localizer::take_seen`]: later verdicts reuse them.
    seen: Vec<Observation>,
    /// The budget stopped a probe.
    cut: bool,
    /// Processes this localizer ran.
    runs: usize,
    /// libtest: the orders seen per set of names and seed (libtest's permutation depends on
    /// nothing else), so a confirming pair run reuses a seed known to put the culprit first.
    orders: HashMap<Vec<String>, Vec<SeenOrder>>,
    /// Seeds are tried, not predicted, for the search under way.
    unpredicted: bool,
    /// Why the last search gave up without deciding (step limit, no arrangement), if it did.
    gave_up: Option<&'static str>,
    /// The hints of the search under way (`localize_all`'s `known`): confirmed by
    /// [`CONFIRM_RUNS_HINTED`] runs.
    hints: Vec<String>,
}

impl<'s, 'p, 'a> Localizer<'s, 'p, 'a> {
    /// Probes through `prober`; libtest shuffle seeds start from `seed`.
    pub fn new(prober: &'s SharedProber<'p, 'a>, seed: u64) -> Self {
        Localizer {
            prober,
            next_seed: seed,
            seen: Vec::new(),
            cut: false,
            runs: 0,
            orders: HashMap::new(),
            unpredicted: false,
            gave_up: None,
            hints: Vec::new(),
        }
    }

    /// Start the libtest seeds of the next search from `seed` (each scenario's own, so its
    /// evidence does not depend on which thread localized it).
    pub fn reseed(&mut self, seed: u64) {
        self.next_seed = seed;
    }

    /// The target.
    pub fn target(&self) -> &'a dyn OrderTarget {
        self.prober.target()
    }

    /// Whether the budget is spent.
    pub fn spent(&self) -> bool {
        self.prober.spent()
    }

    /// One localization process, its observations kept for reuse; `None` when the budget is
    /// spent (nothing ran).
    pub fn run(&mut self, names: &[String], seed: Option<u64>, kind: EvidenceKind) -> Result<Option<Vec<Observation>>, Error> {
        let Some(obs) = self.prober.run_once(names, seed, kind, Purpose::Localization)? else {
            self.cut = true;
            return Ok(None);
        };
        self.runs += 1;
        self.seen.extend(obs.iter().filter(|o| o.ran()).cloned());
        Ok(Some(obs))
    }

    /// The observations of the processes run since the last call.
    pub fn take_seen(&mut self) -> Vec<Observation> {
        std::mem::take(&mut self.seen)
    }

    /// Find every culprit of `effect` on `target`, starting from its shared observations, then
    /// the cleaners that mask each. `known`: culprits already confirmed for other scenarios; one
    /// that preceded a flip is confirmed by pair runs first, without a bisection.
    pub fn localize_all(&mut self, target: &str, shared: &[&Observation], effect: Effect, known: &[String]) -> Result<Localized, Error> {
        let before = self.runs;
        self.cut = false;
        self.hints = known.to_vec();
        let mut out = Localized::default();
        // Scenarios that preceded the target without the effect: not culprits, unless a cleaner
        // masked them, so they are only pruned on a first try that is checked by a run.
        let innocent: HashSet<&String> = shared
            .iter()
            .filter(|o| o.ran() && !effect(o))
            .flat_map(|o| o.prefix.iter())
            .collect();
        let mut sources: Vec<&Observation> = shared.iter().copied().filter(|o| o.ran() && effect(o)).collect();
        // Flips that no ordering explains (every scenario before them also preceded the target
        // harmlessly) are most likely noise: try the others first, shortest first.
        sources.sort_by_key(|o| (o.prefix.iter().all(|p| innocent.contains(p)), o.prefix.len()));
        // Each flip's prefix as a set: with thousands of known culprits and tests, a scan of the
        // prefix per culprit was quadratic in the binary's size for every victim.
        let before_each: Vec<HashSet<&str>> = sources.iter().map(|o| o.prefix.iter().map(String::as_str).collect()).collect();
        // A culprit of another scenario that preceded a flip: two pair runs instead of a search.
        for k in known {
            // In every flipping run: a culprit of another scenario that merely ran somewhere
            // before this one is not worth two runs.
            let before_flip = !before_each.is_empty() && before_each.iter().all(|b| b.contains(k.as_str()));
            if before_flip
                && !innocent.contains(k)
                && !out.culprits.contains(k)
                && !self.cut
                && let Some(p) = self.find_one(None, target, vec![k.clone()], true, effect, &mut out.evidence)?
            {
                out.culprits.push(p);
            }
        }
        // Every candidate that preceded a flip and never preceded the target harmlessly.
        let mut candidates: Vec<String> = Vec::new();
        let mut seen: HashSet<&String> = HashSet::new();
        for p in sources.iter().flat_map(|o| o.prefix.iter()) {
            if !innocent.contains(p) && !out.culprits.contains(p) && seen.insert(p) {
                candidates.push(p.clone());
            }
        }
        // A family (tests that each set a process-global once, failing alike): several
        // candidates are culprits or peers of other scenarios. Each is a pair run away; the
        // rest are searched as before.
        let likely: Vec<String> = candidates.iter().filter(|c| known.contains(c)).cloned().collect();
        let paired = if candidates.len() <= PAIRS_ALWAYS {
            candidates.clone()
        } else if likely.len() >= 2 && likely.len() <= MAX_PAIRS {
            likely
        } else {
            Vec::new()
        };
        self.pair_each(&paired, target, effect, &mut out)?;
        let paired = !paired.is_empty();
        for (i, src) in sources.iter().take(MAX_SOURCES).enumerate() {
            if (i > 0 || paired) && src.prefix.iter().any(|p| out.culprits.contains(p)) {
                continue; // explained by a culprit already found (the first flip's other candidates are still searched)
            }
            self.culprits_of(src, target, &innocent, effect, &mut out)?;
        }
        self.culprits_together(&sources, target, &innocent, effect, &mut out)?;
        self.cleaners(shared, target, effect, &mut out)?;
        out.runs = self.runs - before;
        out.cut = self.cut;
        self.hints.clear();
        Ok(out)
    }

    /// Culprits in the prefix of one flipping run, one bisection each.
    fn culprits_of(
        &mut self,
        src: &Observation,
        target: &str,
        innocent: &HashSet<&String>,
        effect: Effect,
        out: &mut Localized,
    ) -> Result<(), Error> {
        let mut first = true;
        while out.culprits.len() < MAX_CULPRITS {
            let rest: Vec<String> = src.prefix.iter().filter(|p| !out.culprits.contains(p)).cloned().collect();
            if rest.is_empty() {
                break;
            }
            let pruned: Vec<String> = rest.iter().filter(|p| !innocent.contains(p)).cloned().collect();
            let mut found = None;
            if !pruned.is_empty() && pruned.len() < rest.len() {
                found = self.find_one(None, target, pruned, false, effect, &mut out.evidence)?;
            }
            if found.is_none() {
                found = self.find_one(None, target, rest, first && out.culprits.is_empty(), effect, &mut out.evidence)?;
            }
            first = false;
            match found {
                Some(p) => out.culprits.push(p),
                None => break,
            }
            // Two culprits in one prefix: likely a family, whose rest costs less by pairs.
            let rest: Vec<String> = pruned_rest(src, innocent, &out.culprits);
            if out.culprits.len() >= 2 && !rest.is_empty() && rest.len() <= MAX_PAIRS {
                return self.pair_each(&rest, target, effect, out);
            }
        }
        Ok(())
    }

    /// Culprits that only ever ran together with one already found: any candidate that preceded
    /// a flip and never preceded the target harmlessly.
    fn culprits_together(
        &mut self,
        sources: &[&Observation],
        target: &str,
        innocent: &HashSet<&String>,
        effect: Effect,
        out: &mut Localized,
    ) -> Result<(), Error> {
        while out.culprits.len() < MAX_CULPRITS {
            let mut extra: Vec<String> = Vec::new();
            let mut seen: HashSet<&String> = HashSet::new();
            for src in sources {
                for p in src.prefix.iter() {
                    if !out.culprits.contains(p) && !innocent.contains(p) && seen.insert(p) {
                        extra.push(p.clone());
                    }
                }
            }
            if extra.is_empty() {
                break;
            }
            match self.find_one(None, target, extra, false, effect, &mut out.evidence)? {
                Some(p) => out.culprits.push(p),
                None => break,
            }
        }
        Ok(())
    }

    /// Bisect `c` for one culprit of `effect` on `target` (run after `anchor`, if any), and
    /// confirm it by a run of the anchor, the culprit and the target alone. `known`: `c` is
    /// already known to hold one.
    pub fn find_one(
        &mut self,
        anchor: Option<&str>,
        target: &str,
        c: Vec<String>,
        known: bool,
        effect: Effect,
        evidence: &mut Vec<Evidence>,
    ) -> Result<Option<String>, Error> {
        let found = self.search(anchor, target, c.clone(), known, effect, evidence)?;
        // A libtest probe arranged by prediction keeps the flipping run's relative order only
        // as far as a seed allows: a cleaner can land between culprit and target and hide it.
        // A search that lost a culprit it knew was there is run again with seeds tried.
        if found.is_none() && known && c.len() > 1 && !self.cut && self.prober.shuffles_predicted() && !self.unpredicted {
            self.unpredicted = true;
            self.gave_up = None;
            let again = self.search(anchor, target, c, known, effect, evidence);
            self.unpredicted = false;
            return again;
        }
        Ok(found)
    }

    fn search(
        &mut self,
        anchor: Option<&str>,
        target: &str,
        mut c: Vec<String>,
        mut known: bool,
        effect: Effect,
        evidence: &mut Vec<Evidence>,
    ) -> Result<Option<String>, Error> {
        let bits = (usize::BITS - c.len().leading_zeros()) as usize;
        let budget = if self.target().honours_order() {
            2 * bits + 4
        } else {
            4 * bits + 8
        };
        let mut confirmed = false;
        let mut steps = 0;
        loop {
            if c.is_empty() {
                return Ok(None);
            }
            if known && c.len() == 1 {
                break;
            }
            steps += 1;
            if steps > budget {
                self.gave_up = Some("reached its step limit");
                return Ok(None);
            }
            let t: Vec<String> = if known { c[..c.len().div_ceil(2)].to_vec() } else { c.clone() };
            let p = self.probe(anchor, &t, target, evidence)?;
            if self.cut {
                return Ok(None);
            }
            c.retain(|x| !p.crashed.contains(x));
            let Some(obs) = p.target else { continue };
            if p.between.is_empty() {
                self.gave_up = Some("could not arrange a candidate before the target");
                return Ok(None);
            }
            if effect(&obs) {
                c.retain(|x| p.between.contains(x));
                known = true;
                confirmed = c.len() == 1 && p.between.len() == 1;
                if confirmed && let Some(last) = evidence.last_mut() {
                    last.kind = EvidenceKind::Confirm;
                    last.detail = confirm_detail(anchor, &c[0], target, &last.outcome);
                }
            } else {
                c.retain(|x| !p.between.contains(x));
            }
        }
        let cand = c.remove(0);
        // One more pair run when the search ended on one: a flaky target passes each with its rate.
        let needed = if anchor.is_none() && self.hints.contains(&cand) {
            CONFIRM_RUNS_HINTED
        } else {
            CONFIRM_RUNS
        };
        for _ in 0..needed.saturating_sub(usize::from(confirmed)) {
            confirmed = false;
            let p = self.probe(anchor, std::slice::from_ref(&cand), target, evidence)?;
            if self.cut {
                return Ok(None);
            }
            let ok = p.between == [cand.clone()] && p.target.as_ref().is_some_and(effect);
            if let Some(last) = evidence.last_mut() {
                last.kind = EvidenceKind::Confirm;
                last.detail = if ok {
                    confirm_detail(anchor, &cand, target, &last.outcome)
                } else {
                    format!("{cand} did not confirm as a culprit of {target}")
                };
            }
            if !ok {
                return Ok(None);
            }
        }
        let _ = confirmed;
        Ok(Some(cand))
    }
}

fn confirm_detail(anchor: Option<&str>, culprit: &str, target: &str, outcome: &str) -> String {
    match anchor {
        None => format!("confirmed: {culprit} then {target} alone: {target} {outcome}"),
        Some(a) => format!("confirmed: {a}, {culprit}, {target}: {target} {outcome} ({culprit} masks {a})"),
    }
}
