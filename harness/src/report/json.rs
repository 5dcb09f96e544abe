//! `results.json`: written with the run's metadata when it starts (so even a killed run says how
//! to reproduce it) and rewritten whole when it ends.

use std::path::{Path, PathBuf};

use super::files::{io_err, write_json};
use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};
use crate::model::{ResultsFile, RunRecord};

/// Writes `results.json` at the start and the end of a run.
pub struct JsonWriter {
    path: PathBuf,
}

impl JsonWriter {
    /// Writes to `path`.
    pub fn new(path: PathBuf) -> Self {
        JsonWriter { path }
    }
}

impl Reporter for JsonWriter {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        match event {
            RunEvent::Started { meta, .. } => {
                let partial = ResultsFile {
                    meta: (*meta).clone(),
                    summaries: Vec::new(),
                    runs: Vec::new(),
                };
                write_json(&self.path, &partial)
            }
            RunEvent::Finished(Done::Run(results)) => write_json(&self.path, results),
            _ => Ok(()),
        }
    }
}

/// The lines of `text` that were written whole: a kill in the middle of an append can leave a
/// last line without its newline, which is a torn record, not a malformed file.
pub(crate) fn complete_lines(text: &str) -> std::str::Lines<'_> {
    text.rfind('\n').map_or("", |end| &text[..=end]).lines()
}

/// Read a run directory back: `results.json`, with runs from `results.jsonl` when the run was
/// cut short (its summaries are then recomputed). Errors name the file and the line or column.
pub fn read_results(dir: &Path) -> Result<ResultsFile, Error> {
    let json_path = dir.join("results.json");
    let text = std::fs::read_to_string(&json_path).map_err(io_err(format!("reading {}", json_path.display())))?;
    let mut results: ResultsFile = serde_json::from_str(&text).map_err(|e| Error::BadResultsFile {
        path: json_path.clone(),
        detail: format!("line {}, column {}: {e}", e.line(), e.column()),
    })?;
    if results.meta.finished_at.is_empty() {
        let jsonl = dir.join("results.jsonl");
        let text = std::fs::read_to_string(&jsonl).unwrap_or_default();
        let mut runs = Vec::new();
        for (i, line) in complete_lines(&text).enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let r: RunRecord = serde_json::from_str(line).map_err(|e| Error::BadResultsFile {
                path: jsonl.clone(),
                detail: format!("line {}, column {}: {e}", i + 1, e.column()),
            })?;
            runs.push(r);
        }
        runs.sort_by_key(|r| r.run_index);
        let remembered = results.meta.remembered_full_speed.as_ref().map(|m| m.probe_ns);
        results.summaries = crate::model::summarize_remembering(&runs, remembered);
        results.runs = runs;
    }
    Ok(results)
}
