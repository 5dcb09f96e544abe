//! Compare's own outputs as reporters on the event seam — `compare.json` (array), `compare.csv`
//! (same rows, flat), `compare-run.json`, `compare.md` (all through the one atomic writer) and
//! the printed markdown — and reading a calibration back.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{fit, markdown};
use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};
use crate::model::{CalibrationEntry, CompareEntry};
use crate::report::{io_err, write_atomic, write_csv_rows, write_json};

/// Writes `compare.json`, `compare.csv`, `compare-run.json` and `compare.md` when a comparison
/// finishes.
pub struct CompareFiles {
    dir: PathBuf,
    mde_report: f64,
}

impl CompareFiles {
    /// Writes into `dir`; `mde_report` is `--mde-report` for compare.md.
    pub fn new(dir: PathBuf, mde_report: f64) -> Self {
        CompareFiles { dir, mde_report }
    }
}

impl Reporter for CompareFiles {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        if let RunEvent::Finished(Done::Compare { entries, run }) = event {
            write_json(&self.dir.join("compare.json"), entries)?;
            write_csv(&self.dir.join("compare.csv"), entries)?;
            write_json(&self.dir.join("compare-run.json"), run)?;
            let full = markdown::render(entries, run, self.mde_report);
            let md = fit::render(entries, run, self.mde_report, &full, fit::COMMENT_LIMIT);
            write_atomic(&self.dir.join("compare.md"), md.as_bytes())?;
            write_atomic(&self.dir.join("compare-full.md"), full.as_bytes())?;
            step_summary(&full, &md)?;
        }
        Ok(())
    }
}

/// Appends the comparison to GitHub's job summary when `GITHUB_STEP_SUMMARY` names a file: the
/// whole table when it fits the 1 MiB limit beside what the job already wrote, else compare.md.
fn step_summary(full: &str, md: &str) -> Result<(), Error> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = PathBuf::from(path);
    let used = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
    let text = if used + full.len() < fit::STEP_SUMMARY_LIMIT { full } else { md };
    if used + text.len() >= fit::STEP_SUMMARY_LIMIT {
        return Ok(());
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io_err("opening GITHUB_STEP_SUMMARY"))?;
    writeln!(f, "{text}").map_err(io_err("appending to GITHUB_STEP_SUMMARY"))
}

/// Prints compare.md's text when a comparison finishes, explained rows' top 3 functions under them.
pub struct CompareSummary<W: Write> {
    out: W,
    mde_report: f64,
}

impl<W: Write> CompareSummary<W> {
    /// Writes to `out`.
    pub fn new(out: W, mde_report: f64) -> Self {
        CompareSummary { out, mde_report }
    }
}

impl<W: Write + Send> Reporter for CompareSummary<W> {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        if let RunEvent::Finished(Done::Compare { entries, run }) = event {
            let md = markdown::render_terminal(entries, run, self.mde_report);
            writeln!(self.out, "{md}").map_err(io_err("printing the comparison"))?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
struct Row<'a> {
    name: &'a str,
    metric: &'a str,
    unit: &'a str,
    better: &'a str,
    ratio: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
    p_value: Option<f64>,
    p_adjusted: Option<f64>,
    p_mann_whitney: Option<f64>,
    verdict: &'a str,
    noise_band: Option<f64>,
    mde: Option<f64>,
    n_baseline: usize,
    n_candidate: usize,
    pairs: usize,
    runs_needed: Option<usize>,
    baseline_center: Option<f64>,
    baseline_low: Option<f64>,
    baseline_high: Option<f64>,
    candidate_center: Option<f64>,
    candidate_low: Option<f64>,
    candidate_high: Option<f64>,
    note: &'a str,
}

/// `compare.csv`: one row per entry, the side statistics flattened into columns.
fn write_csv(path: &Path, entries: &[CompareEntry]) -> Result<(), Error> {
    let rows = entries.iter().map(|e| {
        let better = match e.better {
            crate::model::Better::Lower => "lower",
            crate::model::Better::Higher => "higher",
            crate::model::Better::Neither => "neither",
        };
        Row {
            name: &e.name,
            metric: &e.metric,
            unit: e.unit.symbol(),
            better,
            ratio: e.ratio,
            low: e.low,
            high: e.high,
            p_value: e.p_value,
            p_adjusted: e.p_adjusted,
            p_mann_whitney: e.p_mann_whitney,
            verdict: e.verdict.as_str(),
            noise_band: e.noise_band,
            mde: e.mde,
            n_baseline: e.n_baseline,
            n_candidate: e.n_candidate,
            pairs: e.pairs,
            runs_needed: e.runs_needed,
            baseline_center: e.baseline.as_ref().map(|s| s.center),
            baseline_low: e.baseline.as_ref().map(|s| s.low),
            baseline_high: e.baseline.as_ref().map(|s| s.high),
            candidate_center: e.candidate.as_ref().map(|s| s.center),
            candidate_low: e.candidate.as_ref().map(|s| s.low),
            candidate_high: e.candidate.as_ref().map(|s| s.high),
            note: e.note.as_deref().unwrap_or(""),
        }
    });
    write_csv_rows(path, rows)
}

/// Noise bands by (scenario, metric) from a `calibration.json`.
/// With the pairs per session each band was measured at (the band is scaled to a row's pairs).
pub(crate) fn read_calibration(path: &Path) -> Result<super::analyze::Calibration, Error> {
    let text = std::fs::read_to_string(path).map_err(io_err(format!("reading {} (--calibration)", path.display())))?;
    let entries: Vec<CalibrationEntry> = serde_json::from_str(&text).map_err(|e| Error::BadResultsFile {
        path: path.to_owned(),
        detail: format!(
            "line {}, column {}: {e} (expected the array `calibrate` writes)",
            e.line(),
            e.column()
        ),
    })?;
    for e in &entries {
        if !(e.noise_band.is_finite() && e.noise_band >= 0.0) {
            return Err(Error::BadResultsFile {
                path: path.to_owned(),
                detail: format!("{} {}: noise_band {} is not a fraction >= 0", e.name, e.metric, e.noise_band),
            });
        }
    }
    Ok(entries.into_iter().map(|e| ((e.name, e.metric), (e.noise_band, e.n))).collect())
}
