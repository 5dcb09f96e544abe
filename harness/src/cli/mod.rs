//! The command line: `args` (clap, with the typed parsers of `values`) parses, `options`
//! validates and applies each command's defaults, `exit_code` maps results and errors to exit
//! statuses, `libtest_mode` answers test runners (nextest, `cargo test`). Nothing below `cli/`
//! sees clap types. `run`'s options use clap's builder API (`builder`), the other commands its
//! derive (feature `cli`); without `cli` a suite binary parses `suite_args`.

pub(crate) mod args;
#[cfg(feature = "cli")]
mod bisect;
#[cfg(feature = "cli")]
mod bisect_args;
#[cfg(feature = "cli")]
mod build_target_args;
pub(crate) mod builder;
#[cfg(feature = "cli")]
mod compare;
#[cfg(feature = "cli")]
mod compare_args;
mod criterion_args;
#[cfg(feature = "cli")]
pub(crate) mod detect;
#[cfg(feature = "cli")]
pub(crate) mod detect_args;
mod exit_code;
mod gpu_args;
#[cfg(feature = "cli")]
mod history;
mod history_args;
mod libtest_mode;
mod list;
mod options;
// The CLI's tests hold it to the derived `Args`.
#[cfg(any(test, not(feature = "cli")))]
mod suite_args;
mod values;

pub use args::Args;
pub use exit_code::ExitCodes;
pub(crate) use list::print_json_list;

use std::process::ExitCode;

#[cfg(feature = "cli")]
use clap::Parser;

use crate::errors::Error;
use crate::events::Reporters;
use crate::execute::{SuiteBinary, Target};
use crate::model::Listed;
use crate::report::{CsvWriter, HtmlReporter, JsonWriter, JsonlWriter, OutDir, ProgressReporter, SummaryReporter};
use crate::suite::Variant;

/// Run the CLI for a binary whose registered scenarios are `variants`.
pub fn run(variants: &[Variant]) -> ExitCode {
    run_from(std::env::args_os(), variants)
}

/// [`run`] with the command line given (`cargo harness` passes its own, less `harness`).
pub fn run_from(argv: impl IntoIterator<Item = std::ffi::OsString>, variants: &[Variant]) -> ExitCode {
    let argv: Vec<std::ffi::OsString> = argv.into_iter().collect();
    #[cfg(not(feature = "cli"))]
    if let Some(command) = argv.get(1).and_then(|a| a.to_str()).filter(|a| suite_args::CLI_ONLY.contains(a)) {
        let e = Error::CliOnly {
            command: command.to_owned(),
        };
        eprintln!("error: {e}");
        return ExitCode::from(ExitCodes::for_error(&e));
    }
    let args = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            match values::invalid_value_message(&e) {
                Some(message) => eprintln!("error: {message}"),
                None => {
                    let _ = e.print();
                }
            }
            return ExitCode::from(if e.use_stderr() { ExitCodes::USAGE } else { ExitCodes::OK });
        }
    };
    match dispatch(args, variants) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(ExitCodes::for_error(&e))
        }
    }
}

fn dispatch(args: Args, variants: &[Variant]) -> Result<u8, Error> {
    // Without a subcommand a test runner may be driving this binary (see `libtest_mode`).
    let implicit = args.command.is_none();
    let run_args = match args.command {
        Some(args::Command::Run(r)) => r,
        #[cfg(feature = "cli")]
        Some(args::Command::Report(r)) => return report_command(&r),
        #[cfg(feature = "cli")]
        Some(args::Command::History(h)) => return history::run(&h),
        #[cfg(feature = "cli")]
        Some(args::Command::Merge(m)) => return history::merge(&m),
        #[cfg(feature = "cli")]
        Some(args::Command::Detect(d)) => return detect::run(&d, list::listed(variants)),
        #[cfg(feature = "cli")]
        Some(args::Command::Compare(c)) => {
            let _clocks = c.session.gpu.lock()?;
            return compare::compare(&compare_args::compare_options(&c, !variants.is_empty())?);
        }
        #[cfg(feature = "cli")]
        Some(args::Command::Bisect(b)) => return bisect::bisect(&bisect_args::bisect_options(&b)?),
        #[cfg(feature = "cli")]
        Some(args::Command::Calibrate(c)) => {
            let _clocks = c.session.gpu.lock()?;
            return compare::calibrate(&compare_args::calibrate_options(&c, !variants.is_empty())?);
        }
        None => args.run,
    };
    let own = list::listed(variants);
    if run_args.list {
        return list::print_list(&run_args, &own);
    }
    if implicit && !run_args.bench && (libtest_mode::invoked_by_nextest() || libtest_mode::invoked_by_cargo_test()) {
        return libtest_mode::run(&run_args, &own);
    }
    run_command(run_args, own, None)
}

