//! `results.csv`: tidy, one row per run per metric (a check's run is one row with no metric).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::files::write_csv_rows;
use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};
use crate::model::ResultsFile;

/// Writes `results.csv` when a run finishes.
pub struct CsvWriter {
    path: PathBuf,
}

impl CsvWriter {
    /// Writes to `path`.
    pub fn new(path: PathBuf) -> Self {
        CsvWriter { path }
    }
}

impl Reporter for CsvWriter {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        if let RunEvent::Finished(Done::Run(results)) = event {
            write_csv(&self.path, results)?;
        }
        Ok(())
    }
}

#[derive(Serialize)]
struct Row<'a> {
    run_index: usize,
    scenario: &'a str,
    kind: &'a str,
    env: String,
    repetition: usize,
    status: &'a str,
    metric: &'a str,
    unit: &'a str,
    value: Option<f64>,
    iterations: usize,
    wall_ns: u64,
    /// The counter source of a counter metric (`--counters`); empty for wall time. Last, so
    /// scripts reading columns by position keep working.
    source: &'a str,
}

/// Write `results.csv` for `results` to `path`.
pub fn write_csv(path: &Path, results: &ResultsFile) -> Result<(), Error> {
    let mut rows: Vec<Row> = Vec::new();
    for r in &results.runs {
        let kind = match r.kind {
            crate::model::ScenarioKind::Check => "check",
            crate::model::ScenarioKind::Measure => "measure",
            crate::model::ScenarioKind::Test => "test",
        };
        let env = r.env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";");
        let base = |metric, unit, value, iterations, source| Row {
            run_index: r.run_index,
            scenario: &r.scenario,
            kind,
            env: env.clone(),
            repetition: r.repetition,
            status: r.outcome.status().as_str(),
            metric,
            unit,
            value,
            iterations,
            wall_ns: r.wall_ns,
            source,
        };
        if r.metrics.is_empty() {
            rows.push(base("", "", None, 0, ""));
        } else {
            rows.extend(r.metrics.iter().map(|m| {
                base(
                    &m.name,
                    m.unit.symbol(),
                    Some(m.value),
                    m.iterations.len().max(1),
                    m.source.as_deref().unwrap_or(""),
                )
            }));
        }
    }
    write_csv_rows(path, rows)
}
