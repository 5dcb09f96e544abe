//! `Sample`: a borrowed slice of at least two finite values, and the descriptive statistics on it.

use super::errors::StatsError;

/// At least two finite values. Constructing one is the only validation the statistics need,
/// so methods on it cannot meet NaN or an empty slice (after criterion's
/// `stats/univariate/sample.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample<'a>(&'a [f64]);

impl<'a> Sample<'a> {
    /// Wraps `values`, rejecting fewer than 2 of them or any NaN or infinity.
    pub fn new(values: &'a [f64]) -> Result<Sample<'a>, StatsError> {
        check_finite(values)?;
        if values.len() < 2 {
            return Err(StatsError::TooFew {
                needed: 2,
                got: values.len(),
            });
        }
        Ok(Sample(values))
    }

    /// The values, in their original order.
    pub fn as_slice(&self) -> &'a [f64] {
        self.0
    }

    /// Number of values (always at least 2).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a `Sample` holds at least 2 values.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Arithmetic mean.
    pub fn mean(&self) -> f64 {
        self.0.iter().sum::<f64>() / self.0.len() as f64
    }

    /// Unbiased variance (divisor n - 1), computed around the mean in a second pass.
    pub fn var(&self) -> f64 {
        let m = self.mean();
        self.0.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (self.0.len() - 1) as f64
    }

    /// Square root of [`Sample::var`].
    pub fn std_dev(&self) -> f64 {
        self.var().sqrt()
    }

    /// Standard error of the mean, `s / sqrt(n)`.
    pub fn std_err(&self) -> f64 {
        self.std_dev() / (self.0.len() as f64).sqrt()
    }

    /// Smallest value.
    pub fn min(&self) -> f64 {
        self.0.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// Largest value.
    pub fn max(&self) -> f64 {
        self.0.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }

    /// The values sorted ascending (a copy).
    pub fn sorted(&self) -> Vec<f64> {
        let mut v = self.0.to_vec();
        v.sort_by(f64::total_cmp);
        v
    }

    /// Median (mean of the two middle values when n is even).
    pub fn median(&self) -> f64 {
        quantile_sorted(&self.sorted(), 0.5)
    }

    /// Quantile `p` in [0, 1], linear interpolation between order statistics
    /// (Hyndman & Fan 1996 type 7, R's default).
    pub fn quantile(&self, p: f64) -> f64 {
        quantile_sorted(&self.sorted(), p)
    }
}

/// The median of plain values (mean of the middle two when n is even; 0 for none): the
/// within-process centre of a measurement and of a counting process's calls.
pub(crate) fn median_of(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { quantile_sorted(&v, 0.5) }
}

/// Rejects the first NaN or infinite value, naming its position.
pub(crate) fn check_finite(values: &[f64]) -> Result<(), StatsError> {
    match values.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(StatsError::NonFinite {
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// Type-7 quantile of an ascending, non-empty slice.
pub(crate) fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_too_few_and_non_finite_with_a_message_that_names_them() {
        let e = Sample::new(&[1.0]).unwrap_err();
        assert_eq!(e.to_string(), "need at least 2 values, got 1");
        let e = Sample::new(&[1.0, 2.0, 3.0, f64::NAN]).unwrap_err();
        assert_eq!(e.to_string(), "value 3 is NaN; every value must be finite");
        assert!(Sample::new(&[f64::INFINITY, 1.0]).is_err());
    }

    #[test]
    fn descriptive_statistics_match_hand_values() {
        let s = Sample::new(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mean(), 5.0);
        assert!((s.var() - 32.0 / 7.0).abs() < 1e-12);
        assert_eq!(s.median(), 4.5);
        assert_eq!((s.min(), s.max()), (2.0, 9.0));
        // Type 7: h = 7 * 0.25 = 1.75 -> 4 + 0.75 * (4 - 4) = 4.
        assert_eq!(s.quantile(0.25), 4.0);
        assert_eq!(s.quantile(0.75), 5.5);
    }
}
