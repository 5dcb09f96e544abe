//! The `compare` and `calibrate` pipelines on the event seam, in named phases: resolve the two
//! inputs ([`plan_compare`]), run interleaved pairs through the shared executor or read two
//! result directories, analyze, and emit the rows and [`Done::Compare`]; every file is a
//! reporter. Returns a [`CompareOutcome`]; `cli` maps it to an exit status.
//!
//! May import `execute`, `events`, `model`, `plan`, `stats`, `report`'s writers; never `cli`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::analyze::{AnalysisConfig, MetricInput, analyze, suspect_environment};
use super::base_ref::Built;
use super::budget::{BudgetReport, SequentialSettings, run_sequential};
use super::calibrate::calibrate;
use super::count_pairs::{Counted, count_pairs};
use super::inputs::{from_pairs, from_results};
use super::interleave::{Interleaver, ProcessConfig, ScenarioRuns, SideTarget, schedule};
use super::options::{CalibrateOptions, CompareOptions, RunSettings};
use super::output::read_calibration;
use super::verdict::ALPHA;
use crate::clock;
use crate::errors::Error;
use crate::events::{Done, Finding, Reporter, RunEvent};
use crate::execute::{SuiteBinary, Target};
use crate::model::{
    CalibrationEntry, CompareEntry, CompareRun, CompareVerdict, HostInfo, Listed, ResultsFile, RunMeta, RunRecord, ScenarioKind,
};
use crate::plan::Selection;
use crate::report::{OutDir, write_json};

enum Input {
    Binary(PathBuf),
    Results(PathBuf),
}

fn input(flag: &'static str, p: &Path) -> Result<Input, Error> {
    if p.is_dir() && p.join("results.json").is_file() {
        Ok(Input::Results(p.to_owned()))
    } else if p.is_file() {
        // Absolute, so a bare name like `base` is not looked up on PATH when it is spawned.
        Ok(Input::Binary(std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned())))
    } else {
        Err(Error::InvalidFlag {
            flag,
            value: p.display().to_string(),
            reason: "neither a suite binary nor a result directory holding results.json".into(),
        })
    }
}

/// Measurements both binaries list (in the baseline's order), and warnings for the rest.
fn common_measurements(a: &[Listed], b: &[Listed], selection: &Selection) -> (Vec<Listed>, Vec<String>) {
    let (sa, _) = selection.apply(a);
    let (sb, _) = selection.apply(b);
    let measures = |v: &[Listed]| v.iter().filter(|l| l.kind == ScenarioKind::Measure).cloned().collect::<Vec<_>>();
    let (ma, mb) = (measures(&sa), measures(&sb));
    let mut warnings = Vec::new();
    for l in &ma {
        if !mb.iter().any(|x| x.name == l.name) {
            warnings.push(format!("{} is in the baseline only", l.name));
        }
    }
    for l in &mb {
        if !ma.iter().any(|x| x.name == l.name) {
            warnings.push(format!("{} is in the candidate only", l.name));
        }
    }
    (ma.into_iter().filter(|l| mb.iter().any(|x| x.name == l.name)).collect(), warnings)
}

/// The phase of `compare`'s processes.
pub const PHASE: &str = "compare";

/// Two suite binaries and the measurements both list, or two result directories read back.
pub struct ComparePlan {
    design: Design,
    warnings: Vec<String>,
    /// What `--base-ref` built, if it was given.
    built: Option<Built>,
    /// Seconds the `--base-ref` build took.
    build_s: Option<f64>,
}

enum Design {
    Interleaved {
        baseline: SuiteBinary,
        candidate: SuiteBinary,
        selected: Vec<Listed>,
    },
    /// The rows' inputs, and both sides' runs (their profiles explain changed counter rows).
    ResultDirs(Vec<MetricInput>, Box<(Vec<RunRecord>, Vec<RunRecord>)>),
}

impl ComparePlan {
    fn name(&self) -> &'static str {
        match self.design {
            Design::Interleaved { .. } => "interleaved",
            Design::ResultDirs(..) => "result-dirs",
        }
    }
}

/// What a comparison found.
#[derive(Debug, Clone)]
pub struct CompareOutcome {
    /// The rows (`compare.json`; the run facts went to the reporters with `Done::Compare`).
    pub entries: Vec<CompareEntry>,
}

impl CompareOutcome {
    /// Whether any row is `regressed`.
    pub fn regressed(&self) -> bool {
        self.entries.iter().any(|e| e.verdict == CompareVerdict::Regressed)
    }
}

