//! `Executor`: the one path by which `run`, `detect` and `compare` start a process. It numbers
//! processes, builds the [`TargetRequest`] (with the `HARNESS_ENV_PAD` layout randomization for
//! measurements), turns the [`ProcessResult`] into one [`RunRecord`] per scenario and emits
//! [`RunEvent::ProcessStarted`] / [`RunEvent::ProcessFinished`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{ProcessResult, TargetRequest};
use crate::counters::{CounterSettings, CounterSource, VALGRIND_TIMEOUT_FACTOR};
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};
use crate::model::{Outcome, RunRecord, ScenarioKind};

/// Padding added to a measurement process's environment, up to this many bytes: moves the stack
/// start so layout bias (Mytkowicz et al., ASPLOS 2009) becomes variance the interval can see.
const MAX_ENV_PAD: u64 = 4096;

/// One scenario of a process to run.
#[derive(Debug, Clone, PartialEq)]
pub struct JobScenario {
    /// Full name.
    pub name: String,
    /// Check, measure or test.
    pub kind: ScenarioKind,
    /// Which repetition of this scenario this is, for its record.
    pub repetition: usize,
}

/// One process to run: these scenarios in this order, with this env.
#[derive(Debug, Clone)]
pub struct ProcessJob {
    /// The scenarios, in the order asked for.
    pub scenarios: Vec<JobScenario>,
    /// Env the process starts with on top of the parent's (recorded in each record).
    pub env: BTreeMap<String, String>,
    /// Kill the process after this long.
    pub timeout: Option<Duration>,
    /// Count its measurements with the command's counter source ([`ExecConfig::counters`]).
    pub counted: bool,
    /// Count its measurements' allocations, where `--allocs` came beside `--counters`
    /// ([`CounterSettings::allocs`]).
    pub allocs: bool,
}

impl ProcessJob {
    /// Whether the process measures anything (and so gets layout padding).
    pub fn measures(&self) -> bool {
        self.scenarios.iter().any(|s| s.kind == ScenarioKind::Measure)
    }
}

/// What every process of a command shares.
#[derive(Debug, Clone)]
pub struct ExecConfig {
    /// Measured iterations per measurement.
    pub iterations: usize,
    /// Warm-up iterations per measurement.
    pub warmup: usize,
    /// Directory for scratch files.
    pub scratch: PathBuf,
    /// Seed of the layout padding.
    pub seed: u64,
    /// GPU sample rules passed to every process (`None`: the defaults).
    pub gpu: Option<crate::model::GpuSettings>,
    /// `--counters`: the source, and the calls a process that only counts makes.
    pub counters: Option<CounterSettings>,
}

/// Numbers and starts the processes of one command.
pub struct Executor {
    config: ExecConfig,
    clock_start: Instant,
    /// Shared with [`Executor::sibling`]s, so processes run side by side never share an index.
    next_index: Arc<AtomicUsize>,
    pads: ChaCha8Rng,
}

/// A prepared process: its request and the records it will fill.
#[derive(Debug)]
pub struct Launch {
    /// The request handed to the target.
    pub request: TargetRequest,
    /// Run index of the first record.
    pub index: usize,
    job: ProcessJob,
    clock_start: Instant,
}

impl Executor {
    /// An executor whose `started_ms` count from now.
    pub fn new(config: ExecConfig) -> Self {
        let pads = ChaCha8Rng::seed_from_u64(config.seed ^ 0x9e37_79b9_7f4a_7c15);
        Executor {
            config,
            clock_start: Instant::now(),
            next_index: Arc::new(AtomicUsize::new(0)),
            pads,
        }
    }

    /// Number runs from `index` on (a resumed run continues after the runs it recorded).
    pub fn starting_at(self, index: usize) -> Self {
        self.next_index.store(index, Ordering::Relaxed);
        self
    }

    /// An executor for another thread of the same command: the same clock and run numbering,
    /// its own padding stream (`stream` tells siblings apart).
    pub fn sibling(&self, stream: u64) -> Executor {
        Executor {
            config: self.config.clone(),
            clock_start: self.clock_start,
            next_index: Arc::clone(&self.next_index),
            pads: ChaCha8Rng::seed_from_u64(self.config.seed ^ 0x9e37_79b9_7f4a_7c15 ^ stream.wrapping_mul(0x2545_f491_4f6c_dd1d)),
        }
    }

