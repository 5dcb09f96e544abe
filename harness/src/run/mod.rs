//! The `run` pipeline: plan jobs, execute them in fresh processes through the shared
//! [`Executor`], summarise, and emit [`RunEvent`]s to reporters.
//!
//! May import `plan`, `execute`, `events`, `model`, `stats`; never `cli`, `report`, `detect` or
//! `compare`.

mod full_speed;
mod resume;
mod scheduler;
pub mod speed_memory;

pub use scheduler::{Scheduler, SchedulerConfig};

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::clock;
use crate::counters::CounterSettings;
use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};
use crate::execute::{ExecConfig, Executor, Target};
use crate::model::{Listed, PlanInfo, ResultsFile, RunMeta, RunRecord, ScenarioKind};
use crate::plan::{self, CountedPlan, SeededOrder};
use crate::stats;

/// Validated options of one `run`.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Isolated processes per check.
    pub repeat_checks: usize,
    /// Isolated processes per measurement (the minimum when `target_ci` is set).
    pub repeat_measures: usize,
    /// Measured iterations per process.
    pub iterations: usize,
    /// Warm-up iterations per process.
    pub warmup: usize,
    /// Seed of the order.
    pub seed: u64,
    /// Default per-process timeout.
    pub timeout: Option<Duration>,
    /// Parallel workers for checks.
    pub test_threads: usize,
    /// Let measurements overlap other processes.
    pub parallel_measurements: bool,
    /// Target relative half-width of each measurement's 95% interval (0.02 = 2%).
    pub target_ci: Option<f64>,
    /// Cap on processes per measurement under `target_ci` and `min_time` (processes left out for
    /// a slowed machine count up to as many again: `full_speed.rs`).
    pub max_repeat: usize,
    /// Spread each measurement's processes over at least this long (`--min-time`): rounds of
    /// more processes, shuffled among the others, until the run has lasted it.
    pub min_time: Option<Duration>,
    /// Directory for scratch files (captured output, result channels).
    pub scratch: PathBuf,
    /// The command line that reproduces this run.
    pub command: Vec<String>,
    /// Run only this shard of the plan (`--partition K/N`).
    pub partition: Option<plan::Partition>,
    /// Continue an interrupted run (`--resume DIR`).
    pub resume: Option<Resume>,
    /// GPU sample rules for the suite's GPU measurements (`None`: the defaults).
    pub gpu: Option<crate::model::GpuSettings>,
    /// `--counters`: the source and its calls per counting process.
    pub counters: Option<CounterSettings>,
    /// Counting processes per measurement where they are separate (valgrind).
    pub counter_processes: usize,
    /// The file that remembers the machine's full speed across runs of this boot
    /// (`speed_memory.rs`); `None`: judge a run against itself only.
    pub speed_memory: Option<PathBuf>,
    /// The output directory, named in the memory as the run that met its speed.
    pub out: PathBuf,
}

/// What an interrupted run left: its start time, plan and finished runs.
#[derive(Debug, Clone)]
pub struct Resume {
    /// The directory it ran in (named in errors).
    pub dir: PathBuf,
    /// Its start time, kept so the resumed run is the same run (e.g. in the history).
    pub started_at: String,
    /// Its plan, if its harness recorded one.
    pub plan: Option<PlanInfo>,
    /// Its finished runs; their processes are not run again.
    pub records: Vec<RunRecord>,
}

/// The phase every `run` process belongs to.
pub const PHASE: &str = "run";

