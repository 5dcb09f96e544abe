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
        JsonlWriter {
            path,
            file: None,
            append: false,
        }
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
                if self.append {
                    drop_torn_tail(&self.path).map_err(io_err(format!("repairing {}", self.path.display())))?;
                }
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

/// A run killed mid-append can leave a last line without its newline; cut it off before
/// appending, or the next record would be glued onto it.
fn drop_torn_tail(path: &std::path::Path) -> std::io::Result<()> {
    let Ok(text) = std::fs::read(path) else {
        return Ok(()); // nothing there yet
    };
    let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if whole < text.len() {
        OpenOptions::new().write(true).open(path)?.set_len(whole as u64)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appending_cuts_a_torn_last_line_and_keeps_whole_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"torn\":").unwrap();
        drop_torn_tail(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"b\":2}\n");
        drop_torn_tail(&path).unwrap(); // whole already: unchanged
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"b\":2}\n");
        assert_eq!(crate::report::json::complete_lines("x\ny\nto").collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(crate::report::json::complete_lines("no newline").count(), 0);
    }
}
