//! The detect pipeline of one target, in named phases: isolated runs and shared schedules side
//! by side ([`super::gather`]: continuing after crashes, topped up until every ordered pair was
//! seen), then verdicts, localization, value shifts and hazards ([`super::verdicts`]) — one
//! [`DetectEntry`] per scenario. Every process starts through the command's [`Executor`] and is
//! reported on the event seam.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::classify::{Initial, initial};
use super::coverage::PairCoverage;
use super::libtest_shuffle::ShuffleTrust;
use super::pool::{Slots, Task};
use super::probe::{Observation, PhaseTime, PreloadCounts, Prober, Purpose};
use super::schedule::{DEFAULT_ISOLATED, DEFAULT_SHUFFLES, MIN_ISOLATED_MEASURE};
use super::subject::OrderTarget;
use super::values::{ALPHA, ShiftTest};
use super::verdicts::judge_all;
use crate::errors::Error;
use crate::events::Reporter;
use crate::execute::{ExecConfig, Executor};
use crate::model::{DetectEntry, EvidenceKind, Listed, RunCounts, ScenarioKind, ScheduleRecord, Status, ValueShift};
use crate::stats::benjamini_hochberg;

/// Smallest value shift reported, in percent: the whole 95% interval must lie beyond it. On the
/// 2-core development machine (2026-12-02) in-suite sampling runs were 3.5-6.7% faster than
/// isolated ones with no culprit (a warm process); the frozen-knob case this exists for moves a
/// value by 10x.
pub const SHIFT_FLOOR_PCT: f64 = 10.0;

/// How much detect runs. Defaults: [`DEFAULT_ISOLATED`] isolated run per check up front (at
/// least [`MIN_ISOLATED_MEASURE`] per measurement), [`DEFAULT_SHUFFLES`] shuffles, one process
/// per core, no budget.
#[derive(Debug, Clone)]
pub struct DetectConfig {
    /// Isolated runs of each scenario up front (R); more follow for those that fail or shift.
    pub isolated: usize,
    /// Seeded shuffles on top of the original order and its reverse (K).
    pub shuffles: usize,
    /// Seed every shuffle and libtest probe seed derives from.
    pub seed: u64,
    /// Bound on every process.
    pub timeout: Option<Duration>,
    /// Measured iterations per measurement process.
    pub iterations: usize,
    /// Warm-up iterations per measurement process.
    pub warmup: usize,
    /// Scratch directory for process output.
    pub scratch: PathBuf,
    /// Detect only the env groups of this shard (`--partition K/N`): groups, counted across
    /// every target in order, go round-robin to the shards.
    pub partition: Option<crate::plan::Partition>,
    /// How many env groups the targets before this one had (set by `run_detect`).
    pub groups_before: usize,
    /// `libharness_interpose.so`, preloaded into every process to see env/cwd/file effects.
    pub interpose: Option<PathBuf>,
    /// Whether the interposer was asked for (not `--no-interpose`), found or not.
    pub interpose_requested: bool,
    /// Processes side by side at most, over every target (a target with a measurement runs
    /// one process at a time).
    pub jobs: usize,
    /// `--budget`: no process starts once this much time has passed since the command started.
    pub budget: Option<Duration>,
    /// When the budget is spent (set by `run_detect`, or by [`detect`] from `budget`).
    pub deadline: Option<Instant>,
    /// A scenario that takes at least this long alone, and longer than all the others together,
    /// runs in two shared orders (one that runs it last, one first) instead of every shuffle.
    pub long_test: Duration,
    /// `--counters`: processes holding measurements count them (under valgrind instead of
    /// timing them, so value shifts are judged on counts).
    pub counters: Option<crate::counters::CounterSettings>,
    /// The user's backtrace setting (`RUST_BACKTRACE`, ...) where it asks for one: every
    /// screening run goes without, one final run per finding has it ([`super::backtrace`]).
    pub backtrace: Vec<(String, String)>,
}

impl DetectConfig {
    /// The defaults, with `seed` and `scratch`.
    pub fn new(seed: u64, scratch: PathBuf) -> Self {
        DetectConfig {
            isolated: DEFAULT_ISOLATED,
            shuffles: DEFAULT_SHUFFLES,
            seed,
            timeout: Some(Duration::from_secs(60)),
            iterations: 10,
            warmup: 2,
            scratch,
            partition: None,
            groups_before: 0,
            interpose: None,
            interpose_requested: false,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            budget: None,
            deadline: None,
            long_test: Duration::from_secs(1),
            counters: None,
            backtrace: Vec::new(),
        }
    }
}