    /// Number the process (one run index per scenario) and build its request.
    pub fn prepare(&mut self, job: ProcessJob) -> Launch {
        let index = self.next_index.fetch_add(job.scenarios.len().max(1), Ordering::Relaxed);
        let mut env = job.env.clone();
        if job.measures() {
            let pad = self.pads.next_u64() % MAX_ENV_PAD;
            env.insert("HARNESS_ENV_PAD".to_owned(), "x".repeat(pad as usize));
        }
        // Only a process holding a measurement counts: checks and tests have nothing to count.
        let counters = match &self.config.counters {
            Some(c) if job.allocs => c.allocs.as_deref(),
            c => c.as_ref().filter(|_| job.counted),
        }
        .filter(|_| job.measures());
        let (mut iterations, mut warmup, mut timeout) = (self.config.iterations, self.config.warmup, job.timeout);
        if let Some(c) = counters.filter(|c| c.source.separate_processes()) {
            (iterations, warmup) = (c.iterations, c.warmup);
            if c.source.is_valgrind() {
                timeout = timeout.map(|t| t * VALGRIND_TIMEOUT_FACTOR);
            }
        }
        let request = TargetRequest {
            names: job.scenarios.iter().map(|s| s.name.clone()).collect(),
            env,
            iterations,
            warmup,
            timeout,
            scratch: self.config.scratch.clone(),
            id: format!("p{index}"),
            gpu: self.config.gpu,
            counters: counters.map(|c| c.source.clone()),
        };
        Launch {
            request,
            index,
            job,
            clock_start: self.clock_start,
        }
    }

    /// Run `job` through `spawn` now: emits its start and its records.
    pub fn run(
        &mut self,
        job: ProcessJob,
        events: &mut dyn Reporter,
        spawn: impl FnOnce(&TargetRequest) -> io::Result<ProcessResult>,
    ) -> Result<Vec<RunRecord>, Error> {
        let launch = self.prepare(job);
        launch.announce(events)?;
        let records = launch.run(spawn);
        events.on_event(&RunEvent::ProcessFinished { records: &records })?;
        Ok(records)
    }
}

impl Executor {
    /// Run `jobs`, each on its target, up to `threads` at once (processes that do not disturb
    /// one another: counting under valgrind). Starts and finishes are emitted on this thread;
    /// the records come back in the order of `jobs`.
    pub fn run_parallel(
        &mut self,
        jobs: Vec<(ProcessJob, &dyn super::Target)>,
        threads: usize,
        events: &mut dyn Reporter,
    ) -> Result<Vec<Vec<RunRecord>>, Error> {
        let mut done: Vec<Option<Vec<RunRecord>>> = vec![None; jobs.len()];
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<RunRecord>)>();
        std::thread::scope(|scope| -> Result<(), Error> {
            let mut queue = jobs.into_iter().enumerate();
            let mut in_flight = 0usize;
            loop {
                while in_flight < threads.max(1) {
                    let Some((i, (job, target))) = queue.next() else { break };
                    let launch = self.prepare(job);
                    launch.announce(events)?;
                    let tx = tx.clone();
                    scope.spawn(move || {
                        let _ = tx.send((i, launch.run(|r| target.run(r))));
                    });
                    in_flight += 1;
                }
                if in_flight == 0 {
                    return Ok(());
                }
                let (i, records) = rx.recv().expect("workers send before exiting");
                in_flight -= 1;
                events.on_event(&RunEvent::ProcessFinished { records: &records })?;
                done[i] = Some(records);
            }
        })?;
        Ok(done.into_iter().map(Option::unwrap_or_default).collect())
    }
}

impl Launch {
    /// Emit [`RunEvent::ProcessStarted`].
    pub fn announce(&self, events: &mut dyn Reporter) -> Result<(), Error> {
        events.on_event(&RunEvent::ProcessStarted {
            index: self.index,
            names: &self.request.names,
        })
    }

