//! The interleaved design: a seeded schedule of random A/B pairs ([`schedule`]) and its execution
//! through two [`Target`]s and the shared [`Executor`], one process per run, never two at once
//! ([`Interleaver`]).
//!
//! Each round visits every scenario in a fresh random order and runs one baseline and one
//! candidate process back to back, which side first decided by a coin: drift (thermal state,
//! a background job, frequency scaling) then hits both sides of a pair alike and cancels in the
//! per-pair ratio (Abedi & Brecht, ICPE 2017; STATISTICS.md item 7).

use std::collections::BTreeMap;
use std::time::Duration;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::counters::CounterSettings;
use crate::errors::Error;
use crate::events::Reporter;
use crate::execute::{ExecConfig, Executor, JobScenario, ProcessJob, Target};
use crate::model::{Listed, RunRecord};

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
            push_pair(&mut slots, round, scenario, &mut rng);
        }
    }
    slots
}

/// One A/B pair of `scenario` in `round`, its two sides in a random order (so drift and warm-up
/// within a pair favour neither side).
pub(super) fn push_pair(slots: &mut Vec<Slot>, round: usize, scenario: usize, rng: &mut impl rand::Rng) {
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
    /// Seed of the layout padding.
    pub seed: u64,
    /// GPU sample rules (`None`: the defaults).
    pub gpu: Option<crate::model::GpuSettings>,
    /// `--counters`: the source and the calls of a counting process.
    pub counters: Option<CounterSettings>,
}

impl ProcessConfig {
    /// How the processes of `settings` run, with this scratch directory and padding seed.
    pub fn of(settings: &super::RunSettings, scratch: &std::path::Path, seed: u64) -> Self {
        ProcessConfig {
            iterations: settings.iterations,
            warmup: settings.warmup,
            timeout: settings.timeout,
            scratch: scratch.to_owned(),
            seed,
            gpu: settings.gpu,
            counters: settings.counters.clone(),
        }
    }
}

/// Every run of one scenario, by side, in round order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScenarioRuns {
    pub baseline: Vec<RunRecord>,
    pub candidate: Vec<RunRecord>,
}

/// Runs batches of slots through one [`Executor`], one process at a time (measurements never
/// overlap), collecting every run by scenario and side. A sequential design calls
/// [`Interleaver::run_batch`] again with more slots after looking at [`Interleaver::runs`].
pub(crate) struct Interleaver<'a> {
    baseline: SideTarget<'a>,
    candidate: SideTarget<'a>,
    selected: &'a [Listed],
    timeout: Option<Duration>,
    executor: Executor,
    runs: BTreeMap<String, ScenarioRuns>,
    /// `--counters=perf`: every process counts as it measures.
    counts_in_process: bool,
}

impl<'a> Interleaver<'a> {
    /// Pairs of `selected` scenarios between two sides.
    pub fn new(baseline: SideTarget<'a>, candidate: SideTarget<'a>, selected: &'a [Listed], config: &ProcessConfig) -> Self {
        let executor = Executor::new(ExecConfig {
            iterations: config.iterations,
            warmup: config.warmup,
            scratch: config.scratch.clone(),
            seed: config.seed,
            gpu: config.gpu,
            counters: config.counters.clone(),
        });
        let counts_in_process = config.counters.as_ref().is_some_and(|c| !c.source.separate_processes());
        Interleaver {
            baseline,
            candidate,
            selected,
            timeout: config.timeout,
            executor,
            runs: selected.iter().map(|l| (l.name.clone(), ScenarioRuns::default())).collect(),
            counts_in_process,
        }
    }

    /// Number runs from `index` on (a later phase of one command, e.g. bisect's next step, so
    /// results.jsonl never holds one run index twice). Siblings made after share the numbering.
    pub fn starting_at(mut self, index: usize) -> Self {
        self.executor = self.executor.starting_at(index);
        self
    }

    /// Another interleaver of the same command (the null control): its processes continue this
    /// one's run numbering, so results.jsonl never holds one run index twice.
    pub fn sibling(&self, baseline: SideTarget<'a>, candidate: SideTarget<'a>) -> Self {
        Interleaver {
            baseline,
            candidate,
            selected: self.selected,
            timeout: self.timeout,
            executor: self.executor.sibling(1),
            runs: self.selected.iter().map(|l| (l.name.clone(), ScenarioRuns::default())).collect(),
            // The null control judges wall-time noise: its processes do not count.
            counts_in_process: false,
        }
    }

    /// Run `slots` in order, one process each, reporting each to `events`.
    pub fn run_batch(&mut self, slots: &[Slot], events: &mut dyn Reporter) -> Result<(), Error> {
        for slot in slots {
            let (job, target) = self.job(slot, self.counts_in_process);
            let records = self.executor.run(job, events, |r| target.run(r))?;
            self.keep(slot, records);
        }
        Ok(())
    }

    /// Run `slots` as counting processes (valgrind), `threads` at a time: their counts do not
    /// depend on what runs beside them. Their records join each side's runs in slot order, so
    /// pairs stay aligned.
    pub fn run_counting(&mut self, slots: &[Slot], threads: usize, events: &mut dyn Reporter) -> Result<(), Error> {
        let jobs = slots.iter().map(|s| self.job(s, true)).collect();
        let done = self.executor.run_parallel(jobs, threads, events)?;
        for (slot, records) in slots.iter().zip(done) {
            self.keep(slot, records);
        }
        Ok(())
    }

