//! The rows the history holds, apart from the store that reads them (which a lean build lacks).

/// One stored run, without its values.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// Row id, increasing in the order runs were added.
    pub id: i64,
    /// Start time of the run, RFC 3339.
    pub started_at: String,
    /// Seed of the run's order.
    pub seed: String,
    /// Git commit without the dirty mark, if known.
    pub commit: Option<String>,
    /// Whether the tree had uncommitted changes.
    pub dirty: bool,
    /// Host name.
    pub hostname: String,
    /// The label given to `history add`.
    pub label: Option<String>,
    /// The run's environment fingerprint (`crate::fingerprint`); empty for runs stored before
    /// schema 4 or made by a harness that did not record one.
    pub fingerprint: std::collections::BTreeMap<String, String>,
}

/// One process's value of one metric of one scenario in one stored run.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredValue {
    /// The run's row id.
    pub run_id: i64,
    /// Scenario name.
    pub scenario: String,
    /// Metric name.
    pub metric: String,
    /// Unit symbol.
    pub unit: String,
    /// The value.
    pub value: f64,
    /// The counter source that made it; `None` for wall time.
    pub source: Option<String>,
}
