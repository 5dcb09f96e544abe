//! `Measurer`: the real source of both searches. Wall time: compare's [`Interleaver`] runs a
//! commit in seeded A/B pairs against each end, alternating the two comparisons pair by pair, and
//! compare's `from_pairs` keeps the complete pairs' per-process values (the median of each
//! process's iterations). Counters: a few processes of the commit alone. Every process goes
//! through the shared executor and reaches the reporters (results.jsonl) as it finishes.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::builds::{Builds, Ready};
use super::exact::CounterSource;
use super::noisy::{AgainstEnds, Measured, Pairs, WallSource};
use crate::compare::{Interleaver, ProcessConfig, ScenarioRuns, SideTarget, from_pairs, schedule};
use crate::errors::Error;
use crate::events::Reporter;
use crate::execute::{ExecConfig, Executor, JobScenario, ProcessJob, SuiteBinary, Target};
use crate::explain::{SideProfile, explain};
use crate::model::{ExplainEntry, Outcome, Profile, RunRecord, Unit};

/// Runs the processes of a search.
pub(crate) struct Measurer<'a> {
    pub builds: Builds,
    pub metric: String,
    pub process: ProcessConfig,
    pub events: &'a mut dyn Reporter,
    /// The next run index (results.jsonl never repeats one).
    pub next_index: usize,
    /// Processes run so far.
    pub processes: usize,
    /// The metric's unit, once a process reported it.
    pub unit: Option<Unit>,
    /// Counted commits (by index): their values and their processes' per-function profiles.
    counted: BTreeMap<usize, (Vec<f64>, Vec<Profile>)>,
    /// The profiles of the last [`Measurer::alone`].
    last_profiles: Vec<Profile>,
    rng: ChaCha8Rng,
}

fn side(t: &SuiteBinary) -> SideTarget<'_> {
    SideTarget {
        target: t,
        env: BTreeMap::new(),
    }
}

impl<'a> Measurer<'a> {
    /// A measurer over `builds`; `process.seed` seeds every schedule.
    pub fn new(builds: Builds, metric: &str, process: ProcessConfig, events: &'a mut dyn Reporter) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(process.seed);
        Measurer {
            builds,
            metric: metric.to_owned(),
            process,
            events,
            next_index: 0,
            processes: 0,
            unit: None,
            counted: BTreeMap::new(),
            last_profiles: Vec::new(),
            rng,
        }
    }

    fn ready(&mut self, c: usize) -> Result<Ready, String> {
        self.builds.get(c).cloned().map_err(str::to_owned)
    }

    fn end(&mut self, c: usize) -> Result<Ready, Error> {
        self.ready(c).map_err(|why| Error::InvalidFlag {
            flag: if c == 0 { "--good" } else { "--bad" },
            value: String::new(),
            reason: why,
        })
    }

    /// Interleaved pairs of the two (a, b) comparisons, `runs` each, alternating pair by pair
    /// in a seeded random order. Returns each comparison's complete pairs, or why too few passed.
    fn pairs(&mut self, comparisons: &[(&Ready, &Ready)], runs: usize) -> Result<Vec<Result<Pairs, String>>, Error> {
        let targets: Vec<(SuiteBinary, SuiteBinary)> = comparisons.iter().map(|(a, b)| (a.target(), b.target())).collect();
        let selected = [comparisons[0].0.listed.clone()];
        let mut config = self.process.clone();
        config.seed = self.rng.random();
        let first = Interleaver::new(side(&targets[0].0), side(&targets[0].1), &selected, &config).starting_at(self.next_index);
        let mut all: Vec<Interleaver<'_>> = targets[1..].iter().map(|(a, b)| first.sibling(side(a), side(b))).collect();
        all.insert(0, first);
        let slots: Vec<_> = (0..all.len()).map(|_| schedule(1, runs, self.rng.random())).collect();
        for round in 0..runs {
            let mut order: Vec<usize> = (0..all.len()).collect();
            rand::seq::SliceRandom::shuffle(order.as_mut_slice(), &mut self.rng);
            for i in order {
                all[i].run_batch(&slots[i][2 * round..2 * round + 2], self.events)?;
            }
        }
        self.processes += 2 * runs * all.len();
        let mut out = Vec::new();
        for il in all {
            let runs = il.into_runs();
            let last = runs
                .values()
                .flat_map(|r| r.baseline.iter().chain(&r.candidate))
                .map(|r| r.run_index)
                .max();
            self.next_index = self.next_index.max(last.map_or(0, |i| i + 1));
            out.push(self.complete_pairs(&runs));
        }
        Ok(out)
    }

    fn complete_pairs(&mut self, runs: &BTreeMap<String, ScenarioRuns>) -> Result<Pairs, String> {
        let inputs = from_pairs(runs, false);
        match inputs.iter().find(|m| m.metric == self.metric) {
            Some(m) if m.baseline.len() >= 2 => {
                self.unit = Some(m.unit.clone());
                Ok(Pairs {
                    a: m.baseline.clone(),
                    b: m.candidate.clone(),
                })
            }
            found => Err(
                match found
                    .and_then(|m| m.note.clone())
                    .or_else(|| inputs.iter().find_map(|m| m.note.clone()))
                {
                    Some(note) => format!("too few complete pairs: {note}"),
                    None => {
                        let seen: Vec<&str> = inputs.iter().map(|m| m.metric.as_str()).collect();
                        format!("no metric {:?} (reported: {})", self.metric, seen.join(", "))
                    }
                },
            ),
        }
    }