/// Phase 1: resolve both inputs and what to compare; nothing runs and nothing is written, so
/// bad input fails before an output directory exists.
pub fn plan_compare(opts: &CompareOptions) -> Result<ComparePlan, Error> {
    let building = std::time::Instant::now();
    let (opts, built) = &super::base_ref::resolve(opts)?;
    let build_s = built.is_some().then(|| building.elapsed().as_secs_f64());
    if let Some(s) = build_s {
        eprintln!("compare: built both sides in {s:.0} s (not counted in --budget)");
    }
    let mut plan = plan_inputs(opts)?;
    plan.built = built.clone();
    plan.build_s = build_s;
    Ok(plan)
}

fn plan_inputs(opts: &CompareOptions) -> Result<ComparePlan, Error> {
    let nothing = || Error::NothingMatched {
        filters: opts.settings.selection.filters.clone(),
    };
    match (input("--baseline", &opts.baseline)?, input("--candidate", &opts.candidate)?) {
        (Input::Binary(pa), Input::Binary(pb)) => {
            let (baseline, candidate) = (SuiteBinary::new(&pa), SuiteBinary::new(&pb));
            let (selected, warnings) = common_measurements(&baseline.list()?, &candidate.list()?, &opts.settings.selection);
            if selected.is_empty() {
                return Err(nothing());
            }
            Ok(ComparePlan {
                design: Design::Interleaved {
                    baseline,
                    candidate,
                    selected,
                },
                warnings,
                built: None,
                build_s: None,
            })
        }
        (Input::Results(da), Input::Results(db)) => {
            let (a, b) = (crate::report::read_results(&da)?, crate::report::read_results(&db)?);
            let (inputs, mut warnings) = from_results(&a, &b, opts.resources, |n| opts.settings.selection.matches_name(n))?;
            if let Some(w) = crate::fingerprint::warning(&a.meta.host.fingerprint, &b.meta.host.fingerprint) {
                eprintln!("warning: {w}");
                warnings.insert(0, w);
            }
            if inputs.is_empty() {
                return Err(nothing());
            }
            Ok(ComparePlan {
                design: Design::ResultDirs(inputs, Box::new((a.runs, b.runs))),
                warnings,
                built: None,
                build_s: None,
            })
        }
        _ => Err(Error::InvalidFlag {
            flag: "--candidate",
            value: opts.candidate.display().to_string(),
            reason: "baseline and candidate must both be suite binaries or both result directories".into(),
        }),
    }
}

/// Phases 2-4: run (or read) the pairs, analyze, and report the rows to `events`.
pub fn run_compare(plan: ComparePlan, opts: &CompareOptions, out: &OutDir, events: &mut dyn Reporter) -> Result<CompareOutcome, Error> {
    let started = SystemTime::now();
    let mut host = crate::host::collect();
    let calibration = match &opts.calibration {
        Some(p) => read_calibration(p)?,
        None => BTreeMap::new(),
    };
    let design = plan.name();
    let mut warnings = plan.warnings;
    let config = AnalysisConfig {
        floor: opts.floor,
        margin: opts.margin,
        counter_margin: opts.counter_margin,
        calibration,
    };
    let (entries, report, counted) = match plan.design {
        Design::Interleaved {
            baseline,
            candidate,
            selected,
        } => {
            let (entries, report, counted) = interleaved(&baseline, &candidate, &selected, opts, out, &host, &config, events)?;
            (entries, Some(report), counted)
        }
        Design::ResultDirs(inputs, runs) => {
            let mut entries = analyze(&inputs, &config);
            crate::explain::attach(&mut entries, &runs.0, &runs.1);
            crate::allocs::decide::attach(&mut entries, &runs.0, &runs.1);
            (entries, None, None)
        }
    };
    // Counter rows first (stable: each group keeps its scenario order): they decide where
    // present, with wall time beside them.
    let mut entries = entries;
    entries.sort_by_key(|e| e.source.is_none());
    if let Some(w) = suspect_environment(&entries) {
        eprintln!("warning: {w}");
        warnings.insert(0, w);
    }
    host.load_end = crate::host::load_average();
    let mut run = compare_run(opts, design, warnings, host, started);
    run.margin = Some(opts.margin);
    run.build_s = plan.build_s;
    run.counter_pairs = counted.as_ref().map(|c| c.pairs);
    run.counting_s = counted.as_ref().map(|c| c.seconds);
    if let Some(b) = &plan.built {
        run.baseline = b.baseline.display().to_string();
        run.candidate = b.candidate.display().to_string();
        run.baseline_commit = Some(b.baseline_commit.clone());
        run.candidate_commit = Some(b.candidate_commit.clone());
    }
    if let Some(r) = &report {
        run.null_control = r.null_control.clone();
        run.sequential = opts.budget.map(|b| super::budget::summary(r, &entries, Some(b)));
    }
    for e in &entries {
        events.on_event(&RunEvent::Finding(Finding::Compare(e)))?;
    }
    events.on_event(&RunEvent::Finished(Done::Compare {
        entries: &entries,
        run: &run,
    }))?;
    Ok(CompareOutcome { entries })
}