    /// Run `slots` as allocation-counting processes (`--allocs` beside `--counters`), as
    /// [`Interleaver::run_counting`] runs the other source's.
    pub fn run_allocs_counting(&mut self, slots: &[Slot], threads: usize, events: &mut dyn Reporter) -> Result<(), Error> {
        let jobs = slots
            .iter()
            .map(|s| {
                let (mut job, target) = self.job(s, false);
                job.allocs = self.selected[s.scenario].uncounted.is_none();
                (job, target)
            })
            .collect();
        let done = self.executor.run_parallel(jobs, threads, events)?;
        for (slot, records) in slots.iter().zip(done) {
            self.keep(slot, records);
        }
        Ok(())
    }

    fn job(&self, slot: &Slot, counted: bool) -> (ProcessJob, &'a dyn Target) {
        let listed = &self.selected[slot.scenario];
        let side = match slot.side {
            Side::Baseline => &self.baseline,
            Side::Candidate => &self.candidate,
        };
        let mut env = listed.env.clone();
        env.extend(side.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let job = ProcessJob {
            scenarios: vec![JobScenario {
                name: listed.name.clone(),
                kind: listed.kind,
                repetition: slot.round,
            }],
            env,
            timeout: listed.timeout.or(self.timeout),
            counted: counted && listed.uncounted.is_none(),
            allocs: false,
        };
        (job, side.target)
    }

    fn keep(&mut self, slot: &Slot, records: Vec<RunRecord>) {
        let name = &self.selected[slot.scenario].name;
        let entry = self.runs.entry(name.clone()).or_default();
        let into = match slot.side {
            Side::Baseline => &mut entry.baseline,
            Side::Candidate => &mut entry.candidate,
        };
        into.extend(records.into_iter().filter(|r| &r.scenario == name));
    }

    /// The runs so far, by scenario (a sequential design looks at them between batches).
    pub fn runs(&self) -> &BTreeMap<String, ScenarioRuns> {
        &self.runs
    }

    /// The runs, by scenario.
    pub fn into_runs(self) -> BTreeMap<String, ScenarioRuns> {
        self.runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Recorder;
    use crate::execute::{ProcessEnd, ProcessOutput, ProcessResult, ScenarioResult, TargetRequest};
    use crate::model::{Outcome, ScenarioKind};

    /// Passes every scenario; says which side ran it on stdout.
    struct Fake(&'static str);

    impl Target for Fake {
        fn describe(&self) -> String {
            self.0.into()
        }
        fn list(&self) -> Result<Vec<Listed>, Error> {
            Ok(vec![])
        }
        fn run(&self, request: &TargetRequest) -> std::io::Result<ProcessResult> {
            assert!(request.env.contains_key("HARNESS_ENV_PAD"), "compare processes get layout padding");
            Ok(ProcessResult {
                results: vec![ScenarioResult::bare(request.names[0].clone(), Outcome::Passed)],
                process: ProcessOutput {
                    end: ProcessEnd::Exited(0),
                    stdout: format!("{} {}", self.0, request.env.get("SIDE").map_or("", String::as_str)),
                    stderr: String::new(),
                    wall: Duration::from_millis(1),
                    usage: None,
                },
            })
        }
    }

    #[test]
    fn batches_accumulate_by_side_and_every_process_is_an_event() {
        fn side<'a>(t: &'a Fake, v: &str) -> SideTarget<'a> {
            SideTarget {
                target: t,
                env: BTreeMap::from([("SIDE".to_owned(), v.to_owned())]),
            }
        }
        let (a, b) = (Fake("a"), Fake("b"));
        let selected: Vec<Listed> = ["x", "y"]
            .iter()
            .map(|n| Listed {
                name: (*n).into(),
                kind: ScenarioKind::Measure,
                ignored: None,
                env: BTreeMap::new(),
                timeout: None,
                uncounted: None,
            })
            .collect();
        let config = ProcessConfig {
            iterations: 1,
            warmup: 0,
            timeout: None,
            scratch: "/nonexistent".into(),
            seed: 1,
            gpu: None,
            counters: None,
        };
        let mut il = Interleaver::new(side(&a, "base"), side(&b, "cand"), &selected, &config);
        let mut rec = Recorder::default();
        let slots = schedule(2, 3, 5);
        il.run_batch(&slots[..4], &mut rec).unwrap();
        il.run_batch(&slots[4..], &mut rec).unwrap();
        let runs = il.into_runs();
        for sr in runs.values() {
            assert_eq!((sr.baseline.len(), sr.candidate.len()), (3, 3));
            assert!(sr.baseline.iter().all(|r| r.stdout == "a base" && r.env["SIDE"] == "base"));
            assert!(sr.candidate.iter().all(|r| r.stdout == "b cand"));
            assert_eq!(sr.baseline.iter().map(|r| r.repetition).collect::<Vec<_>>(), [0, 1, 2]);
        }
        let mut indices: Vec<usize> = runs
            .values()
            .flat_map(|s| s.baseline.iter().chain(&s.candidate))
            .map(|r| r.run_index)
            .collect();
        indices.sort();
        assert_eq!(indices, (0..12).collect::<Vec<_>>(), "indices continue across batches");
        assert_eq!(rec.seen.iter().filter(|e| e.starts_with("done")).count(), 12);
    }

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