    /// Start the process and wait for it: one record per scenario asked for, in the order they
    /// ran. A process the harness could not even start (binary gone, no fds) is that run's
    /// result, not the harness's crash.
    pub fn run(self, spawn: impl FnOnce(&TargetRequest) -> io::Result<ProcessResult>) -> Vec<RunRecord> {
        let started_ms = self.clock_start.elapsed().as_secs_f64() * 1e3;
        // By name, so a shared process of thousands of scenarios is not matched quadratically.
        let asked: HashMap<&str, &JobScenario> = self.job.scenarios.iter().map(|s| (s.name.as_str(), s)).collect();
        let base = |i: usize, name: &str, outcome: Outcome| {
            let s = asked.get(name);
            RunRecord {
                run_index: self.index + i,
                scenario: name.to_owned(),
                kind: s.map_or(ScenarioKind::Check, |s| s.kind),
                env: self.job.env.clone(),
                repetition: s.map_or(0, |s| s.repetition),
                outcome,
                metrics: Vec::new(),
                wall_ns: 0,
                started_ms,
                env_changes: Vec::new(),
                stdout: String::new(),
                stderr: String::new(),
                process: Default::default(),
                counted_by: self.request.counters.as_ref().map(CounterSource::label),
            }
        };
        match spawn(&self.request) {
            Ok(result) => {
                let wall_ns = result.process.wall.as_nanos() as u64;
                let facts = result.process.facts();
                // A process of one scenario keeps its output on its record. A shared process
                // keeps it once, on its first failure, and on a scenario that ended it (crash,
                // timeout, no result: the output says why); a failed test's own message is in
                // its outcome. Not on each failing record: 600 tests with 300 victims made 260 MB
                // of results.jsonl that way.
                let shared = self.job.scenarios.len() > 1;
                let mut first_failure = true;
                let mut records: Vec<RunRecord> = result
                    .results
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let ended = !matches!(r.outcome, Outcome::Failed { .. });
                        let keep = !shared || (r.outcome.is_failure() && (ended || std::mem::take(&mut first_failure)));
                        let output = |s: &String| if keep { s.clone() } else { String::new() };
                        RunRecord {
                            metrics: r.metrics,
                            env_changes: r.env_changes,
                            wall_ns,
                            process: facts.clone(),
                            stdout: output(&result.process.stdout),
                            stderr: output(&result.process.stderr),
                            ..base(i, &r.name, r.outcome)
                        }
                    })
                    .collect();
                // A target that returned fewer results than names: the rest never ran.
                let returned: HashSet<String> = records.iter().map(|r| r.scenario.clone()).collect();
                for s in &self.job.scenarios {
                    if !returned.contains(&s.name) {
                        records.push(base(records.len(), &s.name, Outcome::NotRun));
                    }
                }
                records
            }
            Err(e) => self
                .job
                .scenarios
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let outcome = if i == 0 {
                        Outcome::NoResult { exit_code: -1 }
                    } else {
                        Outcome::NotRun
                    };
                    RunRecord {
                        stderr: format!("harness could not run the process: {e}"),
                        ..base(i, &s.name, outcome)
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Recorder;
    use crate::execute::{ProcessEnd, ProcessOutput, ScenarioResult};

    fn job(names: &[(&str, ScenarioKind)]) -> ProcessJob {
        ProcessJob {
            scenarios: names
                .iter()
                .enumerate()
                .map(|(i, (n, k))| JobScenario {
                    name: (*n).to_owned(),
                    kind: *k,
                    repetition: i,
                })
                .collect(),
            env: BTreeMap::from([("K".to_owned(), "v".to_owned())]),
            timeout: None,
            counted: false,
            allocs: false,
        }
    }

    fn executor() -> Executor {
        Executor::new(ExecConfig {
            iterations: 3,
            warmup: 1,
            scratch: PathBuf::from("/nonexistent"),
            seed: 7,
            gpu: None,
            counters: None,
        })
    }

    fn output() -> ProcessOutput {
        ProcessOutput {
            end: ProcessEnd::Exited(0),
            wall: Duration::from_millis(2),
            stdout: "out".into(),
            stderr: String::new(),
            usage: None,
        }
    }

    #[test]
    fn measurements_get_a_pad_and_checks_do_not() {
        let mut ex = executor();
        let m = ex.prepare(job(&[("a", ScenarioKind::Check), ("b", ScenarioKind::Measure)]));
        let c = ex.prepare(job(&[("a", ScenarioKind::Check)]));
        assert!(m.request.env.contains_key("HARNESS_ENV_PAD"));
        assert!(!c.request.env.contains_key("HARNESS_ENV_PAD"));
        assert_eq!((m.index, c.index), (0, 2));
        assert_ne!(m.request.id, c.request.id);
        // Pads vary between processes.
        let lens: std::collections::BTreeSet<usize> = (0..8)
            .map(|_| ex.prepare(job(&[("b", ScenarioKind::Measure)])).request.env["HARNESS_ENV_PAD"].len())
            .collect();
        assert!(lens.len() > 1, "{lens:?}");
    }

    #[test]
    fn siblings_on_other_threads_never_share_a_run_index_or_a_scratch_id() {
        let ex = executor().starting_at(10);
        let indices: Vec<usize> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|w| {
                    let mut sib = ex.sibling(w);
                    scope.spawn(move || {
                        (0..50)
                            .map(|_| sib.prepare(job(&[("a", ScenarioKind::Check), ("b", ScenarioKind::Check)])).index)
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        let mut sorted = indices.clone();
        sorted.sort_unstable();
        // 200 two-scenario processes: indices 10, 12, ..., 408, each handed out once.
        assert_eq!(sorted, (0..200).map(|i| 10 + 2 * i).collect::<Vec<_>>());
        // Siblings pad from streams of their own.
        let pad = |mut e: Executor| e.prepare(job(&[("m", ScenarioKind::Measure)])).request.env["HARNESS_ENV_PAD"].len();
        let pads: std::collections::BTreeSet<usize> = (0..6).map(|w| pad(ex.sibling(w))).collect();
        assert!(pads.len() > 1, "{pads:?}");
    }

    #[test]
    fn records_follow_the_run_order_and_missing_names_are_not_run() {
        let mut ex = executor();
        let mut rec = Recorder::default();
        let records = ex
            .run(
                job(&[("a", ScenarioKind::Check), ("b", ScenarioKind::Check), ("c", ScenarioKind::Check)]),
                &mut rec,
                |req| {
                    assert_eq!(req.names, ["a", "b", "c"]);
                    Ok(ProcessResult {
                        results: vec![
                            ScenarioResult::bare("b", Outcome::Passed),
                            ScenarioResult::bare("a", Outcome::Failed { message: "boom".into() }),
                        ],
                        process: output(),
                    })
                },
            )
            .unwrap();
        let names: Vec<(&str, usize, usize)> = records.iter().map(|r| (r.scenario.as_str(), r.run_index, r.repetition)).collect();
        assert_eq!(names, [("b", 0, 1), ("a", 1, 0), ("c", 2, 2)]);
        assert_eq!(records[2].outcome, Outcome::NotRun);
        // A shared process's output stays with the scenario that did not pass, not on each record.
        assert_eq!((records[0].stdout.as_str(), records[1].stdout.as_str()), ("", "out"));
        assert_eq!(records[0].env["K"], "v");
        assert_eq!(rec.seen, ["start a,b,c", "done 3"]);
    }

    /// A shared process's output is kept once for its failures, and on the scenario that ended
    /// it, never on every failing record (a libtest binary of thousands of victims).
    #[test]
    fn a_shared_processs_output_is_kept_on_its_first_failure_and_its_end() {
        let mut ex = executor();
        let mut rec = Recorder::default();
        let failed = |n: &str| {
            ScenarioResult::bare(
                n,
                Outcome::Failed {
                    message: format!("{n} failed"),
                },
            )
        };
        let records = ex
            .run(
                job(&[
                    ("a", ScenarioKind::Check),
                    ("b", ScenarioKind::Check),
                    ("c", ScenarioKind::Check),
                    ("d", ScenarioKind::Check),
                ]),
                &mut rec,
                |_| {
                    Ok(ProcessResult {
                        results: vec![
                            ScenarioResult::bare("a", Outcome::Passed),
                            failed("b"),
                            failed("c"),
                            ScenarioResult::bare(
                                "d",
                                Outcome::Crashed {
                                    signal: "SIGSEGV".into(),
                                    signal_number: 11,
                                },
                            ),
                        ],
                        process: output(),
                    })
                },
            )
            .unwrap();
        let kept: Vec<(&str, &str)> = records.iter().map(|r| (r.scenario.as_str(), r.stdout.as_str())).collect();
        assert_eq!(kept, [("a", ""), ("b", "out"), ("c", ""), ("d", "out")]);
    }

    #[test]
    fn a_process_that_cannot_start_is_a_result() {
        let mut ex = executor();
        let mut rec = Recorder::default();
        let records = ex
            .run(job(&[("a", ScenarioKind::Check), ("b", ScenarioKind::Check)]), &mut rec, |_| {
                Err(io::Error::other("gone"))
            })
            .unwrap();
        assert_eq!(records[0].outcome, Outcome::NoResult { exit_code: -1 });
        assert_eq!(records[1].outcome, Outcome::NotRun);
        assert!(records[0].stderr.contains("gone"));
    }
}
