//! `Scheduler`: runs jobs in fresh processes. Checks run in parallel up to `test_threads`;
//! a measurement runs alone, never overlapping another process of this harness (unless
//! `parallel_measurements`), so sibling processes do not steal its cores or caches.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use crate::execute::{Target, TargetRequest};
use crate::model::{Outcome, RunRecord, ScenarioKind};
use crate::plan::{Job, SeededOrder};

/// Padding added to each child's environment, up to this many bytes: moves the stack start so
/// layout bias (Mytkowicz et al., ASPLOS 2009) becomes variance the interval can see.
const MAX_ENV_PAD: u64 = 4096;

/// How jobs are executed.
#[derive(Debug, Clone)]
pub struct SchedulerConfig {
    /// Measured iterations per measurement process.
    pub iterations: usize,
    /// Warm-up iterations per measurement process.
    pub warmup: usize,
    /// Parallel processes for checks.
    pub test_threads: usize,
    /// Let measurements overlap other processes.
    pub parallel_measurements: bool,
    /// Scratch directory for captured output and result channels.
    pub scratch: PathBuf,
}

/// Executes batches of jobs; run indices continue across batches.
pub struct Scheduler<'t> {
    target: &'t dyn Target,
    config: SchedulerConfig,
    clock_start: Instant,
    next_index: usize,
}

impl<'t> Scheduler<'t> {
    /// A scheduler whose `started_ms` count from `clock_start`.
    pub fn new(target: &'t dyn Target, config: SchedulerConfig, clock_start: Instant) -> Self {
        Scheduler {
            target,
            config,
            clock_start,
            next_index: 0,
        }
    }

    /// Run `jobs` in order of dispatch; `on_done` gets each record as its process finishes.
    pub fn execute(&mut self, jobs: Vec<Job>, order: &mut SeededOrder, mut on_done: impl FnMut(RunRecord)) {
        let threads = self.config.test_threads.max(1);
        let (tx, rx) = mpsc::channel::<(RunRecord, bool)>();
        std::thread::scope(|scope| {
            let mut queue = jobs.into_iter().peekable();
            let mut in_flight = 0usize;
            let mut exclusive = false;
            loop {
                while let Some(job) = queue.peek() {
                    let wants_alone = job.kind == ScenarioKind::Measure && !self.config.parallel_measurements;
                    if exclusive || in_flight >= threads || (wants_alone && in_flight > 0) {
                        break;
                    }
                    let job = queue.next().expect("peeked");
                    let index = self.next_index;
                    self.next_index += 1;
                    in_flight += 1;
                    exclusive = wants_alone;
                    let pad = "x".repeat((order.next_u64() % MAX_ENV_PAD) as usize);
                    let tx = tx.clone();
                    let target = self.target;
                    let config = &self.config;
                    let clock_start = self.clock_start;
                    scope.spawn(move || {
                        let record = run_job(target, config, &job, index, pad, clock_start);
                        let _ = tx.send((record, wants_alone));
                    });
                }
                if in_flight == 0 {
                    break;
                }
                let (record, was_alone) = rx.recv().expect("workers send before exiting");
                in_flight -= 1;
                if was_alone {
                    exclusive = false;
                }
                on_done(record);
            }
        });
    }
}

fn run_job(target: &dyn Target, config: &SchedulerConfig, job: &Job, index: usize, pad: String, clock_start: Instant) -> RunRecord {
    let mut env = job.env.clone();
    if job.kind == ScenarioKind::Measure {
        env.insert("HARNESS_ENV_PAD".to_owned(), pad);
    }
    let request = TargetRequest {
        names: vec![job.scenario.clone()],
        env,
        iterations: config.iterations,
        warmup: config.warmup,
        timeout: job.timeout,
        scratch: config.scratch.clone(),
        id: format!("run-{index}"),
    };
    let started_ms = clock_start.elapsed().as_secs_f64() * 1e3;
    let base = RunRecord {
        run_index: index,
        scenario: job.scenario.clone(),
        kind: job.kind,
        env: job.env.clone(),
        repetition: job.repetition,
        outcome: Outcome::NotRun,
        metrics: Vec::new(),
        wall_ns: 0,
        started_ms,
        env_changes: Vec::new(),
        stdout: String::new(),
        stderr: String::new(),
        process: Default::default(),
    };
    match target.run(&request) {
        Ok(mut result) => {
            let r = result.results.swap_remove(0);
            RunRecord {
                outcome: r.outcome,
                metrics: r.metrics,
                env_changes: r.env_changes,
                wall_ns: result.process.wall.as_nanos() as u64,
                process: result.process.facts(),
                stdout: result.process.stdout,
                stderr: result.process.stderr,
                ..base
            }
        }
        // The harness could not even start the process (binary gone, no fds): that is this
        // run's result, not the harness's crash.
        Err(e) => RunRecord {
            outcome: Outcome::NoResult { exit_code: -1 },
            stderr: format!("harness could not run the process: {e}"),
            ..base
        },
    }
}
