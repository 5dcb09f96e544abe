//! `Profile` (one process's instructions per function, kept with its `instructions` metric) and
//! `ExplainEntry` (one function's change: the `explain` field of compare.json, changes.json and
//! bisect.json).

use serde::{Deserialize, Serialize};

/// Instructions per call by function (self cost: a callee's instructions are the callee's), of
/// the counted call whose total is the process's value. Compact: the [`Profile::KEEP_MAX`]
/// costliest functions, and the `rest`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// `(function, instructions)`, costliest first. Demangled without hash; code without a
    /// symbol is named by its address in its object, `<object>+0x<offset>`.
    pub functions: Vec<(String, f64)>,
    /// Instructions of the functions not kept.
    pub rest: f64,
    /// Set when some code had no symbols (a stripped binary): says which objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Profile {
    /// The most functions kept: a measured call rarely runs more, so a function missing from
    /// one side's list did not run there (or ran less than every kept one).
    pub const KEEP_MAX: usize = 400;
}

/// Whether a function of an explanation was on both sides, one only, or is the remainder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExplainStatus {
    /// Only in the candidate (`baseline` is null).
    New,
    /// Only in the baseline (`candidate` is null).
    Gone,
    /// The last entry, `function: "other"`: every function not listed, and the difference between
    /// the row's centres and the profiles' sums, so that the `delta`s add up to the row's change.
    Other,
}

/// One function's instructions per call on each side: an entry of `explain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainEntry {
    /// Demangled name without hash (`explain::checksum`), or `other`.
    pub function: String,
    /// Instructions per call in the baseline; null when the function is new.
    pub baseline: Option<f64>,
    /// Instructions per call in the candidate; null when the function is gone.
    pub candidate: Option<f64>,
    /// Candidate minus baseline (a missing side counts 0).
    pub delta: f64,
    /// `new`, `gone` or `other`; absent for a function on both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ExplainStatus>,
}