    /// `processes` counting processes of commit `c` (under valgrind side by side, one per core:
    /// their counts do not depend on what runs beside them): their values of the metric.
    fn alone(&mut self, c: &Ready, processes: usize) -> Result<Result<Vec<f64>, String>, Error> {
        if let Some(why) = &c.listed.uncounted {
            return Ok(Err(format!("the scenario is not counted: {why}")));
        }
        let target = c.target();
        let mut exec = Executor::new(ExecConfig {
            iterations: self.process.iterations,
            warmup: self.process.warmup,
            scratch: self.process.scratch.clone(),
            seed: self.rng.random(),
            counters: self.process.counters.clone(),
            gpu: self.process.gpu,
        })
        .starting_at(self.next_index);
        let job = |repetition| ProcessJob {
            scenarios: vec![JobScenario {
                name: c.listed.name.clone(),
                kind: c.listed.kind,
                repetition,
            }],
            env: c.listed.env.clone(),
            timeout: c.listed.timeout.or(self.process.timeout),
            counted: true,
            allocs: false,
        };
        let jobs: Vec<(ProcessJob, &dyn Target)> = (0..processes).map(|r| (job(r), &target as &dyn Target)).collect();
        let side_by_side = self.process.counters.as_ref().is_some_and(|c| c.source.separate_processes());
        let threads = if side_by_side {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            1
        };
        let records: Vec<RunRecord> = exec.run_parallel(jobs, threads, self.events)?.into_iter().flatten().collect();
        self.processes += processes;
        self.next_index = records.iter().map(|r| r.run_index + 1).max().unwrap_or(self.next_index);
        self.last_profiles = records
            .iter()
            .filter(|r| r.outcome == Outcome::Passed)
            .filter_map(|r| r.metric(&self.metric)?.profile.clone())
            .collect();
        let values: Vec<f64> = records
            .iter()
            .filter(|r| r.outcome == Outcome::Passed)
            .filter_map(|r| r.metric(&self.metric))
            .map(|m| {
                self.unit = Some(m.unit.clone());
                m.value
            })
            .collect();
        if values.is_empty() {
            let why = records.iter().find(|r| r.outcome != Outcome::Passed).map_or_else(
                || format!("no process reported the metric {:?}", self.metric),
                |r| format!("the scenario did not pass ({})", r.outcome.short()),
            );
            return Ok(Err(why));
        }
        Ok(Ok(values))
    }
}

impl Measurer<'_> {
    /// The functions behind the step from the last counted commit before `bad` to `bad`, when
    /// both kept profiles (counted under Callgrind), and the note of a side with code that had no
    /// symbols (named by address).
    pub fn explain(&self, bad: usize) -> Option<(Vec<ExplainEntry>, Option<String>)> {
        let (bv, bp) = self.counted.get(&bad)?;
        let (gv, gp) = self.counted.range(..bad).next_back()?.1;
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let (g, b) = (SideProfile::mean(gp)?, SideProfile::mean(bp)?);
        let x = explain(&g, &b, mean(gv), mean(bv));
        Some((x, g.note.or(b.note)))
    }
}

impl WallSource for Measurer<'_> {
    fn ends(&mut self, runs: usize) -> Result<Pairs, Error> {
        let (good, bad) = (self.end(0)?, self.end(self.builds.last())?);
        let mut got = self.pairs(&[(&good, &bad)], runs)?;
        got.remove(0).map_err(|why| Error::InvalidFlag {
            flag: "--scenario",
            value: good.listed.name.clone(),
            reason: format!("good against bad: {why}"),
        })
    }

    fn against_ends(&mut self, c: usize, runs: usize) -> Result<Measured<AgainstEnds>, Error> {
        let (good, bad) = (self.end(0)?, self.end(self.builds.last())?);
        let mid = match self.ready(c) {
            Ok(r) => r,
            Err(why) => return Ok(Measured::Skipped(why)),
        };
        let mut got = self.pairs(&[(&good, &mid), (&mid, &bad)], runs)?;
        let (c_bad, good_c) = (got.pop().expect("two"), got.pop().expect("two"));
        match (good_c, c_bad) {
            (Ok(good_c), Ok(c_bad)) => Ok(Measured::Done(AgainstEnds {
                good_c,
                c_bad,
                processes: 4 * runs,
            })),
            (Err(why), _) | (_, Err(why)) => Ok(Measured::Skipped(why)),
        }
    }
}

impl CounterSource for Measurer<'_> {
    fn values(&mut self, c: usize, processes: usize) -> Result<Measured<Vec<f64>>, Error> {
        let ready = match self.ready(c) {
            Ok(r) => r,
            Err(why) => return Ok(Measured::Skipped(why)),
        };
        Ok(match self.alone(&ready, processes)? {
            Ok(v) => {
                let entry = self.counted.entry(c).or_default();
                entry.0.extend(&v);
                entry.1.append(&mut self.last_profiles);
                Measured::Done(v)
            }
            Err(why) => Measured::Skipped(why),
        })
    }
}
