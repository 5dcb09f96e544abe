//! `Prober`: runs scenarios in shared or isolated processes for detect (through the shared
//! [`Executor`], like every process of every command), continues a shared order after a crash,
//! counts the processes it spends per [`Purpose`] and the time each phase took; [`Observation`]
//! is one scenario's result together with the order that preceded it in its process. Processes
//! run side by side: a pool of them ([`super::pool`]), or one at a time per thread
//! ([`SharedProber`], localizations of several scenarios at once).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::footprint::{Footprint, split};
use super::libtest_shuffle::ShuffleTrust;
pub use super::observation::{Observation, Prefix};
use super::pool::Slots;
use super::preload;
use super::subject::OrderTarget;
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};
use crate::execute::{Executor, JobScenario, Launch, ProcessJob};
use crate::model::{EvidenceKind, Listed, Outcome, RunCounts, RunRecord, ScenarioKind, Status};

/// What a process is spent on, for [`RunCounts`] and the phases of `detect-run.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Purpose {
    /// One scenario alone, up front.
    Isolated,
    /// A schedule.
    Shared,
    /// One scenario alone again: it failed or shifted somewhere.
    ExtraIsolated,
    /// Localization and confirmation.
    Localization,
    /// One final run per finding with the user's backtrace setting (counted as localization).
    Backtrace,
}

impl Purpose {
    /// The phase name, as the progress display and `detect-run.json` show it.
    pub fn phase(self) -> &'static str {
        match self {
            Purpose::Isolated => "isolated",
            Purpose::Shared => "shared",
            Purpose::ExtraIsolated => "extra_isolated",
            Purpose::Localization => "localization",
            Purpose::Backtrace => "backtrace",
        }
    }
}

/// Processes and times of one phase of one target, for `detect-run.json`'s `phases`.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseTime {
    /// Processes started.
    pub processes: usize,
    /// Scenario executions in them.
    pub executions: usize,
    /// First process start.
    pub first: Option<Instant>,
    /// Last process end.
    pub last: Option<Instant>,
    /// Sum of the processes' wall times.
    pub process_time: Duration,
}

impl PhaseTime {
    /// Add another target's (or env group's) processes of the same phase.
    pub fn merge(&mut self, o: &PhaseTime) {
        self.processes += o.processes;
        self.executions += o.executions;
        self.first = match (self.first, o.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last = self.last.max(o.last);
        self.process_time += o.process_time;
    }
}

/// A process prepared on the prober's thread, to be run anywhere.
pub struct Prepared {
    /// The process to start.
    pub launch: Launch,
    /// What [`Prober::finish`] needs back.
    pub meta: ProcessMeta,
}

/// What a prepared process was for.
#[derive(Debug, Clone)]
pub struct ProcessMeta {
    seed: Option<u64>,
    kind: EvidenceKind,
    purpose: Purpose,
    records_file: Option<PathBuf>,
    started: Instant,
    seq: usize,
}

impl ProcessMeta {
    /// The libtest shuffle seed the process runs under.
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }
}

/// Runs processes against one universe of scenarios (one binary, one env group) through the
/// command's [`Executor`], so each one is numbered, padded, recorded and reported like `run`'s.
pub struct Prober<'a> {
    target: &'a dyn OrderTarget,
    env: BTreeMap<String, String>,
    timeout: Option<Duration>,
    kinds: BTreeMap<String, ScenarioKind>,
    /// Measurements `--counters` must not count (CUDA): a process holding one is not counted.
    uncounted: std::collections::BTreeSet<String>,
    repetitions: BTreeMap<String, usize>,
    executor: &'a mut Executor,
    events: &'a mut dyn Reporter,
    /// Processes spent so far.
    pub counts: RunCounts,
    /// Scenario executions so far (a shared process of n scenarios counts n).
    pub executions: usize,
    /// The interposer library preloaded into every process, if any.
    interpose: Option<PathBuf>,
    /// The user's backtrace setting (`VAR`, value), given to [`Purpose::Backtrace`] runs only.
    pub(super) backtrace: Vec<(String, String)>,
    /// What each scenario did to env, cwd and files: per observed process, in run order. Equal
    /// footprints are one allocation ([`Prober::observe`]): most tests of a shared run of
    /// thousands leave the same one.
    pub footprints: Vec<Vec<(String, Arc<Footprint>)>>,
    distinct: HashSet<Arc<Footprint>>,
    /// Processes started with the preload, and how many of them showed it loaded.
    pub preload: PreloadCounts,
    /// Processes side by side at most (1 where a measurement must run alone).
    pub(super) workers: usize,
    /// Process slots shared by every target of the command.
    pub(super) slots: Arc<Slots>,
    /// `--budget`: no process starts after this.
    deadline: Option<Instant>,
    /// Per phase.
    pub phases: BTreeMap<Purpose, PhaseTime>,
    next_seq: usize,
    /// libtest: whether its shuffles were predicted right so far.
    pub shuffle: ShuffleTrust,
}

