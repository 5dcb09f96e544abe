//! `Scheduler`: runs `run`'s jobs through the [`Executor`]. Checks run in parallel up to
//! `test_threads`; a measurement runs alone, never overlapping another process of this harness
//! (unless `parallel_measurements`), so sibling processes do not steal its cores or caches.

use std::sync::mpsc;

use crate::errors::Error;
use crate::events::{Reporter, RunEvent};
use crate::execute::{Executor, JobScenario, ProcessJob, Target};
use crate::model::{RunRecord, ScenarioKind};
use crate::plan::Job;

/// How jobs are scheduled.
#[derive(Debug, Clone, Copy)]
pub struct SchedulerConfig {
    /// Parallel processes for checks.
    pub test_threads: usize,
    /// Let measurements overlap other processes.
    pub parallel_measurements: bool,
    /// Counted jobs run in processes of their own (valgrind), whose counts no neighbour
    /// disturbs: they run in parallel like checks.
    pub counted_apart: bool,
}

/// Executes batches of jobs; run indices continue across batches.
pub struct Scheduler<'t> {
    target: &'t dyn Target,
    config: SchedulerConfig,
    executor: Executor,
}

impl<'t> Scheduler<'t> {
    /// A scheduler starting its processes through `executor`.
    pub fn new(target: &'t dyn Target, config: SchedulerConfig, executor: Executor) -> Self {
        Scheduler { target, config, executor }
    }

    /// Run `jobs` in order of dispatch; `events` hears each process start and finish, on this
    /// thread. Returns the records in order of completion.
    pub fn execute(&mut self, jobs: Vec<Job>, events: &mut dyn Reporter) -> Result<Vec<RunRecord>, Error> {
        let threads = self.config.test_threads.max(1);
        let (tx, rx) = mpsc::channel::<(Vec<RunRecord>, bool)>();
        let mut records = Vec::new();
        std::thread::scope(|scope| {
            let mut queue = jobs.into_iter().peekable();
            let mut in_flight = 0usize;
            let mut exclusive = false;
            let mut failure = None;
            loop {
                while let Some(job) = queue.peek().filter(|_| failure.is_none()) {
                    let counts_only = (job.counted && self.config.counted_apart) || job.allocs;
                    let wants_alone = job.kind == ScenarioKind::Measure && !self.config.parallel_measurements && !counts_only;
                    if exclusive || in_flight >= threads || (wants_alone && in_flight > 0) {
                        break;
                    }
                    let launch = self.executor.prepare(process_job(queue.next().expect("peeked")));
                    if let Err(e) = launch.announce(events) {
                        failure = Some(e);
                        break;
                    }
                    in_flight += 1;
                    exclusive = wants_alone;
                    let (tx, target) = (tx.clone(), self.target);
                    scope.spawn(move || {
                        let _ = tx.send((launch.run(|r| target.run(r)), wants_alone));
                    });
                }
                if in_flight == 0 {
                    return failure.map_or(Ok(()), Err);
                }
                let (done, was_alone) = rx.recv().expect("workers send before exiting");
                in_flight -= 1;
                if was_alone {
                    exclusive = false;
                }
                if failure.is_none()
                    && let Err(e) = events.on_event(&RunEvent::ProcessFinished { records: &done })
                {
                    failure = Some(e);
                }
                records.extend(done);
            }
        })?;
        Ok(records)
    }
}

fn process_job(job: Job) -> ProcessJob {
    ProcessJob {
        scenarios: vec![JobScenario {
            name: job.scenario,
            kind: job.kind,
            repetition: job.repetition,
        }],
        env: job.env,
        timeout: job.timeout,
        counted: job.counted,
        allocs: job.allocs,
    }
}
