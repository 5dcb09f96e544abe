//! `RunEvent`: the only seam between running and reporting. The runner emits events; the
//! progress bar, the incremental writers and the final report consume them and never call back.

use crate::errors::Error;
use crate::model::{ResultsFile, RunMeta, RunRecord};

/// Something that happened during a run.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// The run is about to start `total` processes.
    Started {
        /// Reproduction facts and host.
        meta: &'a RunMeta,
        /// Processes planned so far.
        total: usize,
    },
    /// Adaptive repetition (`--target-ci`) planned more processes.
    Planned {
        /// Processes added.
        added: usize,
    },
    /// One process run finished and its record is final.
    RunFinished {
        /// The record.
        record: &'a RunRecord,
    },
    /// Every process finished; the summaries are computed.
    Finished {
        /// Everything the run produced.
        results: &'a ResultsFile,
    },
}

/// A consumer of [`RunEvent`]s.
pub trait Reporter {
    /// Handle one event. An error stops the run (e.g. the output directory vanished).
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error>;
}
