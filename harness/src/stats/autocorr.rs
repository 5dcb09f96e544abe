//! `lag1_autocorrelation`: how strongly each in-process iteration predicts the next.
//!
//! The usual estimator `r1 = sum (x_t - xbar)(x_{t+1} - xbar) / sum (x_t - xbar)^2`
//! (Box & Jenkins). Iterations in one process share layout, cache and frequency state, so r1 is
//! often positive; with AR(1) correlation rho the n iterations are worth only
//! `n (1 - rho) / (1 + rho)` independent ones, which is why they are not the unit of repetition.

/// Lag-1 autocorrelation of one series; `None` below 3 values or for a constant series.
pub fn lag1_autocorrelation(series: &[f64]) -> Option<f64> {
    if series.len() < 3 {
        return None;
    }
    let m = series.iter().sum::<f64>() / series.len() as f64;
    let denom: f64 = series.iter().map(|x| (x - m).powi(2)).sum();
    if denom <= 0.0 {
        return None;
    }
    let num: f64 = series.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
    Some(num / denom)
}

/// Mean of [`lag1_autocorrelation`] over the series that have one.
pub fn mean_lag1_autocorrelation(series: &[Vec<f64>]) -> Option<f64> {
    let rs: Vec<f64> = series.iter().filter_map(|s| lag1_autocorrelation(s)).collect();
    (!rs.is_empty()).then(|| rs.iter().sum::<f64>() / rs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::testutil::{normal, rng};

    #[test]
    fn separates_independent_from_ar1_series() {
        let mut r = rng(3);
        let iid: Vec<Vec<f64>> = (0..10).map(|_| (0..50).map(|_| normal(&mut r)).collect()).collect();
        let ar: Vec<Vec<f64>> = (0..10)
            .map(|_| {
                let mut x = 0.0;
                (0..50)
                    .map(|_| {
                        x = 0.8 * x + normal(&mut r);
                        x
                    })
                    .collect()
            })
            .collect();
        let (a, b) = (mean_lag1_autocorrelation(&iid).unwrap(), mean_lag1_autocorrelation(&ar).unwrap());
        eprintln!("lag-1 autocorrelation: iid {a:.3}, AR(1) rho=0.8 {b:.3}");
        assert!(a.abs() < 0.15);
        assert!(b > 0.6);
        assert_eq!(lag1_autocorrelation(&[1.0, 1.0, 1.0]), None);
    }
}