/// Turned off in every test process detect starts ([`crate::detect::reproduce`] hands the
/// user's setting back on the reproduce line).
pub(crate) const BACKTRACE_VARS: [&str; 2] = ["RUST_BACKTRACE", "RUST_LIB_BACKTRACE"];

/// How the preload fared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PreloadCounts {
    /// Processes started with `LD_PRELOAD`.
    pub tried: usize,
    /// Processes whose records show the library loaded.
    pub loaded: usize,
}

impl<'a> Prober<'a> {
    /// A prober for `group` (one env): its processes start with that env, are killed after
    /// `timeout`, start through `executor` and are reported to `events`; one at a time until
    /// [`Prober::with_workers`] says otherwise.
    pub fn new(
        target: &'a dyn OrderTarget,
        group: &[&Listed],
        timeout: Option<Duration>,
        executor: &'a mut Executor,
        events: &'a mut dyn Reporter,
    ) -> Self {
        Prober {
            target,
            env: group.first().map(|l| l.env.clone()).unwrap_or_default(),
            timeout,
            kinds: group.iter().map(|l| (l.name.clone(), l.kind)).collect(),
            uncounted: group.iter().filter(|l| l.uncounted.is_some()).map(|l| l.name.clone()).collect(),
            repetitions: BTreeMap::new(),
            executor,
            events,
            counts: RunCounts::default(),
            executions: 0,
            interpose: None,
            backtrace: Vec::new(),
            footprints: Vec::new(),
            distinct: HashSet::new(),
            preload: PreloadCounts::default(),
            workers: 1,
            slots: Arc::new(Slots::new(1)),
            deadline: None,
            phases: BTreeMap::new(),
            next_seq: 0,
            shuffle: ShuffleTrust::default(),
        }
    }

    /// Preload `lib` (`libharness_interpose.so`) into every process this prober starts.
    pub fn with_interpose(mut self, lib: Option<PathBuf>) -> Self {
        self.interpose = lib;
        self
    }

    /// Run up to `workers` processes side by side, each holding one of `slots` (shared by the
    /// command's targets, so they never run more processes than it allows in all).
    pub fn with_workers(mut self, workers: usize, slots: Arc<Slots>) -> Self {
        self.workers = workers.max(1);
        self.slots = slots;
        self
    }

    /// Start no process after `deadline` (`--budget`).
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Whether the budget is spent: no more processes may start.
    pub fn spent(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The target.
    pub fn target(&self) -> &'a dyn OrderTarget {
        self.target
    }

    /// Tell the reporters a phase begins, planning `planned` processes.
    pub fn phase_started(&mut self, name: &str, planned: usize) -> Result<(), Error> {
        self.events.on_event(&RunEvent::PhaseStarted { name, planned })
    }

    /// Tell the reporters the phase ended.
    pub fn phase_finished(&mut self, name: &str) -> Result<(), Error> {
        self.events.on_event(&RunEvent::PhaseFinished { name })
    }

    /// Tell the reporters more processes are planned.
    pub fn planned(&mut self, added: usize) -> Result<(), Error> {
        self.events.on_event(&RunEvent::Planned { added })
    }

