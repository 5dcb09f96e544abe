//! `CompareContext`: the compare section's data, `compare.json` with its run facts and PR comment.

use super::super::inputs::{CompareEntry, CompareRun};

/// The `compare` section.
#[derive(Debug, Clone)]
pub(crate) struct CompareContext {
    pub run: CompareRun,
    pub entries: Vec<CompareEntry>,
    /// `compare.md`, the PR-comment table, when present.
    pub markdown: Option<String>,
}
