//! `Unit`, `Better` and `MetricSample`: one named measured quantity of one process.

use serde::{Deserialize, Serialize};

/// Which direction of change is an improvement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// Smaller is better (time, bytes allocated).
    Lower,
    /// Larger is better (throughput).
    Higher,
    /// Neither direction is a regression (a counter such as `captures`).
    Neither,
}

/// The unit of a metric. Its serialized form is the short symbol shown in reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Unit {
    /// Nanoseconds.
    Nanoseconds,
    /// Gigabytes per second.
    GBytesPerSec,
    /// Billions of floating-point operations per second.
    GFlopsPerSec,
    /// Millions of elements per second (criterion's `Throughput::Elements`).
    MElementsPerSec,
    /// A count of events.
    Count,
    /// Bytes.
    Bytes,
    /// Anything else, by its symbol.
    Other(String),
}

impl Unit {
    /// The short symbol used in tables, CSV and JSON.
    pub fn symbol(&self) -> &str {
        match self {
            Unit::Nanoseconds => "ns",
            Unit::GBytesPerSec => "GB/s",
            Unit::GFlopsPerSec => "GFLOP/s",
            Unit::MElementsPerSec => "Melem/s",
            Unit::Count => "count",
            Unit::Bytes => "bytes",
            Unit::Other(s) => s,
        }
    }

    /// The direction that is an improvement, unless a metric says otherwise.
    pub fn default_better(&self) -> Better {
        match self {
            Unit::Nanoseconds | Unit::Bytes => Better::Lower,
            Unit::GBytesPerSec | Unit::GFlopsPerSec | Unit::MElementsPerSec => Better::Higher,
            Unit::Count | Unit::Other(_) => Better::Neither,
        }
    }

    /// Strictly positive and multiplicative (times, rates): summarised by a geometric mean.
    pub fn is_ratio_scale(&self) -> bool {
        matches!(
            self,
            Unit::Nanoseconds | Unit::GBytesPerSec | Unit::GFlopsPerSec | Unit::MElementsPerSec
        )
    }
}

impl From<String> for Unit {
    fn from(s: String) -> Self {
        match s.as_str() {
            "ns" => Unit::Nanoseconds,
            "GB/s" => Unit::GBytesPerSec,
            "GFLOP/s" => Unit::GFlopsPerSec,
            "Melem/s" => Unit::MElementsPerSec,
            "count" => Unit::Count,
            "bytes" => Unit::Bytes,
            _ => Unit::Other(s),
        }
    }
}

impl From<Unit> for String {
    fn from(u: Unit) -> Self {
        u.symbol().to_owned()
    }
}

/// One metric as measured by one process: its per-iteration values and their reduction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSample {
    /// Metric name, e.g. `latency_ns`.
    pub name: String,
    /// Unit of every value.
    pub unit: Unit,
    /// Which direction is an improvement.
    pub better: Better,
    /// The one value this process contributes (the mean of `iterations`): the process is the
    /// unit of repetition.
    pub value: f64,
    /// In-process iteration values, kept for the within-process variance diagnostics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iterations: Vec<f64>,
    /// The counter source that made it (`valgrind-callgrind 3.19`, `perf`); `None` for wall
    /// time and what a scenario reports itself. Values of two sources are never compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Under Callgrind, on `instructions`: the counted call's instructions by function, which
    /// `explain` diffs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<super::Profile>,
    /// Why the measuring method distorts this value (the per-call time depends on the batch
    /// size); such a row is `unstable`, never `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distortion: Option<String>,
    /// A CPU-timed metric: the machine's speed probe at the measurement's start and end
    /// (`suite/speed_probe.rs`), in ns; a process whose probe ran slow against the run's fastest
    /// measured on a slowed machine (`model/slowed.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_probe_ns: Option<[f64; 2]>,
}
