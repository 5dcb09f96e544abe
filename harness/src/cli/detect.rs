//! `detect`: validate [`DetectArgs`], run [`crate::order::detect`] on each target, write
//! `detect.json` + `detect-run.json` and the terminal summary, and choose the exit status.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

use super::detect_args::DetectArgs;
use super::exit_code::ExitCodes;
use super::options::{existing, parse_count, parse_secs, parse_seed};
use crate::clock;
use crate::errors::Error;
use crate::execute::{LibtestBinary, Listed, SuiteBinary};
use crate::model::{DETECT_FORMAT_VERSION, DetectEntry, DetectRun, OrderVerdict, RunCounts};
use crate::detect::{DetectConfig, DetectResult, Exact, OrderTarget, detect, write_detect_json, write_detect_run, write_summary};
use crate::plan::Selection;
use crate::report::OutDir;

/// One binary to detect in, with the cargo package and target it was built from (if known).
pub(crate) struct Labeled {
    /// The binary.
    pub target: Box<dyn OrderTarget>,
    /// Its cargo package, when discovered through cargo.
    pub package: Option<String>,
    /// Its cargo target name, when discovered through cargo.
    pub binary: Option<String>,
}

impl Labeled {
    fn plain(target: Box<dyn OrderTarget>) -> Self {
        Labeled {
            target,
            package: None,
            binary: None,
        }
    }
}

/// Validated `detect` options.
struct DetectOptions {
    targets: Vec<Labeled>,
    selection: Selection,
    config: DetectConfig,
    out: Option<PathBuf>,
    no_fail: bool,
}

fn options(a: &DetectArgs, own: Vec<Listed>, given: Option<Vec<Labeled>>) -> Result<DetectOptions, Error> {
    let seed = parse_seed("--seed", a.seed.as_deref())?;
    let mut config = DetectConfig::new(seed, PathBuf::new());
    config.shuffles = parse_count("--shuffles", &a.shuffles, 0)?;
    config.isolated = parse_count("--isolated", &a.isolated, 1)?;
    config.iterations = parse_count("--iterations", &a.iterations, 1)?;
    config.warmup = parse_count("--warmup", &a.warmup, 0)?;
    config.timeout = Some(parse_secs("--timeout", &a.timeout)?);
    let targets: Vec<Labeled> = if let Some(given) = given {
        given
    } else if !a.test_bin.is_empty() {
        a.test_bin
            .iter()
            .map(|p| existing("--test-bin", p).map(|p| Labeled::plain(Box::new(LibtestBinary::new(p)))))
            .collect::<Result<_, _>>()?
    } else if let Some(p) = &a.suite_bin {
        vec![Labeled::plain(Box::new(Exact(SuiteBinary::new(existing("--suite-bin", p)?))))]
    } else {
        vec![Labeled::plain(Box::new(Exact(SuiteBinary::current(own)?)))]
    };
    Ok(DetectOptions {
        targets,
        selection: Selection {
            include_ignored: a.include_ignored,
            ..a.names.selection()
        },
        config,
        out: a.out.clone(),
        no_fail: a.no_fail,
    })
}

/// Run `detect`; returns the exit status.
pub(crate) fn run(a: &DetectArgs, own: Vec<Listed>) -> Result<u8, Error> {
    run_on(a, own, None)
}