    /// Number, build and announce one process running `names` (in this order, or under `seed`
    /// for libtest); it runs wherever [`Prepared::launch`] is run, and comes back through
    /// [`Prober::finish`].
    pub fn prepare(&mut self, names: &[String], seed: Option<u64>, kind: EvidenceKind, purpose: Purpose) -> Result<Prepared, Error> {
        let scenarios = names
            .iter()
            .map(|n| {
                let repetition = self.repetitions.entry(n.clone()).or_default();
                *repetition += 1;
                JobScenario {
                    name: n.clone(),
                    kind: self.kinds.get(n).copied().unwrap_or(ScenarioKind::Check),
                    repetition: *repetition - 1,
                }
            })
            .collect();
        // With --counters a process holding measurements counts them (under valgrind the whole
        // process runs under Callgrind, so one uncounted scenario keeps it native).
        let counted = !names.iter().any(|n| self.uncounted.contains(n));
        let job = ProcessJob {
            scenarios,
            env: self.env.clone(),
            timeout: self.timeout,
            counted,
            allocs: false,
        };
        let mut launch = self.executor.prepare(job);
        // Backtrace capture on every panic makes a failing run several times slower and its
        // output longer; the user's RUST_BACKTRACE reaches the reproduce line instead.
        for var in BACKTRACE_VARS {
            launch.request.env.insert(var.to_owned(), "0".to_owned());
        }
        if purpose == Purpose::Backtrace {
            launch.request.env.extend(self.backtrace.iter().cloned());
        }
        // The preload goes into the request only, so the recorded env stays the scenario's own.
        let records_file = self.interpose.clone().map(|lib| {
            let file = launch.request.scratch.join(format!("{}.rec", launch.request.id));
            preload::add_to(&mut launch.request.env, &lib, &file);
            file
        });
        launch.announce(&mut *self.events)?;
        self.next_seq += 1;
        Ok(Prepared {
            launch,
            meta: ProcessMeta {
                seed,
                kind,
                purpose,
                records_file,
                started: Instant::now(),
                seq: self.next_seq,
            },
        })
    }

    /// Run a prepared process here and now (any thread): its records.
    pub fn execute(target: &dyn OrderTarget, launch: Launch, seed: Option<u64>) -> Vec<RunRecord> {
        launch.run(|req| target.run_seeded(req, seed))
    }

    /// Take a finished process back: report it, count it, and turn its records into
    /// observations (in the order the scenarios ran; `not_run` last).
    pub fn finish(&mut self, meta: ProcessMeta, records: Vec<RunRecord>) -> Result<Vec<Observation>, Error> {
        self.events.on_event(&RunEvent::ProcessFinished { records: &records })?;
        let purpose = meta.purpose;
        self.events.on_event(&RunEvent::PhaseProcess { name: purpose.phase() })?;
        match purpose {
            Purpose::Isolated | Purpose::ExtraIsolated => self.counts.isolated += 1,
            Purpose::Shared => self.counts.shared += 1,
            Purpose::Localization | Purpose::Backtrace => self.counts.localization += 1,
        }
        self.counts.total += 1;
        let ran_count = records.iter().filter(|r| r.outcome.status() != Status::NotRun).count();
        let phase = self.phases.entry(purpose).or_default();
        phase.processes += 1;
        phase.executions += ran_count;
        phase.first = Some(phase.first.map_or(meta.started, |f| f.min(meta.started)));
        phase.last = Some(Instant::now());
        phase.process_time += Duration::from_nanos(records.first().map_or(0, |r| r.wall_ns));
        self.executions += ran_count;
        if let Some(seed) = meta.seed.filter(|_| !self.target.honours_order())
            && ran_count == records.len()
        {
            // Every name ran: the records are the executed order of the whole set asked for.
            let executed: Vec<String> = records.iter().map(|r| r.scenario.clone()).collect();
            self.shuffle.check(&executed, seed, &executed);
        }
        let out = observations(records, &meta);
        if self.interpose.is_some() {
            self.preload.tried += 1;
            if let Some(file) = &meta.records_file {
                self.observe(file, &out);
            }
        }
        Ok(out)
    }

    /// Read the records of one process into per-scenario footprints; the suite child's own
    /// env/cwd snapshots (`env_changes`) count as writes too.
    fn observe(&mut self, records: &Path, out: &[Observation]) {
        let bytes = std::fs::read(records).unwrap_or_default();
        let _ = std::fs::remove_file(records);
        if !super::footprint::loaded(&bytes) {
            return;
        }
        self.preload.loaded += 1;
        let ran: Vec<&Observation> = out.iter().filter(|o| o.ran()).collect();
        let names: Vec<String> = ran.iter().map(|o| o.name.clone()).collect();
        let roots = vec![std::env::temp_dir()];
        let mut process = Vec::new();
        for (o, fp) in ran.iter().zip(split(&bytes, &names, &roots)) {
            let Some(mut fp) = fp else { continue };
            for c in &o.env_changes {
                match (c.name.as_str(), &c.after) {
                    ("<cwd>", Some(dir)) => fp.cwd_left = Some(dir.clone()),
                    ("<cwd>", None) => {}
                    (var, Some(_)) => drop(fp.env_set.insert(var.to_owned())),
                    (var, None) => drop(fp.env_unset.insert(var.to_owned())),
                }
            }
            let shared = match self.distinct.get(&fp) {
                Some(same) => Arc::clone(same),
                None => {
                    let new = Arc::new(fp);
                    self.distinct.insert(Arc::clone(&new));
                    new
                }
            };
            process.push((o.name.clone(), shared));
        }
        self.footprints.push(process);
    }
}

