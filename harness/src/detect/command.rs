//! The `detect` command on the event seam: select each target's scenarios, run [`detect`] on
//! each through one [`Executor`](crate::execute::Executor), merge the entries, and emit the
//! findings and [`Done::Detect`]; the files and the terminal summary are reporters.
//!
//! May import `execute`, `events`, `model`, `plan`, `stats`, `report`'s writers; never `cli`.

use std::collections::BTreeMap;
use std::time::SystemTime;

use super::pipeline::{DetectConfig, DetectResult, detect};
use super::subject::OrderTarget;
use crate::clock;
use crate::errors::Error;
use crate::events::{Done, Finding, Reporter, RunEvent};
use crate::model::{DETECT_FORMAT_VERSION, DetectEntry, DetectRun, Listed, OrderVerdict, RunCounts, RunMeta};
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
    let chosen = select(targets, selection)?;
    let mut run = detect_run(targets, config, command, started);
    let meta = start_meta(&run, config);
    events.on_event(&RunEvent::Started { meta: &meta, total: 0 })?;
    let mut executor = config.executor();
    let several = targets.len() > 1;
    let mut entries = Vec::new();
    let mut config = config.clone();
    for (target, selected) in &chosen {
        let label = target.cargo_label();
        let name = label.as_ref().map_or_else(|| target.describe(), |(p, b)| format!("{p}/{b}"));
        eprintln!("detect: {} scenarios of {name} (seed {})", selected.len(), config.seed);
        let mut r = detect(*target, selected, &config, &mut executor, events)?;
        super::reproduce::attach(&mut r.entries, *target);
        if let Some(n) = super::preload::outcome_note(&target.describe(), r.preload) {
            eprintln!("detect: {n}");
            run.notes.push(n);
        }
        config.groups_before += selected.iter().map(|l| &l.env).collect::<std::collections::BTreeSet<_>>().len();
        let binary = label.as_ref().map(|l| l.1.clone()).or_else(|| several.then(|| target.describe()));
        merge(&mut entries, &mut run, r, binary, label.map(|l| l.0));
    }
    unlabel_unique(&mut entries);
    crate::host::finish(&mut run.host);
    run.finished_at = clock::rfc3339(SystemTime::now());
    for e in &entries {
        events.on_event(&RunEvent::Finding(Finding::Detect(e)))?;
    }
    events.on_event(&RunEvent::Finished(Done::Detect { entries: &entries, run: &run }))?;
    Ok(DetectOutcome { entries, run })
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
