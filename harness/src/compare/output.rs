//! Writers: `compare.json` (array), `compare.csv` (same rows, flat), `compare-run.json`,
//! `compare.md`, `calibration.json`, and reading a calibration back.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::errors::Error;
use crate::model::{CalibrationEntry, CompareEntry};

fn io(what: String) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io { what, source }
}

/// Pretty JSON of `value` to `path`, atomically (temp file, then rename).
pub(crate) fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value).expect("compare records serialize");
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(io(format!("writing {}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(io(format!("renaming {} to {}", tmp.display(), path.display())))
}

/// A text file.
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text).map_err(io(format!("writing {}", path.display())))
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
pub(crate) fn write_csv(path: &Path, entries: &[CompareEntry]) -> Result<(), Error> {
    let err = |e: csv::Error| Error::Io {
        what: format!("writing {}", path.display()),
        source: e.into(),
    };
    let mut w = csv::Writer::from_path(path).map_err(err)?;
    for e in entries {
        let better = match e.better {
            crate::model::Better::Lower => "lower",
            crate::model::Better::Higher => "higher",
            crate::model::Better::Neither => "neither",
        };
        w.serialize(Row {
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
        })
        .map_err(err)?;
    }
    w.flush().map_err(io(format!("flushing {}", path.display())))
}

/// Noise bands by (scenario, metric) from a `calibration.json`, with the pairs per session they
/// were measured at (the band is scaled to the pairs a comparison has).
pub(crate) fn read_calibration(path: &Path) -> Result<BTreeMap<(String, String), (f64, usize)>, Error> {
    let text = std::fs::read_to_string(path).map_err(io(format!("reading {} (--calibration)", path.display())))?;
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