/// One side: a binary and the env only its processes get.
fn side<'a>(t: &'a SuiteBinary, env: &BTreeMap<String, String>) -> SideTarget<'a> {
    SideTarget {
        target: t,
        env: env.clone(),
    }
}

/// Phase 2 of the interleaved design: the pairs, look after look ([`run_sequential`]), each
/// side's runs also kept as a results directory (`baseline/`, `candidate/`) so it can be
/// inspected or compared again. Returns the rows of the last look.
#[expect(clippy::too_many_arguments, reason = "each is one input of the phase")]
fn interleaved(
    ta: &SuiteBinary,
    tb: &SuiteBinary,
    selected: &[Listed],
    opts: &CompareOptions,
    out: &OutDir,
    host: &HostInfo,
    config: &AnalysisConfig,
    events: &mut dyn Reporter,
) -> Result<(Vec<CompareEntry>, BudgetReport, Option<Counted>), Error> {
    let scratch = out.scratch()?;
    let s = &opts.settings;
    eprintln!(
        "compare: {} scenario(s), {} interleaved pairs each{}, seed {}",
        selected.len(),
        s.runs,
        opts.budget.map_or(String::new(), |b| format!(
            " first, then more for the undecided within {}s",
            b.as_secs()
        )),
        s.seed
    );
    let meta = side_meta(&format!("{} vs {}", ta.describe(), tb.describe()), s, &opts.command, host);
    let total = 2 * selected.len() * s.runs;
    events.on_event(&RunEvent::Started { meta: &meta, total })?;
    let process = ProcessConfig::of(s, &scratch, s.seed);
    let started = std::time::Instant::now();
    let mut pairs = Interleaver::new(side(ta, &opts.baseline_env), side(tb, &opts.candidate_env), selected, &process);
    let counting = count_pairs(&mut pairs, selected, s, config, opts.budget.map(|b| (b, started)), events)?;
    let control = pairs.sibling(side(ta, &opts.baseline_env), side(ta, &opts.baseline_env));
    let settings = SequentialSettings {
        first: s.runs,
        budget: opts.budget,
        seed: s.seed,
        control_share: opts.null_control,
        resources: opts.resources,
        started,
        counted: s.counters.as_ref().is_some_and(|c| c.source.separate_processes()),
    };
    let counter_looks = counting.as_ref().map(|c| c.looks.clone()).unwrap_or_default();
    let (runs, _, mut entries, report) = run_sequential(pairs, control, selected, settings, config.clone(), counter_looks, events)?;
    let _ = std::fs::remove_dir_all(&scratch);
    let (ra, rb): (Vec<RunRecord>, Vec<RunRecord>) = runs.into_values().fold((Vec::new(), Vec::new()), |(mut x, mut y), s| {
        x.extend(s.baseline);
        y.extend(s.candidate);
        (x, y)
    });
    crate::explain::attach(&mut entries, &ra, &rb);
    crate::allocs::decide::attach(&mut entries, &ra, &rb);
    write_side(&out.file("baseline"), side_meta(&ta.describe(), s, &opts.command, host), ra)?;
    write_side(&out.file("candidate"), side_meta(&tb.describe(), s, &opts.command, host), rb)?;
    Ok((entries, report, counting))
}

/// One phase of interleaved pairs through a fresh [`Interleaver`].
#[expect(clippy::too_many_arguments, reason = "each is one input of the phase")]
fn interleaved_runs(
    a: SideTarget<'_>,
    b: SideTarget<'_>,
    selected: &[Listed],
    settings: &RunSettings,
    seed: u64,
    scratch: &Path,
    phase: &str,
    events: &mut dyn Reporter,
) -> Result<BTreeMap<String, ScenarioRuns>, Error> {
    let slots = schedule(selected.len(), settings.runs, seed);
    let config = ProcessConfig::of(settings, scratch, seed);
    let mut interleaver = Interleaver::new(a, b, selected, &config);
    count_pairs(&mut interleaver, selected, settings, &AnalysisConfig::default(), None, events)?;
    events.on_event(&RunEvent::PhaseStarted {
        name: phase,
        planned: slots.len(),
    })?;
    interleaver.run_batch(&slots, events)?;
    events.on_event(&RunEvent::PhaseFinished { name: phase })?;
    Ok(interleaver.into_runs())
}