/// Run `detect` on `given` binaries (from cargo), or on those the arguments name.
pub(crate) fn run_on(a: &DetectArgs, own: Vec<Listed>, given: Option<Vec<Labeled>>) -> Result<u8, Error> {
    let started = SystemTime::now();
    let opts = options(a, own, given)?;
    let out = OutDir::create(opts.out.as_deref())?;
    let mut config = opts.config;
    config.scratch = out.scratch()?;
    let mut host = crate::host::collect();
    let results = detect_all(&opts.targets, &opts.selection, &config)?;
    let mut entries: Vec<DetectEntry> = Vec::new();
    let mut schedules = Vec::new();
    let mut counts = RunCounts::default();
    let several = opts.targets.len() > 1;
    let mut any_selected = false;
    for (t, r) in opts.targets.iter().zip(results) {
        let Some(mut r) = r else { continue };
        any_selected = true;
        crate::detect::reproduce::attach(&mut r.entries, t.target.as_ref());
        // Cargo-discovered binaries are named by package and target; others by path when several.
        let bin = t.binary.clone().or_else(|| several.then(|| t.target.describe()));
        entries.extend(r.entries.into_iter().map(|mut e| {
            e.binary = bin.clone();
            e.package = t.package.clone();
            e
        }));
        schedules.extend(r.schedules.into_iter().map(|mut s| {
            s.binary = bin.clone();
            s
        }));
        counts.isolated += r.counts.isolated;
        counts.shared += r.counts.shared;
        counts.localization += r.counts.localization;
        counts.total += r.counts.total;
    }
    if !any_selected {
        return Err(Error::NothingMatched {
            filters: opts.selection.filters.clone(),
        });
    }
    // Names stay exactly as --list prints them; `binary` tells apart only names that collide
    // (always kept for cargo-discovered binaries).
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for e in &entries {
        *seen.entry(e.name.clone()).or_default() += 1;
    }
    for e in &mut entries {
        if seen[&e.name] < 2 && e.package.is_none() {
            e.binary = None;
        }
    }
    host.load_end = crate::host::load_average();
    let kind = opts.targets.first().map_or("suite", |t| t.target.kind_name());
    let mut notes = Vec::new();
    if kind == "libtest" {
        notes.push(
            "libtest binaries have no hook inside the process: environment and current-directory changes are not observed \
             (hazards are empty); a polluter found here may act through them"
                .to_owned(),
        );
        notes.push(
            "libtest chooses its own order: no reverse schedule; shuffles are topped up until every ordered pair was seen".to_owned(),
        );
    }
    let run = DetectRun {
        format_version: DETECT_FORMAT_VERSION,
        binary: opts.targets.iter().map(|t| t.target.describe()).collect::<Vec<_>>().join("; "),
        kind: kind.to_owned(),
        seed: config.seed,
        command: reproduce_command(config.seed),
        host,
        runs: counts,
        schedules,
        notes,
        started_at: clock::rfc3339(started),
        finished_at: clock::rfc3339(SystemTime::now()),
    };
    write_detect_json(&out.file("detect.json"), &entries)?;
    write_detect_run(&out.file("detect-run.json"), &run)?;
    crate::report::write_detect_junit(&out.file("junit.xml"), &entries, &run)?;
    let _ = write_summary(&mut std::io::stdout(), &entries, &run);
    let _ = std::fs::remove_dir_all(&config.scratch);
    let html = crate::report::write_html(out.path())?;
    println!("report: {}", html.display());
    println!("detect: {}", out.path().display());
    let found = entries
        .iter()
        .any(|e| e.verdict != OrderVerdict::Pass || !e.value_shifts.is_empty());
    Ok(if found && !opts.no_fail {
        ExitCodes::FAILURES
    } else {
        ExitCodes::OK
    })
}

fn reproduce_command(seed: u64) -> Vec<String> {
    let mut args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--seed") {
        args.drain(i..(i + 2).min(args.len()));
    }
    args.retain(|a| !a.starts_with("--seed="));
    args.push("--seed".into());
    args.push(seed.to_string());
    args
}

/// Detect in every target, several at once where the cores allow (each target's own processes
/// stay serial: a shared process is one order). `None` for a target where nothing was selected.
fn detect_all(targets: &[Labeled], selection: &Selection, config: &DetectConfig) -> Result<Vec<Option<DetectResult>>, Error> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(targets.len()).max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<Option<DetectResult>, Error>>>> =
        targets.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(t) = targets.get(i) else { break };
                    let r = detect_one(t, selection, config, i);
                    *slots[i].lock().expect("no worker panics holding it") = Some(r);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().expect("no worker panics holding it").expect("every target ran"))
        .collect()
}

fn detect_one(t: &Labeled, selection: &Selection, config: &DetectConfig, i: usize) -> Result<Option<DetectResult>, Error> {
    let listed = t.target.list()?;
    let (selected, _ignored) = selection.apply(&listed);
    if selected.is_empty() {
        return Ok(None);
    }
    let label = match (&t.package, &t.binary) {
        (Some(p), Some(b)) => format!("{p}/{b}"),
        _ => t.target.describe(),
    };
    eprintln!("detect: {} scenarios of {label} (seed {})", selected.len(), config.seed);
    // Each target's processes get their own scratch directory: ids restart per target.
    let mut config = config.clone();
    config.scratch = config.scratch.join(format!("t{i}"));
    std::fs::create_dir_all(&config.scratch).map_err(|source| Error::Io {
        what: format!("creating {}", config.scratch.display()),
        source,
    })?;
    detect(t.target.as_ref(), &selected, &config).map(Some)
}
