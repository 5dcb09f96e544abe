//! `Listed`: one scenario (variant) as a target lists it; what `plan`, `detect` and `compare`
//! select from.

use std::collections::BTreeMap;
use std::time::Duration;

use super::ScenarioKind;

/// One scenario (variant) as a target lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// Full name, as `--list` prints it.
    pub name: String,
    /// Check, measure or test.
    pub kind: ScenarioKind,
    /// `Some(reason)` when ignored by default.
    pub ignored: Option<String>,
    /// Env its processes must start with (env-matrix variants).
    pub env: BTreeMap<String, String>,
    /// The scenario's own timeout, if it set one.
    pub timeout: Option<Duration>,
    /// `Some(reason)` when `--counters` must not count it (CUDA kernels: host instructions
    /// mean nothing); it keeps its wall-time processes.
    pub uncounted: Option<String>,
}
