//! `Store` in a build without the `history` feature: opening one says so (exit 2), so a suite
//! binary built lean (harness-criterion) refuses `--history` and `history` instead of
//! compiling SQLite it rarely needs.

use std::path::Path;

pub use super::stored::{StoredRun, StoredValue};
use crate::errors::Error;
use crate::model::ResultsFile;

/// No store can be opened in this build, so no value of this type exists.
pub enum Store {}

impl Store {
    /// Always the `NotBuiltIn` error naming the feature.
    pub fn open(_path: &Path) -> Result<Self, Error> {
        Err(Error::NotBuiltIn {
            what: "the history (`--history`, `history`)",
            feature: "history",
        })
    }

    /// Unreachable: no `Store` exists.
    pub fn add(&mut self, _results: &ResultsFile, _label: Option<&str>) -> Result<i64, Error> {
        match *self {}
    }

    /// Unreachable: no `Store` exists.
    pub fn runs(&self) -> Result<Vec<StoredRun>, Error> {
        match *self {}
    }

    /// Unreachable: no `Store` exists.
    pub fn values(&self) -> Result<Vec<StoredValue>, Error> {
        match *self {}
    }

    /// Unreachable: no `Store` exists.
    pub fn profiles(&self, _run_id: i64, _scenario: &str, _source: &str) -> Result<Vec<crate::model::Profile>, Error> {
        match *self {}
    }
}