/// Everything detect found in one target.
#[derive(Debug, Clone, Default)]
pub struct DetectResult {
    /// One entry per scenario, in listing order.
    pub entries: Vec<DetectEntry>,
    /// The shared schedules that ran.
    pub schedules: Vec<ScheduleRecord>,
    /// Processes spent.
    pub counts: RunCounts,
    /// Scenario executions (a shared process of n scenarios counts n).
    pub executions: usize,
    /// Processes started with the interposer preloaded, and how many showed it loaded.
    pub preload: PreloadCounts,
    /// Processes and times per phase.
    pub phases: BTreeMap<Purpose, PhaseTime>,
    /// libtest: shuffled runs whose order was predicted right, and those it was not.
    pub shuffle: ShuffleTrust,
    /// Findings left without a backtrace run past `backtrace::MAX_BACKTRACES`.
    pub backtraces_skipped: usize,
}

impl DetectConfig {
    /// The executor of one detect command: its processes' iterations, scratch and padding seed.
    pub fn executor(&self) -> Executor {
        Executor::new(ExecConfig {
            iterations: self.iterations,
            warmup: self.warmup,
            scratch: self.scratch.clone(),
            seed: self.seed,
            gpu: None,
            counters: self.counters.clone(),
        })
    }
}

/// A value comparison waiting for the Benjamini-Hochberg adjustment.
pub(super) struct PendingShift {
    pub entry: usize,
    pub metric: String,
    pub test: ShiftTest,
    pub culprits: Vec<String>,
}

/// Verdicts, localization and value shifts.
pub const PHASE_VERDICTS: &str = "verdicts";

/// One env group's observations so far, by scenario.
pub(super) struct GroupRuns {
    pub names: Vec<String>,
    pub kinds: BTreeMap<String, ScenarioKind>,
    /// Runs alone.
    pub iso: BTreeMap<String, Vec<Observation>>,
    /// Runs in a shared process: the schedules, and localization's runs of several scenarios.
    pub shared: BTreeMap<String, Vec<Observation>>,
    /// The budget was spent before the first two phases finished.
    pub cut: bool,
    /// Processes of the first two phases the budget left unstarted.
    pub unrun: Vec<Task>,
    /// Which ordered pairs the shared orders showed.
    pub coverage: Option<PairCoverage>,
    /// Timed out somewhere in the first two phases (left out of later shared orders).
    pub hung: BTreeSet<String>,
}

impl GroupRuns {
    fn new(group: &[&Listed]) -> Self {
        let names: Vec<String> = group.iter().map(|l| l.name.clone()).collect();
        let iso: BTreeMap<String, Vec<Observation>> = names.iter().map(|n| (n.clone(), Vec::new())).collect();
        GroupRuns {
            kinds: group.iter().map(|l| (l.name.clone(), l.kind)).collect(),
            shared: iso.clone(),
            iso,
            names,
            cut: false,
            unrun: Vec::new(),
            coverage: None,
            hung: BTreeSet::new(),
        }
    }

    pub fn is_measure(&self, name: &str) -> bool {
        self.kinds.get(name) == Some(&ScenarioKind::Measure)
    }

    /// Isolated runs a scenario gets up front: more for a measurement, whose values need them.
    pub fn isolated_reps(&self, name: &str, cfg: &DetectConfig) -> usize {
        if self.is_measure(name) {
            cfg.isolated.max(MIN_ISOLATED_MEASURE)
        } else {
            cfg.isolated
        }
    }

    /// A scenario that ends its process every time alone (a crasher) can precede nothing in
    /// one process.
    pub fn ends_process(&self, name: &str) -> bool {
        let o = &self.iso[name];
        !o.is_empty() && o.iter().all(Observation::ended_process)
    }

    /// Observations in the order their processes were prepared: processes that ran side by side
    /// finish in any order, and nothing downstream may depend on which finished first.
    pub fn sort_by_process(&mut self) {
        for v in self.iso.values_mut().chain(self.shared.values_mut()) {
            v.sort_by_key(|o| o.seq);
        }
    }

    /// Keep what a localization or confirmation process of several scenarios showed about each.
    pub fn absorb(&mut self, observations: Vec<Observation>) {
        for o in observations {
            if o.ran()
                && matches!(o.kind, EvidenceKind::Localize | EvidenceKind::Confirm)
                && let Some(v) = self.shared.get_mut(&o.name)
            {
                v.push(o);
            }
        }
    }
}

/// Detect order dependence among `selected` scenarios of `target`, starting every process
/// through `executor` and reporting it to `events`. Variants with different env-matrix values
/// never share a process: each env group is its own universe, and the unit `--partition`
/// shards (a polluter and its victim always share a group, so sharding loses no pair).
pub fn detect(
    target: &dyn OrderTarget,
    selected: &[Listed],
    cfg: &DetectConfig,
    executor: &mut Executor,
    events: &mut dyn Reporter,
) -> Result<DetectResult, Error> {
    let mut cfg = cfg.clone();
    if cfg.deadline.is_none() {
        cfg.deadline = cfg.budget.map(|b| Instant::now() + b);
    }
    detect_with(target, selected, &cfg, executor, events, &Arc::new(Slots::new(cfg.jobs)))
}

