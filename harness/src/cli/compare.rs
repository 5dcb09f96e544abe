//! `compare` and `calibrate`: put the reporters on the seam (results.jsonl, compare.json/csv/md,
//! compare-run.json, progress, the printed markdown, index.html), run the pipeline in
//! [`crate::compare`], and map its outcome to the exit status.

use super::exit_code::ExitCodes;
use crate::compare::{CalibrateOptions, CompareFiles, CompareOptions, CompareSummary, plan_compare, run_calibrate, run_compare};
use crate::errors::Error;
use crate::events::Reporters;
use crate::report::{HtmlReporter, JsonlWriter, OutDir, ProgressReporter};

/// Run `compare`: non-zero under `--fail-on-regression` when a row regressed.
pub(crate) fn compare(opts: &CompareOptions) -> Result<u8, Error> {
    let plan = plan_compare(opts)?;
    let out = OutDir::create(opts.out.as_deref())?;
    let mut jsonl = JsonlWriter::new(out.file("results.jsonl"));
    let mut files = CompareFiles::new(out.path().to_owned(), opts.mde_report);
    let mut progress = ProgressReporter::default();
    let mut summary = CompareSummary::new(std::io::stdout(), opts.mde_report);
    let mut html = HtmlReporter::new(out.path().to_owned(), std::io::stdout());
    let mut reporters = Reporters::new();
    reporters
        .push(&mut jsonl)
        .push(&mut files)
        .push(&mut progress)
        .push(&mut summary)
        .push(&mut html);
    let outcome = run_compare(plan, opts, &out, &mut reporters)?;
    println!("compare: {}", out.path().display());
    Ok(if opts.fail_on_regression && outcome.regressed() {
        ExitCodes::FAILURES
    } else {
        ExitCodes::OK
    })
}

/// Run `calibrate`.
pub(crate) fn calibrate(opts: &CalibrateOptions) -> Result<u8, Error> {
    let mut progress = ProgressReporter::default();
    run_calibrate(opts, &mut progress)?;
    Ok(ExitCodes::OK)
}