/// Run `selected` scenarios of `target`, emitting events to `events`.
pub fn run(target: &dyn Target, selected: &[Listed], config: &RunConfig, events: &mut dyn Reporter) -> Result<ResultsFile, Error> {
    let started = SystemTime::now();
    let mut order = SeededOrder::new(config.seed);
    let counted = CountedPlan::of(config.counters.as_ref(), config.counter_processes);
    let all = plan::jobs(
        selected,
        config.repeat_checks,
        config.repeat_measures,
        counted.at_first(),
        CountedPlan::allocs_beside(config.counters.as_ref(), config.counter_processes),
        config.timeout,
        &mut order,
    );
    let plan_info = PlanInfo {
        fingerprint: plan::fingerprint(config.seed, config.iterations, config.warmup, &all),
        total_jobs: all.len(),
        partition: config.partition.map(|p| p.to_string()),
        shards: Vec::new(),
    };
    let jobs = match config.partition {
        Some(p) => p.select(all),
        None => all,
    };
    // The order this run (or shard) plans, before a resume drops what is already done.
    let mut meta = run_meta(target, config, selected, &jobs, started);
    meta.plan = Some(plan_info.clone());
    meta.remembered_full_speed = config.speed_memory.as_deref().and_then(|f| speed_memory::read(f, &meta.host));
    let remembered = meta.remembered_full_speed.as_ref().map(|m| m.probe_ns);
    let (jobs, prior) = match &config.resume {
        Some(r) => resume::remaining(r, &plan_info, jobs)?,
        None => (jobs, Vec::new()),
    };
    events.on_event(&RunEvent::Started {
        meta: &meta,
        total: jobs.len(),
    })?;
    events.on_event(&RunEvent::PhaseStarted {
        name: PHASE,
        planned: jobs.len(),
    })?;
    let executor = Executor::new(ExecConfig {
        iterations: config.iterations,
        warmup: config.warmup,
        scratch: config.scratch.clone(),
        seed: config.seed,
        gpu: config.gpu,
        counters: config.counters.clone(),
    });
    let sched = SchedulerConfig {
        test_threads: config.test_threads,
        parallel_measurements: config.parallel_measurements,
        counted_apart: matches!(counted, CountedPlan::Separate(_)),
    };
    let executor = executor.starting_at(prior.iter().map(|r| r.run_index + 1).max().unwrap_or(0));
    let mut scheduler = Scheduler::new(target, sched, executor);
    let mut records: Vec<RunRecord> = prior;
    let measuring_since = std::time::Instant::now();
    let mut batch = jobs;
    for round in 0.. {
        records.extend(scheduler.execute(batch, events)?);
        batch = if round == 0 {
            more_counting(selected, &records, counted, config.counters.as_ref(), config.timeout)
        } else {
            Vec::new()
        };
        let spread = match config.min_time {
            Some(t) => spread_runs(selected, &records, t, measuring_since.elapsed(), config, counted),
            None => Vec::new(),
        };
        if !spread.is_empty() {
            batch.extend(spread);
        } else if let Some(target_ci) = config.target_ci {
            batch.extend(more_runs(selected, &records, target_ci, config.max_repeat, config.timeout, counted));
        }
        // Once the adaptive rounds are done: rows with too few processes at full speed (a slowed
        // machine) to stand for them; never where `--repeat` alone set the count.
        if batch.is_empty() && (config.target_ci.is_some() || config.min_time.is_some()) {
            batch.extend(full_speed::more_at_full_speed(
                selected,
                &records,
                remembered,
                config.max_repeat,
                config.timeout,
                counted,
            ));
        }
        if batch.is_empty() || round >= 64 {
            break;
        }
        order.shuffle(&mut batch);
        events.on_event(&RunEvent::Planned { added: batch.len() })?;
    }
    events.on_event(&RunEvent::PhaseFinished { name: PHASE })?;
    records.sort_by_key(|r| r.run_index);
    meta.finished_at = clock::rfc3339(SystemTime::now());
    crate::host::finish(&mut meta.host);
    if let Some(file) = &config.speed_memory {
        // Never fatal: the memory only lets later runs flag more.
        if let Err(e) = speed_memory::remember(file, &records, meta.remembered_full_speed.as_ref(), &meta.host, &config.out) {
            eprintln!("warning: could not remember this run's full speed in {}: {e}", file.display());
        }
    }
    let results = ResultsFile {
        summaries: crate::model::summarize_remembering(&records, remembered),
        meta,
        runs: records,
    };
    events.on_event(&RunEvent::Finished(Done::Run(&results)))?;
    Ok(results)
}

