//! The `detect` command on the event seam: select each target's scenarios, run [`detect`] on
//! each through one [`Executor`](crate::execute::Executor), merge the entries, and emit the
//! findings and [`Done::Detect`]; the files and the terminal summary are reporters.
//!
//! May import `execute`, `events`, `model`, `plan`, `stats`, `report`'s writers; never `cli`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use super::pipeline::{DetectConfig, DetectResult, detect_with};
use super::pool::Slots;
use super::probe::{PhaseTime, Purpose};
use super::subject::OrderTarget;
use crate::clock;
use crate::errors::Error;
use crate::events::{Done, Finding, Reporter, RunEvent};
use crate::execute::Executor;
use crate::model::{DETECT_FORMAT_VERSION, DetectEntry, DetectRun, Listed, OrderVerdict, PhaseRecord, RunCounts, RunMeta, ScenarioKind};
use crate::plan::Selection;

/// What `detect` found.
#[derive(Debug, Clone)]
pub struct DetectOutcome {
    /// One entry per scenario (`detect.json`).
    pub entries: Vec<DetectEntry>,
    /// The run facts (`detect-run.json`).
    pub run: DetectRun,
}

impl DetectOutcome {
    /// Whether anything but `pass` was found (a verdict or a value shift).
    pub fn found_anything(&self) -> bool {
        self.entries
            .iter()
            .any(|e| e.verdict != OrderVerdict::Pass || !e.value_shifts.is_empty())
    }
}

/// Run `detect` on every target's selected scenarios; `command` reproduces it.
pub fn run_detect(
    targets: &[Box<dyn OrderTarget>],
    selection: &Selection,
    config: &DetectConfig,
    command: Vec<String>,
    events: &mut dyn Reporter,
) -> Result<DetectOutcome, Error> {
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut config = config.clone();
    config.deadline = config.budget.map(|b| clock + b);
    let config = &config;
    let chosen = select(targets, selection)?;
    let mut run = detect_run(targets, config, command, started);
    let meta = start_meta(&run, config);
    events.on_event(&RunEvent::Started { meta: &meta, total: 0 })?;
    let executor = config.executor();
    let several = targets.len() > 1;
    let results = detect_targets(&chosen, config, &executor, events)?;
    let mut phases: BTreeMap<Purpose, PhaseTime> = BTreeMap::new();
    for r in &results {
        for (p, t) in &r.phases {
            phases.entry(*p).or_default().merge(t);
        }
    }
    run.phases = phase_records(&phases, clock);
    let mut entries = Vec::new();
    for ((target, _), mut r) in chosen.iter().zip(results) {
        let label = target.cargo_label();
        super::reproduce::attach(&mut r.entries, *target);
        if let Some(n) = super::preload::outcome_note(&target.describe(), r.preload) {
            eprintln!("detect: {n}");
            run.notes.push(n);
        }
        if let Some(n) = shuffle_note(&target.describe(), r.shuffle, r.counts.localization > 0) {
            run.notes.push(n);
        }
        if r.backtraces_skipped > 0 {
            run.notes.push(format!(
                "{}: the first {} findings got a run with your backtrace setting; {} more have only their reproduce \
                 line, which asks for one",
                target.describe(),
                super::backtrace::MAX_BACKTRACES,
                r.backtraces_skipped
            ));
        }
        let binary = label.as_ref().map(|l| l.1.clone()).or_else(|| several.then(|| target.describe()));
        merge(&mut entries, &mut run, r, binary, label.map(|l| l.0));
    }
    unlabel_unique(&mut entries);
    run.unknown = entries.iter().filter(|e| e.verdict == OrderVerdict::Unknown).count();
    if run.unknown > 0 {
        let n = format!(
            "--budget was spent: {} scenarios are `unknown`; each entry's would_decide lists the runs that would decide it",
            run.unknown
        );
        eprintln!("detect: {n}");
        run.notes.push(n);
    }
    crate::host::finish(&mut run.host);
    run.finished_at = clock::rfc3339(SystemTime::now());
    for e in &entries {
        events.on_event(&RunEvent::Finding(Finding::Detect(e)))?;
    }
    events.on_event(&RunEvent::Finished(Done::Detect {
        entries: &entries,
        run: &run,
    }))?;
    Ok(DetectOutcome { entries, run })
}

