//! `Error`: every expected failure of the harness, each naming the file, flag or field at fault.

use std::path::PathBuf;

/// An expected failure. Messages name the flag, file or field and quote the bad value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command-line value is out of range or malformed.
    #[error("invalid value {value:?} for '{flag}': {reason}")]
    InvalidFlag {
        /// The flag, e.g. `--repeat`.
        flag: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The output directory cannot be created or written.
    #[error("cannot write to the output directory '{}' (--out): {source}", path.display())]
    OutDir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A results file is malformed.
    #[error("malformed results file '{}': {detail}", path.display())]
    BadResultsFile {
        /// The file.
        path: PathBuf,
        /// Where and what.
        detail: String,
    },
    /// A directory given to `report` holds none of the results files.
    #[error("'{}' holds no results.json, detect.json or compare.json to report on", dir.display())]
    NoResults {
        /// The directory.
        dir: PathBuf,
    },
    /// A binary did not answer like a harness suite.
    #[error("'{}' is not a harness suite binary: {detail}", path.display())]
    NotASuite {
        /// The binary.
        path: PathBuf,
        /// What it said.
        detail: String,
    },
    /// A binary did not answer like a libtest test binary.
    #[error("'{}' is not a libtest test binary: {detail}", path.display())]
    NotATestBinary {
        /// The binary.
        path: PathBuf,
        /// What it said.
        detail: String,
    },
    /// Two registered scenarios have the same name.
    #[error("two scenarios are named {name:?}: one built at {first}, one at {second} (names must be unique)")]
    DuplicateScenario {
        /// The shared name.
        name: String,
        /// Where the first was built (`file:line`).
        first: String,
        /// Where the second was built.
        second: String,
    },
    /// Filters matched nothing.
    #[error("no scenario matches the filters {filters:?} (use --list to see names)")]
    NothingMatched {
        /// The filters given.
        filters: Vec<String>,
    },
    /// cargo could not report on or build the workspace.
    #[error("{what}: {detail}")]
    Cargo {
        /// The cargo command.
        what: String,
        /// What went wrong.
        detail: String,
    },
    /// The history database cannot be opened, read or written (damaged, locked, newer schema).
    #[error("history database '{}': {detail}", path.display())]
    History {
        /// The database file (--db).
        path: PathBuf,
        /// What failed.
        detail: String,
    },
    /// The run is already in the history.
    #[error("history database '{}' already holds this run (id {id}, started {started_at}); nothing added", path.display())]
    HistoryDuplicate {
        /// The database file (--db).
        path: PathBuf,
        /// The stored run's id.
        id: i64,
        /// The run's start time.
        started_at: String,
    },
    /// Shard directories given to `merge` do not make one whole plan.
    #[error("cannot merge: {detail}")]
    Merge {
        /// Which shard, and what is wrong with it.
        detail: String,
    },
    /// `--counters` cannot count here (no valgrind, no PMU), or counts of two sources met.
    #[error("{detail}")]
    Counters {
        /// What is missing and what would work.
        detail: String,
    },
    /// One of criterion's flags with no equivalent here.
    #[error("criterion's {flag} has no equivalent in the harness: {instead}")]
    Unsupported {
        /// The flag, e.g. `--save-baseline`.
        flag: &'static str,
        /// What to use instead.
        instead: &'static str,
    },
    /// A command of the harness CLI asked of a suite binary built without it (harness's `cli`
    /// feature; harness-criterion builds benches so).
    #[error(
        "`{command}` is a command of the harness CLI, which this suite binary was built without \
         (harness's cargo feature `cli`; harness-criterion's `cli` adds it): run `harness {command}` on \
         the binary (see `harness {command} --help`)"
    )]
    CliOnly {
        /// The command asked for.
        command: String,
    },
    /// A feature this binary was built without (a suite binary built lean, as harness-criterion
    /// builds it) was asked for.
    #[error(
        "this binary was built without {what} (harness's cargo feature `{feature}`): run the suite \
         through the harness CLI (`harness run --suite-bin PATH ...`), or build it with the feature \
         (harness-criterion's feature `{feature}`)"
    )]
    NotBuiltIn {
        /// What was asked for, e.g. `--history`.
        what: &'static str,
        /// The cargo feature that provides it.
        feature: &'static str,
    },
    /// Any other I/O failure, with what was being done.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        source: std::io::Error,
    },
}
