//! The detect pipeline of one target, in named phases: isolated runs, shared schedules
//! (continuing after crashes, topped up until every ordered pair was seen), then verdicts,
//! localization, value shifts and hazards ([`super::verdicts`]) — one [`DetectEntry`] per
//! scenario. Every process starts through the command's [`Executor`] and is reported on the
//! event seam.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::classify::{Initial, initial};
use super::probe::{Observation, PreloadCounts, Prober, Purpose};
use super::schedule::{
    DEFAULT_ISOLATED, DEFAULT_SHUFFLES, MAX_COVERAGE_SHUFFLES, MIN_ISOLATED_MEASURE, PairCoverage, Schedule, plan, shuffle_schedule,
    shuffle_seeds,
};
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

/// How much detect runs. Defaults: [`DEFAULT_ISOLATED`] isolated runs per check (at least
/// [`MIN_ISOLATED_MEASURE`] per measurement), [`DEFAULT_SHUFFLES`] shuffles.
#[derive(Debug, Clone)]
pub struct DetectConfig {
    /// Isolated runs of each scenario (R).
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
    /// `--counters`: processes holding measurements count them (under valgrind instead of
    /// timing them, so value shifts are judged on counts).
    pub counters: Option<crate::counters::CounterSettings>,
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
            counters: None,
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

/// Phase names, as the progress display shows them.
pub const PHASE_ISOLATED: &str = "isolated";
/// Shared schedules.
pub const PHASE_SHARED: &str = "shared";
/// Verdicts, localization and value shifts.
pub const PHASE_VERDICTS: &str = "verdicts";

/// One env group's observations so far, by scenario.
pub(super) struct GroupRuns {
    pub names: Vec<String>,
    pub kinds: BTreeMap<String, ScenarioKind>,
    pub iso: BTreeMap<String, Vec<Observation>>,
    pub shared: BTreeMap<String, Vec<Observation>>,
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
        }
    }

    pub fn is_measure(&self, name: &str) -> bool {
        self.kinds.get(name) == Some(&ScenarioKind::Measure)
    }

    /// Isolated runs a scenario gets up front: more for a measurement, whose values need them.
    fn isolated_reps(&self, name: &str, cfg: &DetectConfig) -> usize {
        if self.is_measure(name) {
            cfg.isolated.max(MIN_ISOLATED_MEASURE)
        } else {
            cfg.isolated
        }
    }

    /// A scenario that hangs alone every time would cost a full timeout in each schedule.
    fn hangs(&self, name: &str) -> bool {
        let o = &self.iso[name];
        !o.is_empty() && o.iter().all(|o| o.outcome.status() == Status::TimedOut)
    }

    /// A scenario that ends its process every time alone (a crasher) can precede nothing in
    /// one process.
    fn ends_process(&self, name: &str) -> bool {
        let o = &self.iso[name];
        !o.is_empty()
            && o.iter()
                .all(|o| o.failed() && !matches!(o.outcome, crate::model::Outcome::Failed { .. }))
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
    let mut groups: BTreeMap<&BTreeMap<String, String>, Vec<&Listed>> = BTreeMap::new();
    for l in selected {
        groups.entry(&l.env).or_default().push(l);
    }
    let mut out = DetectResult::default();
    let mut pending = Vec::new();
    for (i, group) in groups.into_values().enumerate() {
        if cfg.partition.is_some_and(|p| (cfg.groups_before + i) % p.count != p.index - 1) {
            continue;
        }
        let mut prober = Prober::new(target, &group, cfg.timeout, executor, events).with_interpose(cfg.interpose.clone());
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

/// One env group, in three phases: isolated runs, shared schedules, verdicts.
fn detect_group(
    prober: &mut Prober<'_>,
    group: &[&Listed],
    cfg: &DetectConfig,
    seed: u64,
    out: &mut DetectResult,
    pending: &mut Vec<PendingShift>,
) -> Result<(), Error> {
    let mut runs = GroupRuns::new(group);
    isolated_phase(prober, &mut runs, cfg)?;
    shared_phase(prober, &mut runs, cfg, seed, &mut out.schedules)?;
    prober.phase_started(PHASE_VERDICTS, 0)?;
    let first = out.entries.len();
    let mut entries = judge_all(prober, &mut runs, seed, first, pending)?;
    super::mechanism::attribute(&mut entries, &prober.footprints);
    out.entries.extend(entries);
    prober.phase_finished(PHASE_VERDICTS)
}

/// 1. Isolated runs: the trusted reference, round-robin over the scenarios.
fn isolated_phase(prober: &mut Prober<'_>, runs: &mut GroupRuns, cfg: &DetectConfig) -> Result<(), Error> {
    let reps: Vec<usize> = runs.names.iter().map(|n| runs.isolated_reps(n, cfg)).collect();
    prober.phase_started(PHASE_ISOLATED, reps.iter().sum())?;
    let most = reps.iter().copied().max().unwrap_or(0);
    for rep in 0..most {
        for (i, name) in runs.names.iter().enumerate() {
            if reps[i] > rep {
                run_isolated(prober, name, &mut runs.iso)?;
            }
        }
    }
    prober.phase_finished(PHASE_ISOLATED)
}

/// 2. Shared schedules: the original order, its reverse and shuffles, continuing after a crash
///    and topped up until every ordered pair was seen (bounded). A scenario that hangs alone is
///    left out (its verdict is `fail` from isolated runs); pairs a crasher would start are not
///    asked of the coverage.
fn shared_phase(
    prober: &mut Prober<'_>,
    runs: &mut GroupRuns,
    cfg: &DetectConfig,
    seed: u64,
    records: &mut Vec<ScheduleRecord>,
) -> Result<(), Error> {
    let honours = prober.target().honours_order();
    let in_shared: Vec<String> = runs.names.iter().filter(|n| !runs.hangs(n)).cloned().collect();
    let enders: Vec<String> = in_shared.iter().filter(|n| runs.ends_process(n)).cloned().collect();
    let mut coverage = PairCoverage::new(&in_shared);
    coverage.exclude_first(&enders);
    let mut schedules: Vec<Schedule> = if in_shared.len() > 1 {
        plan(&in_shared, honours, seed, cfg.shuffles)
    } else {
        vec![]
    };
    prober.phase_started(PHASE_SHARED, schedules.len())?;
    let mut extra = 0;
    let mut i = 0;
    while i < schedules.len() {
        let s = schedules[i].clone();
        let (obs, _) = prober.run_schedule(&s.order, s.seed.filter(|_| !honours), s.kind)?;
        records.push(ScheduleRecord {
            kind: s.kind_name().to_owned(),
            seed: s.seed,
            order: obs.iter().map(|o| o.name.clone()).collect(),
            binary: None,
        });
        for mut o in obs {
            o.seed = s.seed;
            coverage.add_prefix(&o.prefix, &o.name);
            if let Some(v) = runs.shared.get_mut(&o.name) {
                v.push(o);
            }
        }
        i += 1;
        // Top up: a crash splits a schedule into processes, and libtest has no reverse, so some
        // ordered pairs may be unseen; add shuffles until every one was seen (bounded).
        if i == schedules.len() && coverage.missing() > 0 && extra < MAX_COVERAGE_SHUFFLES {
            let s = shuffle_seeds(seed, 1, cfg.shuffles + extra)[0];
            schedules.push(shuffle_schedule(&in_shared, s, honours));
            extra += 1;
        }
    }
    prober.phase_finished(PHASE_SHARED)
}

pub(super) fn classify(iso: &[Observation], shared: &[Observation]) -> Initial {
    initial(&iso.iter().collect::<Vec<_>>(), &shared.iter().collect::<Vec<_>>())
}

pub(super) fn run_isolated(prober: &mut Prober<'_>, name: &str, iso: &mut BTreeMap<String, Vec<Observation>>) -> Result<(), Error> {
    let obs = prober.run_once(&[name.to_owned()], None, EvidenceKind::Isolated, Purpose::Isolated)?;
    if let (Some(o), Some(v)) = (obs.into_iter().find(|o| o.name == name), iso.get_mut(name)) {
        v.push(o);
    }
    Ok(())
}
