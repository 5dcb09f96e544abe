//! `Prober`: runs scenarios in shared or isolated processes for detect (through the shared
//! [`Executor`], like every process of every command), continues a shared
//! order after a crash, and counts the processes it spends; [`Observation`] is one scenario's
//! result together with the order that preceded it in its process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::footprint::{Footprint, split};
use super::preload;
use super::subject::OrderTarget;
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};
use crate::execute::{Executor, JobScenario, ProcessJob};
use crate::model::{EnvChange, EvidenceKind, Listed, MetricSample, Outcome, RunCounts, ScenarioKind, Status};

/// One scenario's result in one process, with what ran before it there.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The scenario.
    pub name: String,
    /// Scenarios that ran before it in the same process, in order.
    pub prefix: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// Metrics it reported.
    pub metrics: Vec<MetricSample>,
    /// Env/cwd changes it made.
    pub env_changes: Vec<EnvChange>,
    /// Which kind of run this was.
    pub kind: EvidenceKind,
    /// The shuffle seed, if any.
    pub seed: Option<u64>,
    /// The tail of the process's stderr, kept for a scenario that ended its process.
    pub output: String,
}

impl Observation {
    /// Ran to an outcome (anything but `not_run`).
    pub fn ran(&self) -> bool {
        self.outcome.status() != Status::NotRun
    }

    /// Did not pass (skips and not-run excluded).
    pub fn failed(&self) -> bool {
        self.outcome.is_failure()
    }

    /// What evidence keeps of a failure: the outcome's message and, after a crash, stderr's tail.
    pub fn message(&self) -> Option<String> {
        let m = self.outcome.message()?;
        Some(if self.output.is_empty() {
            m
        } else {
            format!("{m}\n--- stderr (tail) ---\n{}", self.output)
        })
    }

    /// The order up to and including this scenario.
    pub fn order(&self) -> Vec<String> {
        let mut o = self.prefix.clone();
        o.push(self.name.clone());
        o
    }
}

/// What a process is spent on, for [`RunCounts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// One scenario alone.
    Isolated,
    /// A schedule.
    Shared,
    /// Localization and confirmation.
    Localization,
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
    /// What each scenario did to env, cwd and files: per observed process, in run order.
    pub footprints: Vec<Vec<(String, Footprint)>>,
    /// Processes started with the preload, and how many of them showed it loaded.
    pub preload: PreloadCounts,
}

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
    /// `timeout`, start through `executor` and are reported to `events`.
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
            footprints: Vec::new(),
            preload: PreloadCounts::default(),
        }
    }

    /// Preload `lib` (`libharness_interpose.so`) into every process this prober starts.
    pub fn with_interpose(mut self, lib: Option<PathBuf>) -> Self {
        self.interpose = lib;
        self
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

    /// One process running `names` (in this order, or under `seed` for libtest). Results come
    /// back in the order they ran; scenarios that never started are `not_run`, last.
    pub fn run_once(
        &mut self,
        names: &[String],
        seed: Option<u64>,
        kind: EvidenceKind,
        purpose: Purpose,
    ) -> Result<Vec<Observation>, Error> {
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
        };
        let target = self.target;
        // The preload goes into the request only, so the recorded env stays the scenario's own.
        let (lib, mut records_file) = (self.interpose.clone(), None);
        let records = self.executor.run(job, &mut *self.events, |req| match lib {
            Some(lib) => {
                let mut req = req.clone();
                let file = req.scratch.join(format!("{}.rec", req.id));
                preload::add_to(&mut req.env, &lib, &file);
                records_file = Some(file);
                target.run_seeded(&req, seed)
            }
            None => target.run_seeded(req, seed),
        })?;
        match purpose {
            Purpose::Isolated => self.counts.isolated += 1,
            Purpose::Shared => self.counts.shared += 1,
            Purpose::Localization => self.counts.localization += 1,
        }
        self.counts.total += 1;
        let mut prefix = Vec::new();
        let mut out = Vec::with_capacity(records.len());
        for r in records {
            let ran = r.outcome.status() != Status::NotRun;
            let output = if ran && r.outcome.is_failure() && !matches!(r.outcome, Outcome::Failed { .. }) {
                tail(&r.stderr, STDERR_TAIL)
            } else {
                String::new()
            };
            if ran {
                self.executions += 1;
            }
            out.push(Observation {
                name: r.scenario.clone(),
                prefix: if ran { prefix.clone() } else { Vec::new() },
                outcome: r.outcome,
                metrics: r.metrics,
                env_changes: r.env_changes,
                kind,
                seed,
                output,
            });
            if ran {
                prefix.push(r.scenario);
            }
        }
        if self.interpose.is_some() {
            self.preload.tried += 1;
            if let Some(file) = records_file {
                self.observe(&file, &out);
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
            process.push((o.name.clone(), fp));
        }
        self.footprints.push(process);
    }

    /// Run a whole schedule: when a scenario ends the process (crash, timeout, silent exit),
    /// the rest of the order continues in a new process, so one crasher hides no verdicts.
    /// Returns every observation (none `not_run`) and the number of processes used.
    pub fn run_schedule(&mut self, names: &[String], seed: Option<u64>, kind: EvidenceKind) -> Result<(Vec<Observation>, usize), Error> {
        let mut remaining: Vec<String> = names.to_vec();
        let mut all = Vec::new();
        let mut processes = 0;
        while !remaining.is_empty() {
            let obs = self.run_once(&remaining, seed, kind, Purpose::Shared)?;
            processes += 1;
            let (ran, not_run): (Vec<Observation>, Vec<Observation>) = obs.into_iter().partition(Observation::ran);
            if ran.is_empty() {
                break; // no progress: nothing started at all
            }
            // Keep the requested relative order for the remainder (exact-order targets).
            let left: Vec<String> = remaining
                .iter()
                .filter(|n| not_run.iter().any(|o| &o.name == *n))
                .cloned()
                .collect();
            all.extend(ran);
            remaining = left;
        }
        Ok((all, processes))
    }
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
