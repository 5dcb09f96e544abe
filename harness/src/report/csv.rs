//! `results.csv`: tidy, one row per run per metric (a check's run is one row with no metric).

use std::path::Path;

use serde::Serialize;

use super::out_dir::io_err;
use crate::errors::Error;
use crate::model::ResultsFile;

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
}

/// Write `results.csv` for `results` to `path`.
pub fn write_csv(path: &Path, results: &ResultsFile) -> Result<(), Error> {
    let mut w = csv::Writer::from_path(path).map_err(|e| Error::Io {
        what: format!("creating {}", path.display()),
        source: e.into(),
    })?;
    for r in &results.runs {
        let kind = match r.kind {
            crate::model::ScenarioKind::Check => "check",
            crate::model::ScenarioKind::Measure => "measure",
            crate::model::ScenarioKind::Test => "test",
        };
        let env = r.env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";");
        let base = |metric, unit, value, iterations| Row {
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
        };
        let rows: Vec<Row> = if r.metrics.is_empty() {
            vec![base("", "", None, 0)]
        } else {
            r.metrics
                .iter()
                .map(|m| base(&m.name, m.unit.symbol(), Some(m.value), m.iterations.len().max(1)))
                .collect()
        };
        for row in rows {
            w.serialize(row).map_err(|e| Error::Io {
                what: format!("writing {}", path.display()),
                source: e.into(),
            })?;
        }
    }
    w.flush().map_err(io_err(format!("flushing {}", path.display())))
}
