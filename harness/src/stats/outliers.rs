//! `tukey_outliers`: Tukey's fences, flagging (never removing) mild and severe outliers.
//!
//! Tukey, *Exploratory Data Analysis* (1977): with quartiles Q1, Q3 and IQR = Q3 - Q1, a value
//! beyond 1.5 IQR from the quartiles is "outside" (mild here) and beyond 3 IQR "far out"
//! (severe). For normal data the 1.5 IQR fences sit at +-2.70 sd and flag 0.70% of values;
//! the 3 IQR fences sit at +-4.72 sd and flag 2.4e-6, so a severe flag on well-behaved data is
//! news. The summary applies the fences to log values for positive metrics, where run-time
//! noise is closer to symmetric (criterion's `stats/univariate/outliers/tukey.rs` uses the
//! same constants on raw values).

use serde::{Deserialize, Serialize};

use super::sample::{Sample, quantile_sorted};

/// Inner fence multiplier: beyond it a value is a mild outlier.
pub const MILD_IQR: f64 = 1.5;
/// Outer fence multiplier: beyond it a value is a severe outlier.
pub const SEVERE_IQR: f64 = 3.0;
/// Below this many values quartiles say too little to call anything an outlier.
pub const MIN_N_FOR_OUTLIERS: usize = 4;

/// How far outside the fences a value lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Beyond 1.5 IQR, within 3 IQR.
    Mild,
    /// Beyond 3 IQR.
    Severe,
}

/// One flagged value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outlier {
    /// Position in the input (process order).
    pub index: usize,
    /// The value as given (not its log).
    pub value: f64,
    /// Mild or severe.
    pub severity: Severity,
}

/// Flags the values of `sample` outside Tukey's fences, computed on `transform(value)`
/// (identity or `ln`). Returns nothing below [`MIN_N_FOR_OUTLIERS`] values, and nothing when
/// the IQR is zero: then at least half the values tie (a quantized timer, a counter), the
/// fences have zero width and every differing value would be "severe", which says nothing
/// about accidents and everything about the quantization.
pub fn tukey_outliers(sample: &Sample<'_>, transform: impl Fn(f64) -> f64) -> Vec<Outlier> {
    let values = sample.as_slice();
    if values.len() < MIN_N_FOR_OUTLIERS {
        return Vec::new();
    }
    let t: Vec<f64> = values.iter().map(|&x| transform(x)).collect();
    let mut sorted = t.clone();
    sorted.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile_sorted(&sorted, 0.25), quantile_sorted(&sorted, 0.75));
    let iqr = q3 - q1;
    if iqr <= f64::EPSILON * q1.abs().max(q3.abs()) {
        return Vec::new();
    }
    t.iter()
        .enumerate()
        .filter_map(|(index, &y)| {
            let beyond = (q1 - y).max(y - q3);
            let severity = if beyond > SEVERE_IQR * iqr {
                Severity::Severe
            } else if beyond > MILD_IQR * iqr {
                Severity::Mild
            } else {
                return None;
            };
            Some(Outlier {
                index,
                value: values[index],
                severity,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tied_quartiles_flag_nothing_and_a_real_far_value_is_severe() {
        let tied = [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 6.0, 4.0, 5.0, 9.0];
        assert!(tukey_outliers(&Sample::new(&tied).unwrap(), |x| x).is_empty());
        let spread = [5.0, 5.1, 4.9, 5.2, 4.8, 5.0, 5.05, 4.95, 5.1, 9.0];
        let out = tukey_outliers(&Sample::new(&spread).unwrap(), |x| x);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].index, out[0].severity), (9, Severity::Severe));
    }
}
