//! `detect`: validate [`DetectArgs`], run [`crate::order::detect`] on each target, write
//! `detect.json` + `detect-run.json` and the terminal summary, and choose the exit status.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

use super::detect_args::DetectArgs;
use super::exit_code::ExitCodes;
use super::options::{DETECT, existing};
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
    let m = a.measure.resolve(&DETECT);
    let mut config = DetectConfig::new(m.seed, PathBuf::new());
    config.shuffles = a.shuffles;
    config.isolated = a.isolated;
    config.iterations = m.iterations;
    config.warmup = m.warmup;
    config.timeout = Some(m.timeout);
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
        out: m.out,
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
        binary: opts.targets.iter().map(|t| t.describe()).collect::<Vec<_>>().join("; "),
        kind: kind.to_owned(),
        seed: config.seed,
        command: crate::reproduce::this_command(config.seed),
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