/// [`detect`] on every chosen target, results in target order. Targets whose scenarios are all
/// checks or tests (every `cargo harness detect` binary) run side by side, one per core: each is
/// its own universe of processes, and their pass/fail does not depend on the machine's load.
/// Measurements run one target at a time, so no value is measured beside another process.
fn detect_targets(
    chosen: &[Chosen<'_>],
    config: &DetectConfig,
    executor: &Executor,
    events: &mut dyn Reporter,
) -> Result<Vec<DetectResult>, Error> {
    // Each target's env groups take seeds after those of the targets before it, as if serial.
    let configs: Vec<DetectConfig> = chosen
        .iter()
        .scan(config.groups_before, |before, (_, selected)| {
            let mut c = config.clone();
            c.groups_before = *before;
            *before += selected.iter().map(|l| &l.env).collect::<BTreeSet<_>>().len();
            Some(c)
        })
        .collect();
    let checks_only = chosen.iter().all(|(_, sel)| sel.iter().all(|l| l.kind != ScenarioKind::Measure));
    let workers = if checks_only { config.jobs.max(1).min(chosen.len()) } else { 1 };
    // Every process of every target holds one of these: one per core in all.
    let slots = Arc::new(Slots::new(config.jobs));
    let next = AtomicUsize::new(0);
    let shared = Mutex::new(events);
    let slots_for_processes = slots;
    let slots: Vec<Mutex<Option<Result<DetectResult, Error>>>> = chosen.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (next, shared, slots, configs, process_slots) = (&next, &shared, &slots, &configs, &slots_for_processes);
            let mut ex = executor.sibling(w as u64);
            scope.spawn(move || {
                let mut events = Locked(shared);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= chosen.len() {
                        break;
                    }
                    let (target, selected) = &chosen[i];
                    let name = target.cargo_label().map_or_else(|| target.describe(), |(p, b)| format!("{p}/{b}"));
                    eprintln!("detect: {} scenarios of {name} (seed {})", selected.len(), configs[i].seed);
                    let r = detect_with(*target, selected, &configs[i], &mut ex, &mut events, process_slots);
                    let failed = r.is_err();
                    *slots[i].lock().expect("no worker panics holding a slot") = Some(r);
                    if failed {
                        next.store(chosen.len(), Ordering::Relaxed); // stop the others early
                    }
                }
            });
        }
    });
    let mut out = Vec::with_capacity(chosen.len());
    // Targets are handed out in order, so an unrun slot (None) only follows a target's error,
    // which `?` returns first.
    for r in slots
        .into_iter()
        .filter_map(|s| s.into_inner().expect("no worker panics holding a slot"))
    {
        out.push(r?);
    }
    Ok(out)
}

/// The command's reporters, shared by the threads of [`detect_targets`]: one event at a time.
struct Locked<'m, 'r>(&'m Mutex<&'r mut dyn Reporter>);

impl Reporter for Locked<'_, '_> {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        // A poisoned lock means another thread panicked, which the scope re-raises anyway.
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).on_event(event)
    }
}

/// A target with the scenarios the selection picks from it.
type Chosen<'t> = (&'t dyn OrderTarget, Vec<Listed>);

/// Each target with the scenarios the selection picks from it; an error when none picks any.
fn select<'t>(targets: &'t [Box<dyn OrderTarget>], selection: &Selection) -> Result<Vec<Chosen<'t>>, Error> {
    let mut chosen = Vec::new();
    for target in targets {
        let (selected, _ignored) = selection.apply(&target.list()?);
        if !selected.is_empty() {
            chosen.push((target.as_ref(), selected));
        }
    }
    if chosen.is_empty() {
        return Err(Error::NothingMatched {
            filters: selection.filters.clone(),
        });
    }
    Ok(chosen)
}