fn run_meta(target: &dyn Target, config: &RunConfig, selected: &[Listed], jobs: &[plan::Job], started: SystemTime) -> RunMeta {
    RunMeta {
        order: first_occurrence_order(jobs.iter().map(|j| j.scenario.as_str())),
        target_ci: config.target_ci,
        min_time_s: config.min_time.map(|t| t.as_secs_f64()),
        test_threads: config.test_threads,
        counters: config.counters.as_ref().map(|c| c.meta(config.counter_processes, selected)),
        ..RunMeta::started(
            target.describe(),
            config.command.clone(),
            config.seed,
            config.repeat_measures,
            config.iterations,
            config.warmup,
            config
                .resume
                .as_ref()
                .map_or_else(|| clock::rfc3339(started), |r| r.started_at.clone()),
            crate::host::collect(),
        )
    }
}

fn first_occurrence_order<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names.filter(|n| seen.insert(*n)).map(str::to_owned).collect()
}

/// Under `--target-ci`: for each measurement whose widest metric interval is still wider than
/// the target, half as many runs again as it has (at least 2), up to `max_repeat` in all.
/// The counting processes a scenario still gets after the first round: none where every
/// counting process so far counted every metric alike (exact: more processes would repeat the
/// same numbers), the rest of `--counter-processes` where they differ or one failed.
fn more_counting(
    selected: &[Listed],
    records: &[RunRecord],
    counted: CountedPlan,
    settings: Option<&CounterSettings>,
    timeout: Option<Duration>,
) -> Vec<plan::Job> {
    let CountedPlan::Separate(want) = counted else {
        return Vec::new();
    };
    let mut jobs = Vec::new();
    for l in selected.iter().filter(|l| l.kind == ScenarioKind::Measure && l.uncounted.is_none()) {
        let mine: Vec<&RunRecord> = records.iter().filter(|r| r.scenario == l.name).collect();
        // The source's own processes: with --allocs beside --counters the allocation ones (all
        // --counter-processes of them, planned at once) are not the other source's.
        let by = settings.map(|c| c.source.label());
        let counting: Vec<&&RunRecord> = mine.iter().filter(|r| r.counted_by.is_some() && r.counted_by == by).collect();
        // A skipped count (a routine that times itself) is skipped in every process.
        let skipped = counting.iter().any(|r| matches!(r.outcome, crate::model::Outcome::Skipped { .. }));
        if counting.len() >= want || skipped || (counting.len() >= 2 && crate::counters::counted_alike(counting.iter().map(|r| **r))) {
            continue;
        }
        let first = mine.iter().map(|r| r.repetition + 1).max().unwrap_or(0);
        jobs.extend((first..first + want - counting.len()).map(|repetition| plan::Job {
            scenario: l.name.clone(),
            kind: l.kind,
            env: l.env.clone(),
            repetition,
            timeout: l.timeout.or(timeout),
            counted: true,
            allocs: false,
        }));
    }
    jobs
}

fn more_runs(
    selected: &[Listed],
    records: &[RunRecord],
    target_ci: f64,
    max_repeat: usize,
    timeout: Option<Duration>,
    counted: CountedPlan,
) -> Vec<plan::Job> {
    let mut jobs = Vec::new();
    for l in selected.iter().filter(|l| l.kind == ScenarioKind::Measure) {
        let mine = timed_runs(records, &l.name);
        let n = mine.len();
        if n >= max_repeat || ended_early(&mine) {
            continue;
        }
        let widest = widest_rel_half_width(&mine);
        if widest.is_some_and(|w| w <= target_ci) {
            continue;
        }
        let add = (n / 2).max(2).min(max_repeat - n);
        jobs.extend(repeats(l, records, add, timeout, counted));
    }
    jobs
}

