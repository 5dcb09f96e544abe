//! `Interval`: a confidence interval with the confidence level it achieves.

use serde::{Deserialize, Serialize};

/// A two-sided confidence interval `[low, high]`.
///
/// `level` is the confidence the interval *achieves*, which for discrete methods (order
/// statistics, Clopper-Pearson) can exceed the level asked for, and for a tiny sample can fall
/// short of it (see [`crate::stats::median_interval`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Achieved confidence, e.g. 0.95.
    pub level: f64,
}

impl Interval {
    /// `high - low`.
    pub fn width(&self) -> f64 {
        self.high - self.low
    }

    /// Half the width, the "plus or minus" of a symmetric interval.
    pub fn half_width(&self) -> f64 {
        self.width() / 2.0
    }

    /// Whether `x` lies inside the closed interval.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}
