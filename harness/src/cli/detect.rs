//! `detect`: validate [`DetectArgs`], put the reporters on the seam (results.jsonl, detect.json +
//! detect-run.json, progress, summary, index.html), run [`crate::detect::run_detect`], and map
//! its outcome to the exit status.

use std::path::PathBuf;

use super::detect_args::DetectArgs;
use super::exit_code::ExitCodes;
use super::options::{DETECT, existing};
use crate::detect::{DetectConfig, DetectFiles, DetectSummary, Exact, OrderTarget, run_detect};
use crate::errors::Error;
use crate::events::Reporters;
use crate::execute::{LibtestBinary, SuiteBinary};
use crate::model::Listed;
use crate::plan::Selection;
use crate::report::{HtmlReporter, JsonlWriter, JunitWriter, OutDir, ProgressReporter};

/// Validated `detect` options.
struct DetectOptions {
    targets: Vec<Box<dyn OrderTarget>>,
    selection: Selection,
    config: DetectConfig,
    out: Option<PathBuf>,
    no_fail: bool,
}

fn options(a: &DetectArgs, own: Vec<Listed>, given: Option<Vec<Box<dyn OrderTarget>>>) -> Result<DetectOptions, Error> {
    let m = a.measure.resolve(&DETECT);
    let mut config = DetectConfig::new(m.seed, PathBuf::new());
    config.shuffles = a.shuffles;
    config.isolated = a.isolated;
    config.budget = a.budget;
    if let Some(n) = a.test_threads {
        config.jobs = n;
    }
    config.iterations = m.iterations;
    config.warmup = m.warmup;
    config.timeout = Some(m.timeout);
    config.partition = a.partition;
    config.interpose_requested = !a.no_interpose;
    config.counters = a.measure.counter_settings()?;
    config.backtrace = crate::detect::reproduce::user_backtrace();
    config.interpose = if a.no_interpose { None } else { crate::detect::preload::locate() };
    let targets: Vec<Box<dyn OrderTarget>> = if let Some(given) = given {
        given
    } else if !a.test_bin.is_empty() {
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
    run_on(a, own, None)
}

/// Run `detect` on `given` binaries (built by `cargo harness`), or on those the arguments name.
pub(crate) fn run_on(a: &DetectArgs, own: Vec<Listed>, given: Option<Vec<Box<dyn OrderTarget>>>) -> Result<u8, Error> {
    let opts = options(a, own, given)?;
    let out = OutDir::create(opts.out.as_deref())?;
    let mut config = opts.config;
    config.scratch = out.scratch()?;
    let mut jsonl = JsonlWriter::new(out.file("results.jsonl"));
    let mut files = DetectFiles::new(out.path().to_owned());
    let mut progress = ProgressReporter::default().without_failure_lines();
    let mut summary = DetectSummary::new(std::io::stdout());
    let mut html = HtmlReporter::new(out.path().to_owned(), std::io::stdout());
    let mut junit = JunitWriter::new(out.file("junit.xml"));
    let mut reporters = Reporters::new();
    reporters
        .push(&mut jsonl)
        .push(&mut files)
        .push(&mut progress)
        .push(&mut summary)
        .push(&mut junit)
        .push(&mut html);
    let command = crate::reproduce::this_command(config.seed);
    let found = run_detect(&opts.targets, &opts.selection, &config, command, &mut reporters)?;
    let _ = std::fs::remove_dir_all(&config.scratch);
    println!("detect: {}", out.path().display());
    Ok(if found.found_anything() && !opts.no_fail {
        ExitCodes::FAILURES
    } else {
        ExitCodes::OK
    })
}
