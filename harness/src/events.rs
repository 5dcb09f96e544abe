//! `RunEvent`: the one seam between running and reporting, shared by `run`, `detect` and
//! `compare`. Runners emit events; every output (results.jsonl, the command's JSON files, the
//! terminal summary, index.html, the progress bar) is a [`Reporter`] and never calls back.
//!
//! May import `model` and `errors` only: the seam knows nothing of how processes run or how a
//! report looks.

use crate::errors::Error;
use crate::model::{CompareEntry, CompareRun, DetectEntry, DetectRun, ResultsFile, RunMeta, RunRecord};

/// Something that happened during a command.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// The command is about to start `total` processes (more may be planned later).
    Started {
        /// Reproduction facts and host.
        meta: &'a RunMeta,
        /// Processes planned so far.
        total: usize,
    },
    /// A named phase begins (`run`; detect's `isolated`, `shared`, `verdicts`; `compare`).
    PhaseStarted {
        /// The phase.
        name: &'a str,
        /// Processes it plans to start (it may plan more later).
        planned: usize,
    },
    /// The phase ended.
    PhaseFinished {
        /// The phase.
        name: &'a str,
    },
    /// The process that just finished belonged to this phase (detect, whose phases overlap:
    /// the progress display counts processes per phase).
    PhaseProcess {
        /// The phase.
        name: &'a str,
    },
    /// The command planned more processes (`--target-ci`, a crash that splits a schedule,
    /// localization).
    Planned {
        /// Processes added.
        added: usize,
    },
    /// A process is about to start.
    ProcessStarted {
        /// The run index of its first record.
        index: usize,
        /// Scenarios it runs, in the order asked for.
        names: &'a [String],
    },
    /// A process ended; its records (one per scenario asked for) are final.
    ProcessFinished {
        /// The records, in the order the scenarios ran.
        records: &'a [RunRecord],
    },
    /// A result of the command: a detect entry or a compare row.
    Finding(Finding<'a>),
    /// Every process finished; the command's results are final.
    Finished(Done<'a>),
}

/// One finding, emitted once it is final.
#[derive(Debug, Clone, Copy)]
pub enum Finding<'a> {
    /// One scenario's detect verdict.
    Detect(&'a DetectEntry),
    /// One scenario x metric of a comparison.
    Compare(&'a CompareEntry),
}

/// What a finished command produced.
#[derive(Debug, Clone, Copy)]
pub enum Done<'a> {
    /// `run`: everything, summaries computed.
    Run(&'a ResultsFile),
    /// `detect`: the entries and the run facts.
    Detect {
        /// One per scenario.
        entries: &'a [DetectEntry],
        /// detect-run.json.
        run: &'a DetectRun,
    },
    /// `compare`: the rows and the run facts.
    Compare {
        /// One per scenario x metric.
        entries: &'a [CompareEntry],
        /// compare-run.json.
        run: &'a CompareRun,
    },
}

/// A consumer of [`RunEvent`]s. `Send`, so the targets of one `detect` can run on several
/// threads that share the command's reporters.
pub trait Reporter: Send {
    /// Handle one event. An error stops the command (e.g. the output directory vanished).
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error>;
}

/// Every reporter of a command, in order: itself a [`Reporter`] that hands each event to all.
/// Adding an output to a command is one `push`.
#[derive(Default)]
pub struct Reporters<'r> {
    all: Vec<&'r mut dyn Reporter>,
}

impl<'r> Reporters<'r> {
    /// No reporters yet.
    pub fn new() -> Self {
        Reporters { all: Vec::new() }
    }

    /// Add `r`; it sees events after the ones added before it.
    pub fn push(&mut self, r: &'r mut dyn Reporter) -> &mut Self {
        self.all.push(r);
        self
    }
}

impl Reporter for Reporters<'_> {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        self.all.iter_mut().try_for_each(|r| r.on_event(event))
    }
}

/// Keeps every event it sees, as text, for tests.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Recorder {
    pub seen: Vec<String>,
}

#[cfg(test)]
impl Reporter for Recorder {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        self.seen.push(match event {
            RunEvent::Started { total, .. } => format!("started {total}"),
            RunEvent::PhaseStarted { name, planned } => format!("phase {name} {planned}"),
            RunEvent::PhaseFinished { name } => format!("end {name}"),
            RunEvent::PhaseProcess { name } => format!("in {name}"),
            RunEvent::Planned { added } => format!("planned {added}"),
            RunEvent::ProcessStarted { names, .. } => format!("start {}", names.join(",")),
            RunEvent::ProcessFinished { records } => format!("done {}", records.len()),
            RunEvent::Finding(_) => "finding".into(),
            RunEvent::Finished(_) => "finished".into(),
        });
        Ok(())
    }
}