/// `detect-run.json` before anything ran: counts and schedules fill in as targets finish.
fn detect_run(targets: &[Box<dyn OrderTarget>], config: &DetectConfig, command: Vec<String>, started: SystemTime) -> DetectRun {
    let kind = targets.first().map_or("suite", |t| t.kind_name());
    let mut notes = super::preload::config_notes(config);
    if kind == "libtest" {
        notes.push(
            "libtest binaries: hazards (variable values before and after) are not observed; what a culprit writes and a \
             victim reads comes from the interposer, in each entry's mechanism"
                .to_owned(),
        );
        notes.push(
            "libtest chooses its own order: no reverse schedule; shuffles are topped up until every ordered pair was seen".to_owned(),
        );
    }
    DetectRun {
        format_version: DETECT_FORMAT_VERSION,
        binary: targets.iter().map(|t| t.describe()).collect::<Vec<_>>().join("; "),
        kind: kind.to_owned(),
        seed: config.seed,
        command,
        host: crate::host::collect(),
        runs: RunCounts::default(),
        schedules: Vec::new(),
        phases: Vec::new(),
        budget_s: config.budget.map(|b| b.as_secs_f64()),
        unknown: 0,
        notes,
        started_at: clock::rfc3339(started),
        finished_at: String::new(),
    }
}

/// The facts every command's `Started` event carries.
fn start_meta(run: &DetectRun, config: &DetectConfig) -> RunMeta {
    RunMeta::started(
        run.binary.clone(),
        run.command.clone(),
        config.seed,
        config.isolated,
        config.iterations,
        config.warmup,
        run.started_at.clone(),
        run.host.clone(),
    )
}

/// Add one target's result, its entries and schedules labelled with `binary`.
fn merge(entries: &mut Vec<DetectEntry>, run: &mut DetectRun, r: DetectResult, binary: Option<String>, package: Option<String>) {
    entries.extend(r.entries.into_iter().map(|mut e| {
        e.binary = binary.clone();
        e.package = package.clone();
        e
    }));
    run.schedules.extend(r.schedules.into_iter().map(|mut s| {
        s.binary = binary.clone();
        s
    }));
    let c = &mut run.runs;
    c.isolated += r.counts.isolated;
    c.shared += r.counts.shared;
    c.localization += r.counts.localization;
    c.total += r.counts.total;
}

/// Names stay exactly as --list prints them; `binary` tells apart only names that collide
/// (cargo-built binaries keep theirs: package and target name every entry).
fn unlabel_unique(entries: &mut [DetectEntry]) {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for e in entries.iter() {
        *seen.entry(e.name.clone()).or_default() += 1;
    }
    for e in entries.iter_mut() {
        if seen[&e.name] < 2 && e.package.is_none() {
            e.binary = None;
        }
    }
}

/// `detect-run.json`'s phases, in the order they start, times from the command's start.
fn phase_records(phases: &BTreeMap<Purpose, PhaseTime>, clock: Instant) -> Vec<PhaseRecord> {
    let secs = |a: Instant, b: Instant| b.saturating_duration_since(a).as_secs_f64();
    phases
        .iter()
        .map(|(p, t)| PhaseRecord {
            name: p.phase().to_owned(),
            processes: t.processes,
            executions: t.executions,
            started_s: t.first.map_or(0.0, |f| secs(clock, f)),
            wall_s: match (t.first, t.last) {
                (Some(f), Some(l)) => secs(f, l),
                _ => 0.0,
            },
            process_s: t.process_time.as_secs_f64(),
        })
        .collect()
}

/// What `detect-run.json` says of a libtest binary's shuffles: predicted (localization then picks
/// seeds that arrange each probe) or not (it tries seeds).
fn shuffle_note(binary: &str, t: super::libtest_shuffle::ShuffleTrust, localized: bool) -> Option<String> {
    let runs = t.matched + t.differed;
    (runs > 0).then(|| {
        if t.trusted() && !localized {
            format!("{binary}: libtest's shuffle order was predicted for all {runs} shuffled runs")
        } else if t.trusted() {
            format!("{binary}: libtest's shuffle order was predicted for all {runs} shuffled runs; localization chose its seeds by it")
        } else {
            format!(
                "{binary}: libtest's shuffle order was predicted for {} of {runs} shuffled runs, so not trusted{}",
                t.matched,
                if localized { "; localization tried seeds" } else { "" }
            )
        }
    })
}