/// A [`Prober`] that several threads use at once, each running one process at a time (the
/// localizations of several scenarios side by side): preparing and taking back a process hold
/// the lock, the process itself runs without it, holding one of the command's slots.
pub struct SharedProber<'p, 'a> {
    inner: Mutex<&'p mut Prober<'a>>,
    target: &'a dyn OrderTarget,
    slots: Arc<Slots>,
}

impl<'p, 'a> SharedProber<'p, 'a> {
    /// Share `prober`.
    pub fn new(prober: &'p mut Prober<'a>) -> Self {
        SharedProber {
            target: prober.target,
            slots: Arc::clone(&prober.slots),
            inner: Mutex::new(prober),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, &'p mut Prober<'a>> {
        // A poisoned lock means another thread panicked, which the scope re-raises anyway.
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The target.
    pub fn target(&self) -> &'a dyn OrderTarget {
        self.target
    }

    /// Whether the budget is spent.
    pub fn spent(&self) -> bool {
        self.lock().spent()
    }

    /// Whether this libtest binary's shuffles are predicted right.
    pub fn shuffles_predicted(&self) -> bool {
        self.lock().shuffle.trusted()
    }

    /// One process running `names`; `None` when the budget is spent (nothing ran).
    pub fn run_once(
        &self,
        names: &[String],
        seed: Option<u64>,
        kind: EvidenceKind,
        purpose: Purpose,
    ) -> Result<Option<Vec<Observation>>, Error> {
        if self.spent() {
            return Ok(None);
        }
        let slot = self.slots.acquire();
        let Prepared { launch, meta } = self.lock().prepare(names, seed, kind, purpose)?;
        let records = Prober::execute(self.target, launch, seed);
        drop(slot);
        self.lock().finish(meta, records).map(Some)
    }
}

/// Split a shared process's observations into those that ran and the names left to continue
/// with, in the relative order `asked` gave them (exact-order targets keep it).
pub fn split_ran(obs: Vec<Observation>, asked: &[String]) -> (Vec<Observation>, Vec<String>) {
    let (ran, not_run): (Vec<Observation>, Vec<Observation>) = obs.into_iter().partition(Observation::ran);
    let not_run: std::collections::HashSet<&str> = not_run.iter().map(|o| o.name.as_str()).collect();
    let left = asked.iter().filter(|n| not_run.contains(n.as_str())).cloned().collect();
    (ran, left)
}

/// One observation per record, each with the executed order before it.
fn observations(records: Vec<RunRecord>, meta: &ProcessMeta) -> Vec<Observation> {
    let executed: Arc<[String]> = records
        .iter()
        .filter(|r| r.outcome.status() != Status::NotRun)
        .map(|r| r.scenario.clone())
        .collect();
    let mut at = 0;
    let mut out = Vec::with_capacity(records.len());
    for r in records {
        let ran = r.outcome.status() != Status::NotRun;
        let output = if ran && r.outcome.is_failure() && !matches!(r.outcome, Outcome::Failed { .. }) {
            tail(&r.stderr, STDERR_TAIL)
        } else {
            String::new()
        };
        out.push(Observation {
            name: r.scenario,
            prefix: if ran { Prefix::of(&executed, at) } else { Prefix::default() },
            outcome: r.outcome,
            metrics: r.metrics,
            env_changes: r.env_changes,
            kind: meta.kind,
            seed: meta.seed,
            output,
            seq: meta.seq,
            wall: Duration::from_nanos(r.wall_ns),
        });
        if ran {
            at += 1;
        }
    }
    out
}

/// Bytes of stderr kept with a crashed scenario's evidence.
const STDERR_TAIL: usize = 2048;

fn tail(s: &str, max: usize) -> String {
    let mut start = s.len().saturating_sub(max);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    s[start..].to_owned()
}
