//! `StatsError`: what was wrong with the input to a statistic, quoting the bad value.

/// Why a statistic could not be computed. Messages quote the offending count or value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// Fewer values than the statistic needs.
    #[error("need at least {needed} values, got {got}")]
    TooFew {
        /// The minimum the statistic needs.
        needed: usize,
        /// How many were given.
        got: usize,
    },
    /// A NaN or infinite value.
    #[error("value {index} is {value}; every value must be finite")]
    NonFinite {
        /// Position of the value in the input slice.
        index: usize,
        /// The value itself (NaN, inf or -inf).
        value: f64,
    },
    /// A NaN or infinite value inside one within-process series.
    #[error("within-process series {series}, value {index} is {value}; every value must be finite")]
    NonFiniteWithin {
        /// Which series (process).
        series: usize,
        /// Position inside the series.
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// The within-process series do not line up with the per-process values.
    #[error("got {series} within-process series for {values} per-process values; need one series per process")]
    WithinMismatch {
        /// Number of series given.
        series: usize,
        /// Number of per-process values given.
        values: usize,
    },
    /// A confidence level, alpha or power outside the open interval (0, 1).
    #[error("{what} {value} is outside (0, 1)")]
    BadProbability {
        /// Which parameter ("level", "alpha", "power").
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// Both samples are constant, so a t statistic is 0/0; compare the values exactly instead.
    #[error("both samples have zero variance (means {mean_a} and {mean_b}); compare them exactly, not with a t test")]
    ZeroVariance {
        /// Mean (the constant value) of the first sample.
        mean_a: f64,
        /// Mean of the second sample.
        mean_b: f64,
    },
}

/// Checks that `p` is a probability strictly between 0 and 1.
pub(crate) fn check_probability(what: &'static str, value: f64) -> Result<(), StatsError> {
    if value > 0.0 && value < 1.0 {
        Ok(())
    } else {
        Err(StatsError::BadProbability { what, value })
    }
}