/// `run` on `given` (the test binaries `cargo harness run --tests` built), or on the target the
/// arguments choose.
pub(crate) fn run_command(run_args: args::RunArgs, own: Vec<Listed>, given: Option<Box<dyn Target>>) -> Result<u8, Error> {
    let opts = options::RunOptions::from_args(&run_args)?;
    // Held until the run returns; dropping it resets the clocks.
    let _clocks = run_args.gpu.lock()?;
    let target: Box<dyn Target> = match (given, &opts.target) {
        (Some(t), _) => t,
        (None, options::TargetChoice::Own) => Box::new(SuiteBinary::current(own)?),
        (None, options::TargetChoice::Suite(p)) => Box::new(SuiteBinary::new(p)),
        (None, options::TargetChoice::Libtest(p)) => Box::new(crate::execute::LibtestBinary::new(p)),
    };
    let mut listed = target.list()?;
    if opts.measures_only {
        listed.retain(|l| l.kind == crate::model::ScenarioKind::Measure);
    }
    let (selected, ignored) = opts.selection.apply(&listed);
    if selected.is_empty() {
        return Err(Error::NothingMatched {
            filters: opts.selection.filters.clone(),
        });
    }
    let mut config = opts.config;
    if let Some(dir) = &run_args.shards.resume {
        config.resume = Some(resume_from(dir, &mut config)?);
    }
    let out = OutDir::create(opts.out.as_deref())?;
    config.scratch = out.scratch()?;
    config.speed_memory = crate::run::speed_memory::location(out.path());
    config.out = out.path().to_owned();
    let mut jsonl = JsonlWriter::new(out.file("results.jsonl"));
    if config.resume.is_some() {
        jsonl = jsonl.appending();
    }
    let mut json = JsonWriter::new(out.file("results.json"));
    let mut csv = CsvWriter::new(out.file("results.csv"));
    let mut progress = ProgressReporter::default();
    let mut summary = SummaryReporter::new(std::io::stdout());
    let mut html = HtmlReporter::new(out.path().to_owned(), std::io::stdout());
    #[cfg(feature = "junit")]
    let mut junit = crate::report::JunitWriter::new(out.file("junit.xml"));
    let mut reporters = Reporters::new();
    reporters
        .push(&mut jsonl)
        .push(&mut json)
        .push(&mut csv)
        .push(&mut progress)
        .push(&mut summary);
    // Without the `junit` feature (a lean suite binary) the run writes no junit.xml.
    #[cfg(feature = "junit")]
    reporters.push(&mut junit);
    reporters.push(&mut html);
    // `opts.history` is `None` in a build without the history (`from_args` refuses it).
    #[cfg(feature = "history")]
    let mut history = opts.history.map(|(db, label)| crate::history::HistoryReporter::new(db, label));
    #[cfg(feature = "history")]
    if let Some(h) = &mut history {
        reporters.push(h);
    }
    let results = crate::run::run(target.as_ref(), &selected, &config, &mut reporters)?;
    for l in &ignored {
        // Like libtest: say what was left out and why (run them with --ignored / --include-ignored).
        println!("ignored  {}  ({})", l.name, l.ignored.as_deref().unwrap_or(""));
    }
    let _ = std::fs::remove_dir(&config.scratch);
    println!("results: {}", out.path().display());
    let failed = results.summaries.iter().any(|s| s.verdict.is_failure());
    Ok(if failed { ExitCodes::FAILURES } else { ExitCodes::OK })
}

/// The interrupted run in `dir`: its seed and command replace this invocation's.
fn resume_from(dir: &std::path::Path, config: &mut crate::run::RunConfig) -> Result<crate::run::Resume, Error> {
    let prior = crate::report::read_results(dir)?;
    config.seed = prior.meta.seed;
    config.command = prior.meta.command.clone();
    Ok(crate::run::Resume {
        dir: dir.to_owned(),
        started_at: prior.meta.started_at,
        plan: prior.meta.plan,
        records: prior.runs,
    })
}

#[cfg(feature = "cli")]
fn report_command(r: &args::ReportArgs) -> Result<u8, Error> {
    println!("report: {}", crate::report::write_html(&r.dir)?.display());
    Ok(ExitCodes::OK)
}
