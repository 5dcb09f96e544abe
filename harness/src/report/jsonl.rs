//! `JsonlWriter`: appends each finished process's records to `results.jsonl` and flushes them,
//! so a crash or a `kill -9` of the harness (run, detect or compare) keeps every finished process.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use super::files::io_err;
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};

/// Writes `results.jsonl`, one [`RunRecord`](crate::model::RunRecord) a line.
pub struct JsonlWriter {
    path: PathBuf,
    file: Option<File>,
    append: bool,
}

impl JsonlWriter {
    /// Writes to `path` (truncated at the start of the run).
    pub fn new(path: PathBuf) -> Self {
        JsonlWriter { path, file: None, append: false }
    }

    /// Appends to the file instead (a resumed run keeps the runs already there).
    pub fn appending(self) -> Self {
        JsonlWriter { append: true, ..self }
    }
}

impl Reporter for JsonlWriter {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        match event {
            RunEvent::Started { .. } => {
                let f = OpenOptions::new()
                    .create(true)
                    .write(true)
                    .append(self.append)
                    .truncate(!self.append)
                    .open(&self.path);
                self.file = Some(f.map_err(io_err(format!("creating {}", self.path.display())))?);
            }
            RunEvent::ProcessFinished { records } => {
                if let Some(f) = &mut self.file {
                    let mut lines = String::new();
                    for r in *records {
                        lines.push_str(&serde_json::to_string(r).expect("records serialize"));
                        lines.push('\n');
                    }
                    f.write_all(lines.as_bytes())
                        .and_then(|_| f.flush())
                        .map_err(io_err(format!("appending to {}", self.path.display())))?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
