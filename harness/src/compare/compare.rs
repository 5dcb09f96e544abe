//! The `compare` and `calibrate` pipelines: validated options in, files in the output directory
//! and an exit status out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::analyze::{AnalysisConfig, analyze, suspect_environment};
use super::calibrate::calibrate;
use super::inputs::{from_pairs, from_results};
use super::interleave::{ProcessConfig, ScenarioRuns, Side, SideTarget, execute, schedule};
use super::markdown;
use super::output::{read_calibration, write_csv, write_json, write_text};
use super::verdict::ALPHA;
use crate::cli::ExitCodes;
use crate::clock;
use crate::errors::Error;
use crate::execute::{SuiteBinary, Target};
use crate::model::Listed;
use crate::model::{CompareRun, CompareVerdict, FORMAT_VERSION, ResultsFile, RunMeta, RunRecord, ScenarioKind};
use crate::plan::Selection;
use crate::report::OutDir;

/// How processes of either side run.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// A/B pairs per scenario (interleaved), or pairs per session (calibrate).
    pub runs: usize,
    /// Measured iterations per process.
    pub iterations: usize,
    /// Warm-up iterations per process.
    pub warmup: usize,
    /// Seed of the pair schedule.
    pub seed: u64,
    /// Per-process timeout (a scenario's own timeout wins).
    pub timeout: Option<Duration>,
    /// Which scenarios.
    pub selection: Selection,
}

/// Validated options of `compare`.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Baseline: a suite binary or a result directory.
    pub baseline: PathBuf,
    /// Candidate: likewise.
    pub candidate: PathBuf,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// Process settings (interleaved design).
    pub settings: RunSettings,
    /// `--calibration`.
    pub calibration: Option<PathBuf>,
    /// `--noise-floor`, as a fraction.
    pub floor: f64,
    /// `--fail-on-regression`.
    pub fail_on_regression: bool,
    /// Also judge peak RSS and CPU times of each process (`--resources`).
    pub resources: bool,
    /// `--mde-report`, as a fraction.
    pub mde_report: f64,
    /// `--baseline-env`.
    pub baseline_env: BTreeMap<String, String>,
    /// `--candidate-env`.
    pub candidate_env: BTreeMap<String, String>,
    /// The command line that reproduces this comparison.
    pub command: Vec<String>,
}

/// Validated options of `calibrate`.
#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    /// The suite binary compared against itself.
    pub binary: PathBuf,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// Process settings; `runs` is pairs per session.
    pub settings: RunSettings,
    /// `--sessions`.
    pub sessions: usize,
    /// `--noise-floor`, as a fraction.
    pub floor: f64,
}

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

fn interleaved_runs(
    a: &SideTarget<'_>,
    b: &SideTarget<'_>,
    selected: &[Listed],
    settings: &RunSettings,
    seed: u64,
    scratch: &Path,
    label: &str,
) -> Result<BTreeMap<String, ScenarioRuns>, Error> {
    let slots = schedule(selected.len(), settings.runs, seed);
    let config = ProcessConfig {
        iterations: settings.iterations,
        warmup: settings.warmup,
        timeout: settings.timeout,
        scratch: scratch.to_owned(),
    };
    let total = slots.len();
    execute(a, b, selected, &slots, &config, |i, slot, rec| {
        if i + 1 == total || (i + 1) % (2 * selected.len()).max(1) == 0 {
            eprintln!("{label}: round {}/{} done ({} processes)", slot.round + 1, settings.runs, i + 1);
        }
        if rec.outcome.is_failure() {
            let side = if slot.side == Side::Baseline { "baseline" } else { "candidate" };
            eprintln!("{label}: {} ({side}) {}", rec.scenario, rec.outcome.short());
        }
    })
}

/// Write one side's runs as a results directory, so it can be inspected or compared again.
fn write_side(
    dir: &Path,
    binary: &str,
    runs: Vec<RunRecord>,
    settings: &RunSettings,
    command: &[String],
    host: &crate::model::HostInfo,
) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::OutDir {
        path: dir.to_owned(),
        source,
    })?;
    let mut runs = runs;
    runs.sort_by_key(|r| r.run_index);
    let now = clock::rfc3339(SystemTime::now());
    let results = ResultsFile {
        meta: RunMeta {
            format_version: FORMAT_VERSION,
            harness_version: env!("CARGO_PKG_VERSION").to_owned(),
            binary: binary.to_owned(),
            command: command.to_vec(),
            seed: settings.seed,
            order: Vec::new(),
            repeat: settings.runs,
            iterations: settings.iterations,
            warmup: settings.warmup,
            target_ci: None,
            test_threads: 1,
            started_at: now.clone(),
            finished_at: now,
            host: host.clone(),
        },
        summaries: crate::model::summarize_runs(&runs),
        runs,
    };
    crate::report::write_json(&dir.join("results.json"), &results)
}

