//! Quantiles and tail probabilities of the Student t and normal distributions (statrs underneath).

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Quantile `p` of Student's t with `df` degrees of freedom (`df` may be fractional, as
/// Welch's is; infinite `df` gives the normal quantile).
pub(crate) fn t_quantile(p: f64, df: f64) -> f64 {
    if df.is_infinite() {
        return normal_quantile(p);
    }
    StudentsT::new(0.0, 1.0, df).expect("df > 0 checked by callers").inverse_cdf(p)
}

/// Two-sided p-value `P(|T| >= |t|)` for Student's t with `df` degrees of freedom.
pub(crate) fn t_two_sided_p(t: f64, df: f64) -> f64 {
    let d = StudentsT::new(0.0, 1.0, df).expect("df > 0 checked by callers");
    (2.0 * d.sf(t.abs())).min(1.0)
}

/// Quantile `p` of the standard normal.
pub(crate) fn normal_quantile(p: f64) -> f64 {
    Normal::standard().inverse_cdf(p)
}

/// Two-sided p-value `P(|Z| >= |z|)` for the standard normal.
pub(crate) fn normal_two_sided_p(z: f64) -> f64 {
    (2.0 * Normal::standard().sf(z.abs())).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from standard t tables (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
    #[test]
    fn t_and_normal_quantiles_match_tables() {
        assert!((t_quantile(0.975, 4.0) - 2.7764).abs() < 5e-5);
        assert!((t_quantile(0.975, 9.0) - 2.2622).abs() < 5e-5);
        assert!((t_quantile(0.95, 29.0) - 1.6991).abs() < 5e-5);
        assert!((t_quantile(0.975, 1.0) - 12.7062).abs() < 5e-4);
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-6);
        assert!((t_two_sided_p(2.7764, 4.0) - 0.05).abs() < 1e-4);
        assert!((normal_two_sided_p(1.959964) - 0.05).abs() < 1e-6);
    }
}
