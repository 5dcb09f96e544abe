//! The detect and compare files as the report reads them (`DetectEntry`, `CompareEntry`, ...),
//! following the shared schema, with `#[serde(default)]` wherever a field may be absent.
//!
//! These are the report's own structs on purpose: the writers live in other modules and may add
//! fields; the report reads what it shows and ignores the rest.

use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::errors::Error;
use crate::model::HostInfo;

/// One entry of `detect.json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct DetectEntry {
    pub name: String,
    pub verdict: String,
    #[serde(default)]
    pub polluters: Vec<String>,
    #[serde(default)]
    pub state_setters: Vec<String>,
    #[serde(default)]
    pub cleaners: Vec<String>,
    #[serde(default)]
    pub cleaners_stopped: Option<String>,
    #[serde(default)]
    pub failure_rate: Option<FailureRate>,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    #[serde(default)]
    pub hazards: Vec<Hazard>,
    #[serde(default)]
    pub value_shifts: Vec<ValueShift>,
    #[serde(default)]
    pub package: Option<String>,
    #[serde(default)]
    pub binary: Option<String>,
    #[serde(default)]
    pub reproduce: Option<String>,
    #[serde(default)]
    pub mechanism: Vec<Mechanism>,
    #[serde(default)]
    pub backtrace: Option<String>,
}

/// How a culprit acts on a victim or brittle scenario: env, cwd, file or memory.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Mechanism {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub culprit: String,
    #[serde(default)]
    pub fix: String,
}

/// A flaky scenario's failure rate with its interval.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FailureRate {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    pub k: u64,
    pub n: u64,
}

/// One observation behind a detect verdict.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Evidence {
    pub kind: String,
    #[serde(default)]
    pub order: Vec<String>,
    /// Names that ran before `order`'s first (detect.json keeps an order's tail).
    #[serde(default)]
    pub order_skipped: usize,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub outcome: String,
    #[serde(default)]
    pub detail: String,
    #[serde(default)]
    pub message: Option<String>,
}

/// A process-wide mutation (environment variable or `<cwd>`) a scenario made.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Hazard {
    pub name: String,
    #[serde(default)]
    pub before: Option<String>,
    #[serde(default)]
    pub after: Option<String>,
}

/// A metric whose value moves with the order, in percent.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ValueShift {
    pub metric: String,
    pub shift_pct: f64,
    #[serde(default)]
    pub low_pct: Option<f64>,
    #[serde(default)]
    pub high_pct: Option<f64>,
    #[serde(default)]
    pub p_adjusted: Option<f64>,
    #[serde(default)]
    pub culprits: Vec<String>,
}

/// `detect-run.json`.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct DetectRun {
    #[serde(default)]
    pub format_version: u32,
    #[serde(default)]
    pub binary: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub host: Option<HostInfo>,
    #[serde(default)]
    pub runs: Option<DetectRunCounts>,
    #[serde(default)]
    pub schedules: Vec<Schedule>,
    #[serde(default)]
    pub started_at: String,
    #[serde(default)]
    pub finished_at: String,
}

/// Processes detect spent, by phase.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct DetectRunCounts {
    #[serde(default)]
    pub isolated: usize,
    #[serde(default)]
    pub shared: usize,
    #[serde(default)]
    pub localization: usize,
    #[serde(default)]
    pub total: usize,
}

/// One shared-process order detect ran.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Schedule {
    pub kind: String,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub order: Vec<String>,
}

/// One entry of `compare.json`: a scenario x metric, candidate over baseline.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CompareEntry {
    pub name: String,
    pub metric: String,
    #[serde(default)]
    pub unit: String,
    #[serde(default)]
    pub better: String,
    #[serde(default)]
    pub ratio: Option<f64>,
    #[serde(default)]
    pub low: Option<f64>,
    #[serde(default)]
    pub high: Option<f64>,
    #[serde(default)]
    pub p_value: Option<f64>,
    #[serde(default)]
    pub p_adjusted: Option<f64>,
    pub verdict: String,
    #[serde(default)]
    pub noise_band: Option<f64>,
    #[serde(default)]
    pub mde: Option<f64>,
    #[serde(default)]
    pub n_baseline: usize,
    #[serde(default)]
    pub n_candidate: usize,
    #[serde(default)]
    pub pairs: Option<usize>,
    #[serde(default)]
    pub runs_needed: Option<usize>,
    #[serde(default)]
    pub baseline: Option<Estimate>,
    #[serde(default)]
    pub candidate: Option<Estimate>,
    /// The counter source, for counter rows (`--counters`).
    #[serde(default)]
    pub source: Option<String>,
    /// The functions behind a changed counted row (`explain`).
    #[serde(default)]
    pub explain: Option<Vec<crate::model::ExplainEntry>>,
    /// An exact allocation row's change (`+1 per call`).
    #[serde(default)]
    pub per_call: Option<String>,
}

/// A centre with its interval, in the metric's unit.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Estimate {
    pub center: f64,
    #[serde(default)]
    pub low: Option<f64>,
    #[serde(default)]
    pub high: Option<f64>,
}

/// `compare-run.json`.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CompareRun {
    #[serde(default)]
    pub format_version: u32,
    #[serde(default)]
    pub baseline: String,
    #[serde(default)]
    pub candidate: String,
    #[serde(default)]
    pub design: String,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub alpha: Option<f64>,
    #[serde(default)]
    pub calibration: Option<String>,
    #[serde(default)]
    pub host: Option<HostInfo>,
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub started_at: String,
    #[serde(default)]
    pub finished_at: String,
}

/// Reads `path` as JSON: `None` when it does not exist, an error naming the file, line and
/// column when it is malformed.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Io {
                what: format!("reading {}", path.display()),
                source,
            });
        }
    };
    serde_json::from_str(&text).map(Some).map_err(|e| Error::BadResultsFile {
        path: path.to_owned(),
        detail: format!("line {}, column {}: {e}", e.line(), e.column()),
    })
}

/// Reads a text file, `None` when it does not exist.
pub(crate) fn read_text(path: &Path) -> Result<Option<String>, Error> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Io {
            what: format!("reading {}", path.display()),
            source,
        }),
    }
}