/// `compare`: returns the exit status (non-zero under `--fail-on-regression` when a row regressed).
pub fn run_compare(opts: &CompareOptions) -> Result<u8, Error> {
    let started = SystemTime::now();
    let mut host = crate::host::collect();
    let calibration = match &opts.calibration {
        Some(p) => read_calibration(p)?,
        None => BTreeMap::new(),
    };
    let (inputs, mut warnings, design, out) = match (input("--baseline", &opts.baseline)?, input("--candidate", &opts.candidate)?) {
        (Input::Binary(pa), Input::Binary(pb)) => {
            let (ta, tb) = (SuiteBinary::new(&pa), SuiteBinary::new(&pb));
            let (selected, warnings) = common_measurements(&ta.list()?, &tb.list()?, &opts.settings.selection);
            if selected.is_empty() {
                return Err(Error::NothingMatched {
                    filters: opts.settings.selection.filters.clone(),
                });
            }
            let out = OutDir::create(opts.out.as_deref())?;
            let scratch = out.scratch()?;
            let a = SideTarget {
                target: &ta,
                env: opts.baseline_env.clone(),
            };
            let b = SideTarget {
                target: &tb,
                env: opts.candidate_env.clone(),
            };
            eprintln!(
                "compare: {} scenario(s), {} interleaved pairs each, seed {}",
                selected.len(),
                opts.settings.runs,
                opts.settings.seed
            );
            let runs = interleaved_runs(&a, &b, &selected, &opts.settings, opts.settings.seed, &scratch, "compare")?;
            let _ = std::fs::remove_dir_all(&scratch);
            let inputs = from_pairs(&runs, opts.resources);
            let (ra, rb): (Vec<RunRecord>, Vec<RunRecord>) = runs.into_values().fold((Vec::new(), Vec::new()), |(mut x, mut y), s| {
                x.extend(s.baseline);
                y.extend(s.candidate);
                (x, y)
            });
            write_side(&out.file("baseline"), &ta.describe(), ra, &opts.settings, &opts.command, &host)?;
            write_side(&out.file("candidate"), &tb.describe(), rb, &opts.settings, &opts.command, &host)?;
            (inputs, warnings, "interleaved", out)
        }
        (Input::Results(da), Input::Results(db)) => {
            let (a, b) = (crate::report::read_results(&da)?, crate::report::read_results(&db)?);
            let (inputs, warnings) = from_results(&a, &b, opts.resources, |n| opts.settings.selection.matches_name(n));
            if inputs.is_empty() {
                return Err(Error::NothingMatched {
                    filters: opts.settings.selection.filters.clone(),
                });
            }
            (inputs, warnings, "result-dirs", OutDir::create(opts.out.as_deref())?)
        }
        _ => {
            return Err(Error::InvalidFlag {
                flag: "--candidate",
                value: opts.candidate.display().to_string(),
                reason: "baseline and candidate must both be suite binaries or both result directories".into(),
            });
        }
    };
    let entries = analyze(
        &inputs,
        &AnalysisConfig {
            floor: opts.floor,
            calibration,
        },
    );
    if let Some(w) = suspect_environment(&entries) {
        eprintln!("warning: {w}");
        warnings.insert(0, w);
    }
    crate::host::finish(&mut host);
    let interleaved = design == "interleaved";
    let env_list = |m: &BTreeMap<String, String>| m.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let run = CompareRun {
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
        host,
        command: opts.command.clone(),
        started_at: clock::rfc3339(started),
        finished_at: clock::rfc3339(SystemTime::now()),
    };
    write_json(&out.file("compare.json"), &entries)?;
    write_csv(&out.file("compare.csv"), &entries)?;
    write_json(&out.file("compare-run.json"), &run)?;
    let md = markdown::render(&entries, &run, opts.mde_report);
    write_text(&out.file("compare.md"), &md)?;
    println!("{md}");
    let html = crate::report::write_html(out.path())?;
    println!("report: {}", html.display());
    println!("compare: {}", out.path().display());
    let regressed = entries.iter().any(|e| e.verdict == CompareVerdict::Regressed);
    Ok(if opts.fail_on_regression && regressed {
        ExitCodes::FAILURES
    } else {
        ExitCodes::OK
    })
}

/// `calibrate`: `sessions` A/A sessions of `binary` against itself, one after another.
pub fn run_calibrate(opts: &CalibrateOptions) -> Result<u8, Error> {
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
    let side = SideTarget {
        target: &target,
        env: BTreeMap::new(),
    };
    let mut sessions = Vec::with_capacity(opts.sessions);
    for s in 0..opts.sessions {
        let seed = opts.settings.seed.wrapping_add(s as u64);
        let label = format!("calibrate session {}/{}", s + 1, opts.sessions);
        let runs = interleaved_runs(&side, &side, &selected, &opts.settings, seed, &scratch, &label)?;
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
    Ok(ExitCodes::OK)
}