/// The facts of one side's results directory (and of the `Started` event).
fn side_meta(binary: &str, settings: &RunSettings, command: &[String], host: &HostInfo) -> RunMeta {
    let now = clock::rfc3339(SystemTime::now());
    RunMeta {
        finished_at: now.clone(),
        ..RunMeta::started(
            binary.to_owned(),
            command.to_vec(),
            settings.seed,
            settings.runs,
            settings.iterations,
            settings.warmup,
            now,
            host.clone(),
        )
    }
}

/// Write one side's runs as a results directory.
fn write_side(dir: &Path, meta: RunMeta, mut runs: Vec<RunRecord>) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::OutDir {
        path: dir.to_owned(),
        source,
    })?;
    runs.sort_by_key(|r| r.run_index);
    let results = ResultsFile {
        meta,
        summaries: crate::model::summarize_runs(&runs),
        runs,
    };
    write_json(&dir.join("results.json"), &results)
}

/// `compare-run.json`.
fn compare_run(opts: &CompareOptions, design: &str, warnings: Vec<String>, host: HostInfo, started: SystemTime) -> CompareRun {
    let interleaved = design == "interleaved";
    let env_list = |m: &BTreeMap<String, String>| m.iter().map(|(k, v)| format!("{k}={v}")).collect();
    CompareRun {
        format_version: 1,
        baseline: opts.baseline.display().to_string(),
        candidate: opts.candidate.display().to_string(),
        design: design.into(),
        seed: interleaved.then_some(opts.settings.seed),
        alpha: ALPHA,
        calibration: opts.calibration.as_ref().map(|p| p.display().to_string()),
        noise_floor: opts.floor,
        runs: interleaved.then_some(opts.settings.runs),
        iterations: interleaved.then_some(opts.settings.iterations),
        warmup: interleaved.then_some(opts.settings.warmup),
        baseline_env: env_list(&opts.baseline_env),
        candidate_env: env_list(&opts.candidate_env),
        warnings,
        margin: None,
        sequential: None,
        baseline_commit: None,
        candidate_commit: None,
        build_s: None,
        counters: opts.settings.counters.as_ref().map(|c| c.source.label()),
        counter_margin: opts.settings.counters.as_ref().map(|_| opts.counter_margin),
        counter_pairs: None,
        counting_s: None,
        null_control: None,
        host,
        command: opts.command.clone(),
        started_at: clock::rfc3339(started),
        finished_at: clock::rfc3339(SystemTime::now()),
    }
}

/// `calibrate`: `sessions` A/A sessions of `binary` against itself, one after another; writes
/// `calibration.json` into `out` and returns its entries.
pub fn run_calibrate(opts: &CalibrateOptions, events: &mut dyn Reporter) -> Result<Vec<CalibrationEntry>, Error> {
    let target = SuiteBinary::new(std::fs::canonicalize(&opts.binary).unwrap_or_else(|_| opts.binary.clone()));
    let listed = target.list()?;
    let (selected, _) = common_measurements(&listed, &listed, &opts.settings.selection);
    if selected.is_empty() {
        return Err(Error::NothingMatched {
            filters: opts.settings.selection.filters.clone(),
        });
    }
    let out = OutDir::create(opts.out.as_deref())?;
    let scratch = out.scratch()?;
    let mut sessions = Vec::with_capacity(opts.sessions);
    for s in 0..opts.sessions {
        let seed = opts.settings.seed.wrapping_add(s as u64);
        let phase = format!("calibrate session {}/{}", s + 1, opts.sessions);
        let side = || SideTarget {
            target: &target,
            env: BTreeMap::new(),
        };
        let runs = interleaved_runs(side(), side(), &selected, &opts.settings, seed, &scratch, &phase, events)?;
        sessions.push(from_pairs(&runs, false));
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let entries = calibrate(&sessions, opts.floor);
    write_json(&out.file("calibration.json"), &entries)?;
    println!(
        "{:<40} {:<14} {:>10} {:>8} {:>6}",
        "scenario", "metric", "noise band", "MDE", "A/A FP"
    );
    for e in &entries {
        println!(
            "{:<40} {:<14} {:>9.2}% {:>7.2}% {:>3}/{}",
            e.name,
            e.metric,
            e.noise_band * 100.0,
            e.mde * 100.0,
            e.false_positives,
            e.sessions
        );
    }
    println!("calibration: {}", out.file("calibration.json").display());
    Ok(entries)
}
