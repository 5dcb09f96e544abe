//! `HistoryReporter`: adds the finished run to the history database (`run --history FILE`).

use std::path::PathBuf;

use super::Store;
use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};

/// Stores the run in the history at [`RunEvent::Finished`].
pub struct HistoryReporter {
    db: PathBuf,
    label: Option<String>,
}

impl HistoryReporter {
    /// Adds to the database at `db`, under `label`.
    pub fn new(db: PathBuf, label: Option<String>) -> Self {
        HistoryReporter { db, label }
    }
}

impl Reporter for HistoryReporter {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        if let RunEvent::Finished(Done::Run(results)) = event {
            let id = Store::open(&self.db)?.add(results, self.label.as_deref())?;
            println!("history: run {id} added to {}", self.db.display());
        }
        Ok(())
    }
}
