//! The interleaved design: a seeded schedule of random A/B pairs ([`schedule`]) and its execution
//! through two [`Target`]s, one process per run, never two at once ([`execute`]).
//!
//! Each round visits every scenario in a fresh random order and runs one baseline and one
//! candidate process back to back, which side first decided by a coin: drift (thermal state,
//! a background job, frequency scaling) then hits both sides of a pair alike and cancels in the
//! per-pair ratio (Abedi & Brecht, ICPE 2017; STATISTICS.md item 7).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::errors::Error;
use crate::execute::{Target, TargetRequest};
use crate::model::Listed;
use crate::model::{Outcome, RunRecord};

/// Which build a run belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Side {
    Baseline,
    Candidate,
}

/// One process in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    /// Round (the pair index of this scenario).
    pub round: usize,
    /// Index into the selected scenarios.
    pub scenario: usize,
    pub side: Side,
}

/// `rounds` pairs of every one of `scenarios`, as adjacent slots, in seeded random order.
pub(crate) fn schedule(scenarios: usize, rounds: usize, seed: u64) -> Vec<Slot> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut slots = Vec::with_capacity(2 * scenarios * rounds);
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..scenarios).collect();
        rand::seq::SliceRandom::shuffle(order.as_mut_slice(), &mut rng);
        for scenario in order {
            let first = if rng.random::<bool>() { Side::Baseline } else { Side::Candidate };
            let second = if first == Side::Baseline { Side::Candidate } else { Side::Baseline };
            slots.push(Slot {
                round,
                scenario,
                side: first,
            });
            slots.push(Slot {
                round,
                scenario,
                side: second,
            });
        }
    }
    slots
}

/// One side to run: a target and the env its processes get on top of the scenario's own.
pub(crate) struct SideTarget<'a> {
    pub target: &'a dyn Target,
    pub env: BTreeMap<String, String>,
}

/// How each process runs.
#[derive(Debug, Clone)]
pub(crate) struct ProcessConfig {
    pub iterations: usize,
    pub warmup: usize,
    pub timeout: Option<Duration>,
    pub scratch: std::path::PathBuf,
}

/// Every run of one scenario, by side, in round order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScenarioRuns {
    pub baseline: Vec<RunRecord>,
    pub candidate: Vec<RunRecord>,
}

/// Run `slots` one process at a time (measurements never overlap), calling `progress` after
/// each. Returns the runs of each selected scenario, by name.
pub(crate) fn execute(
    baseline: &SideTarget<'_>,
    candidate: &SideTarget<'_>,
    selected: &[Listed],
    slots: &[Slot],
    config: &ProcessConfig,
    mut progress: impl FnMut(usize, &Slot, &RunRecord),
) -> Result<BTreeMap<String, ScenarioRuns>, Error> {
    let start = Instant::now();
    let mut runs: BTreeMap<String, ScenarioRuns> = selected.iter().map(|l| (l.name.clone(), ScenarioRuns::default())).collect();
    for (index, slot) in slots.iter().enumerate() {
        let listed = &selected[slot.scenario];
        let side = match slot.side {
            Side::Baseline => baseline,
            Side::Candidate => candidate,
        };
        let mut env = listed.env.clone();
        env.extend(side.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let request = TargetRequest {
            names: vec![listed.name.clone()],
            env: env.clone(),
            iterations: config.iterations,
            warmup: config.warmup,
            timeout: listed.timeout.or(config.timeout),
            scratch: config.scratch.clone(),
            id: format!("cmp-{index}"),
        };
        let started_ms = start.elapsed().as_secs_f64() * 1e3;
        let result = side.target.run(&request).map_err(|e| Error::Io {
            what: format!("running {} of {}", listed.name, side.target.describe()),
            source: e,
        })?;
        let first = result.results.into_iter().next();
        let (outcome, metrics, env_changes) = match first {
            Some(r) => (r.outcome, r.metrics, r.env_changes),
            None => (Outcome::NotRun, Vec::new(), Vec::new()),
        };
        let record = RunRecord {
            run_index: index,
            scenario: listed.name.clone(),
            kind: listed.kind,
            env,
            repetition: slot.round,
            outcome,
            metrics,
            wall_ns: result.process.wall.as_nanos() as u64,
            started_ms,
            env_changes,
            process: result.process.facts(),
            stdout: result.process.stdout,
            stderr: result.process.stderr,
        };
        progress(index, slot, &record);
        let entry = runs.entry(listed.name.clone()).or_default();
        match slot.side {
            Side::Baseline => entry.baseline.push(record),
            Side::Candidate => entry.candidate.push(record),
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_gets_adjacent_pairs_in_both_orders_reproducibly() {
        let s = schedule(5, 8, 42);
        assert_eq!(s.len(), 80);
        assert_eq!(s, schedule(5, 8, 42));
        assert_ne!(s, schedule(5, 8, 43));
        let mut firsts = [0usize; 2];
        for pair in s.chunks(2) {
            assert_eq!((pair[0].scenario, pair[0].round), (pair[1].scenario, pair[1].round));
            assert_ne!(pair[0].side, pair[1].side);
            firsts[usize::from(pair[0].side == Side::Candidate)] += 1;
        }
        assert!(firsts[0] > 5 && firsts[1] > 5, "{firsts:?}");
        for sc in 0..5 {
            let rounds: Vec<usize> = s
                .iter()
                .filter(|x| x.scenario == sc && x.side == Side::Baseline)
                .map(|x| x.round)
                .collect();
            assert_eq!(rounds, (0..8).collect::<Vec<_>>());
        }
        // The order of scenarios within rounds differs between rounds.
        let order = |r: usize| s.iter().filter(|x| x.round == r).map(|x| x.scenario).collect::<Vec<_>>();
        assert!((1..8).any(|r| order(r) != order(0)));
    }
}