/// A measurement's wall-time processes: counting ones (valgrind) are few and fixed, and more
/// processes are added for wall time only.
fn timed_runs<'r>(records: &'r [RunRecord], name: &str) -> Vec<&'r RunRecord> {
    records.iter().filter(|r| r.scenario == name && r.counted_by.is_none()).collect()
}

/// A process failed or skipped: more of them would not make a number.
fn ended_early(runs: &[&RunRecord]) -> bool {
    runs.iter()
        .any(|r| r.outcome.is_failure() || matches!(r.outcome, crate::model::Outcome::Skipped { .. }))
}

/// `add` more processes of measurement `l`, numbered after every earlier process of it
/// (counting ones included).
fn repeats(
    l: &Listed,
    records: &[RunRecord],
    add: usize,
    timeout: Option<Duration>,
    counted: CountedPlan,
) -> impl Iterator<Item = plan::Job> {
    let first = records
        .iter()
        .filter(|r| r.scenario == l.name)
        .map(|r| r.repetition + 1)
        .max()
        .unwrap_or(0);
    (first..first + add).map(move |repetition| plan::Job {
        scenario: l.name.clone(),
        kind: l.kind,
        env: l.env.clone(),
        repetition,
        timeout: l.timeout.or(timeout),
        counted: counted == CountedPlan::InProcess && l.uncounted.is_none(),
        allocs: false,
    })
}

/// Under `--min-time`: while the run has lasted less than `min_time`, as many more processes per
/// measurement (up to `max_repeat`) as the time left holds at the run's pace so far. They are
/// shuffled among each other, so every measurement's processes span the whole run: a machine
/// whose speed changes over seconds (docs/criterion.md: one VM's processes ran at two speeds
/// 1.7x apart, switching within seconds) shows as processes that disagree, not as a number from
/// one moment.
fn spread_runs(
    selected: &[Listed],
    records: &[RunRecord],
    min_time: Duration,
    elapsed: Duration,
    config: &RunConfig,
    counted: CountedPlan,
) -> Vec<plan::Job> {
    let Some(left) = min_time.checked_sub(elapsed).filter(|d| !d.is_zero()) else {
        return Vec::new();
    };
    let measures: Vec<&Listed> = selected.iter().filter(|l| l.kind == ScenarioKind::Measure).collect();
    let ran = records.iter().filter(|r| r.kind == ScenarioKind::Measure).count();
    if measures.is_empty() || ran == 0 {
        return Vec::new();
    }
    // Seconds one round (a process of every measurement) takes at the pace so far.
    let round = elapsed.as_secs_f64() / ran as f64 * measures.len() as f64;
    let rounds = (left.as_secs_f64() / round.max(1e-9)).ceil() as usize;
    let mut jobs = Vec::new();
    for l in measures {
        let mine = timed_runs(records, &l.name);
        if ended_early(&mine) {
            continue;
        }
        let add = rounds.min(config.max_repeat.saturating_sub(mine.len()));
        jobs.extend(repeats(l, records, add, config.timeout, counted));
    }
    jobs
}

fn widest_rel_half_width(runs: &[&RunRecord]) -> Option<f64> {
    let first = runs.first()?;
    let mut widest: Option<f64> = None;
    for m in &first.metrics {
        let values: Vec<f64> = runs.iter().filter_map(|r| r.metric(&m.name)).map(|s| s.value).collect();
        let Ok(s) = stats::summarize(&values, None, m.unit.is_ratio_scale(), 0.95) else {
            return None;
        };
        if s.exact {
            continue;
        }
        let w = s.rel_half_width?;
        widest = Some(widest.map_or(w, |x: f64| x.max(w)));
    }
    widest.or(Some(0.0))
}