/// [`detect`] holding `slots` (shared by every target of the command) for each process.
pub(super) fn detect_with(
    target: &dyn OrderTarget,
    selected: &[Listed],
    cfg: &DetectConfig,
    executor: &mut Executor,
    events: &mut dyn Reporter,
    slots: &Arc<Slots>,
) -> Result<DetectResult, Error> {
    let mut groups: BTreeMap<&BTreeMap<String, String>, Vec<&Listed>> = BTreeMap::new();
    for l in selected {
        groups.entry(&l.env).or_default().push(l);
    }
    // A measurement runs alone: nothing beside it, so its values are not another process's.
    let workers = if selected.iter().any(|l| l.kind == ScenarioKind::Measure) {
        1
    } else {
        cfg.jobs
    };
    let mut out = DetectResult::default();
    let mut pending = Vec::new();
    for (i, group) in groups.into_values().enumerate() {
        if cfg.partition.is_some_and(|p| (cfg.groups_before + i) % p.count != p.index - 1) {
            continue;
        }
        let mut prober = Prober::new(target, &group, cfg.timeout, executor, events)
            .with_interpose(cfg.interpose.clone())
            .with_workers(workers, Arc::clone(slots))
            .with_deadline(cfg.deadline);
        prober.backtrace = cfg.backtrace.clone();
        let group_seed = cfg.seed.wrapping_add(i as u64);
        detect_group(&mut prober, &group, cfg, group_seed, &mut out, &mut pending)?;
        let c = &prober.counts;
        out.counts.isolated += c.isolated;
        out.counts.shared += c.shared;
        out.counts.localization += c.localization;
        out.counts.total += c.total;
        out.executions += prober.executions;
        out.preload.tried += prober.preload.tried;
        out.preload.loaded += prober.preload.loaded;
        out.shuffle.matched += prober.shuffle.matched;
        out.shuffle.differed += prober.shuffle.differed;
        for (purpose, t) in &prober.phases {
            out.phases.entry(*purpose).or_default().merge(t);
        }
    }
    adjust_value_shifts(&mut out.entries, pending);
    // Listing order across env groups.
    let rank: BTreeMap<&str, usize> = selected.iter().enumerate().map(|(i, l)| (l.name.as_str(), i)).collect();
    out.entries
        .sort_by_key(|e| rank.get(e.name.as_str()).copied().unwrap_or(usize::MAX));
    Ok(out)
}

/// Benjamini-Hochberg across every value comparison; a shift is reported when significant and
/// large: the whole interval beyond the floor. A warmed process runs a few percent faster than a
/// cold one with no culprit at all; that is not what detect hunts.
fn adjust_value_shifts(entries: &mut [DetectEntry], pending: Vec<PendingShift>) {
    let adjusted = benjamini_hochberg(&pending.iter().map(|p| p.test.p_value).collect::<Vec<_>>());
    for (p, q) in pending.into_iter().zip(adjusted) {
        let beyond = p.test.low_pct > SHIFT_FLOOR_PCT || p.test.high_pct < -SHIFT_FLOOR_PCT;
        if q < ALPHA && beyond {
            entries[p.entry].value_shifts.push(ValueShift {
                metric: p.metric,
                shift_pct: p.test.shift_pct,
                low_pct: p.test.low_pct,
                high_pct: p.test.high_pct,
                p_adjusted: q,
                culprits: p.culprits,
            });
        }
    }
}

/// One env group, in three phases: isolated runs beside shared schedules, then verdicts.
fn detect_group(
    prober: &mut Prober<'_>,
    group: &[&Listed],
    cfg: &DetectConfig,
    seed: u64,
    out: &mut DetectResult,
    pending: &mut Vec<PendingShift>,
) -> Result<(), Error> {
    let mut runs = GroupRuns::new(group);
    out.schedules.extend(super::gather::gather(prober, &mut runs, cfg, seed)?);
    prober.phase_started(PHASE_VERDICTS, 0)?;
    let first = out.entries.len();
    let mut entries = judge_all(prober, &mut runs, seed, first, pending)?;
    super::mechanism::attribute(&mut entries, &prober.footprints);
    out.backtraces_skipped += super::backtrace::final_runs(prober, &mut entries)?;
    out.entries.extend(entries);
    prober.phase_finished(PHASE_VERDICTS)
}

pub(super) fn classify(iso: &[Observation], shared: &[Observation]) -> Initial {
    initial(&iso.iter().collect::<Vec<_>>(), &shared.iter().collect::<Vec<_>>())
}

/// Whether a scenario timed out in every run alone (it then needs no more runs to be `fail`).
pub(super) fn hangs_alone(iso: &[Observation]) -> bool {
    !iso.is_empty() && iso.iter().all(|o| o.outcome.status() == Status::TimedOut)
}
