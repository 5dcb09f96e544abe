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
use crate::detect::{DetectConfig, Exact, OrderTarget, detect, write_detect_json, write_detect_run, write_summary};
use crate::plan::Selection;
use crate::report::OutDir;

/// Validated `detect` options.
struct DetectOptions {
    targets: Vec<Box<dyn OrderTarget>>,
    selection: Selection,
    config: DetectConfig,
    out: Option<PathBuf>,
    no_fail: bool,
}

fn options(a: &DetectArgs, own: Vec<Listed>) -> Result<DetectOptions, Error> {
    let seed = parse_seed("--seed", a.seed.as_deref())?;
    let mut config = DetectConfig::new(seed, PathBuf::new());
    config.shuffles = parse_count("--shuffles", &a.shuffles, 0)?;
    config.isolated = parse_count("--isolated", &a.isolated, 1)?;
    config.iterations = parse_count("--iterations", &a.iterations, 1)?;
    config.warmup = parse_count("--warmup", &a.warmup, 0)?;
    config.timeout = Some(parse_secs("--timeout", &a.timeout)?);
    config.interpose = if a.no_interpose { None } else { crate::detect::preload::locate() };
    let targets: Vec<Box<dyn OrderTarget>> = if !a.test_bin.is_empty() {
        a.test_bin
            .iter()
            .map(|p| existing("--test-bin", p).map(|p| Box::new(LibtestBinary::new(p)) as Box<dyn OrderTarget>))
            .collect::<Result<_, _>>()?
    } else if let Some(p) = &a.suite_bin {
        vec![Box::new(Exact(SuiteBinary::new(existing("--suite-bin", p)?)))]
    } else {
        vec![Box::new(Exact(SuiteBinary::current(own)?))]
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
    let started = SystemTime::now();
    let opts = options(a, own)?;
    let out = OutDir::create(opts.out.as_deref())?;
    let mut config = opts.config;
    config.scratch = out.scratch()?;
    let mut host = crate::host::collect();
    let mut entries: Vec<DetectEntry> = Vec::new();
    let mut schedules = Vec::new();
    let mut counts = RunCounts::default();
    let several = opts.targets.len() > 1;
    let mut any_selected = false;
    let mut notes = preload_notes(a.no_interpose, config.interpose.as_deref());
    for target in &opts.targets {
        let listed = target.list()?;
        let (selected, _ignored) = opts.selection.apply(&listed);
        if selected.is_empty() {
            continue;
        }
        any_selected = true;
        eprintln!(
            "detect: {} scenarios of {} (seed {})",
            selected.len(),
            target.describe(),
            config.seed
        );
        let r = detect(target.as_ref(), &selected, &config)?;
        let bin = several.then(|| target.describe());
        entries.extend(r.entries.into_iter().map(|mut e| {
            e.binary = bin.clone();
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
        if let Some(n) = crate::detect::preload::outcome_note(&target.describe(), r.preload) {
            eprintln!("detect: {n}");
            notes.push(n);
        }
    }
    if !any_selected {
        return Err(Error::NothingMatched {
            filters: opts.selection.filters.clone(),
        });
    }
    // Names stay exactly as --list prints them; `binary` tells apart only names that collide.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for e in &entries {
        *seen.entry(e.name.clone()).or_default() += 1;
    }
    for e in &mut entries {
        if seen[&e.name] < 2 {
            e.binary = None;
        }
    }
    host.load_end = crate::host::load_average();
    let kind = opts.targets.first().map_or("suite", |t| t.kind_name());
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
    let run = DetectRun {
        format_version: DETECT_FORMAT_VERSION,
        binary: opts.targets.iter().map(|t| t.describe()).collect::<Vec<_>>().join("; "),
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

fn preload_notes(off: bool, lib: Option<&std::path::Path>) -> Vec<String> {
    let note = match (off, lib) {
        (true, _) => "--no-interpose: env, cwd and file effects were not observed; mechanism is empty".to_owned(),
        (false, None) => format!(
            "{} not found ({} or beside the harness executable; `cargo build -p harness_interpose` builds it): \
             env, cwd and file effects were not observed; mechanism is empty",
            crate::detect::preload::LIB_NAME,
            crate::detect::preload::LIB_ENV
        ),
        (false, Some(_)) => return vec![],
    };
    eprintln!("detect: {note}");
    vec![note]
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
