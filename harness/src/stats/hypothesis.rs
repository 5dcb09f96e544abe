//! Hypothesis tests and the intervals behind them: Welch, paired t, Mann-Whitney U, TOST, Benjamini-Hochberg.
//!
//! Sign convention everywhere: "b minus a", so with a = baseline and b = candidate a positive
//! statistic or interval means the candidate is larger.

use serde::{Deserialize, Serialize};

use super::dist::{normal_two_sided_p, t_quantile, t_two_sided_p};
use super::errors::{StatsError, check_probability};
use super::interval::Interval;
use super::sample::{Sample, check_finite};

/// Outcome of a two-sided test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// The test statistic (t, or U for Mann-Whitney).
    pub statistic: f64,
    /// Degrees of freedom, for t tests.
    pub df: Option<f64>,
    /// Two-sided p-value.
    pub p_value: f64,
}

/// Mean difference, its standard error and Welch-Satterthwaite df for `mean(b) - mean(a)`.
pub fn welch_parts(a: &[f64], b: &[f64]) -> Result<(f64, f64, f64), StatsError> {
    let (a, b) = (Sample::new(a)?, Sample::new(b)?);
    let (va, vb) = (a.var() / a.len() as f64, b.var() / b.len() as f64);
    let se2 = va + vb;
    // Satterthwaite (1946) / Welch (1947): df = (va + vb)^2 / (va^2/(na-1) + vb^2/(nb-1)).
    let df = se2 * se2 / (va * va / (a.len() - 1) as f64 + vb * vb / (b.len() - 1) as f64);
    Ok((b.mean() - a.mean(), se2.sqrt(), df))
}

/// Welch's unequal-variance t test of `mean(b) = mean(a)`, two-sided, Satterthwaite df.
/// For times, pass logs so the test is on the ratio of geometric means.
/// Errors when both samples are constant (the t statistic would be 0/0).
pub fn welch_t(a: &[f64], b: &[f64]) -> Result<TestResult, StatsError> {
    let (diff, se, df) = welch_parts(a, b)?;
    if se == 0.0 {
        return Err(StatsError::ZeroVariance {
            mean_a: b[0] - diff,
            mean_b: b[0],
        });
    }
    let t = diff / se;
    Ok(TestResult {
        statistic: t,
        df: Some(df),
        p_value: t_two_sided_p(t, df),
    })
}

/// Paired t test: one-sample t of the differences `b_i - a_i` against 0, df = n - 1.
/// Errors when all differences are equal (zero variance).
pub fn paired_t(diffs: &[f64]) -> Result<TestResult, StatsError> {
    let d = Sample::new(diffs)?;
    let se = d.std_err();
    if se == 0.0 {
        return Err(StatsError::ZeroVariance {
            mean_a: 0.0,
            mean_b: d.mean(),
        });
    }
    let df = (d.len() - 1) as f64;
    let t = d.mean() / se;
    Ok(TestResult {
        statistic: t,
        df: Some(df),
        p_value: t_two_sided_p(t, df),
    })
}

/// Student-t interval for the mean, `mean +- t(1 - a/2, n - 1) s / sqrt(n)`.
pub fn t_interval(values: &[f64], level: f64) -> Result<Interval, StatsError> {
    check_probability("level", level)?;
    let s = Sample::new(values)?;
    let half = t_quantile(0.5 + level / 2.0, (s.len() - 1) as f64) * s.std_err();
    Ok(Interval {
        low: s.mean() - half,
        high: s.mean() + half,
        level,
    })
}

/// Welch interval for `mean(b) - mean(a)`: `diff +- t(1 - a/2, df) se`, Satterthwaite df.
/// Zero-width when both samples are constant.
pub fn welch_interval(a: &[f64], b: &[f64], level: f64) -> Result<Interval, StatsError> {
    check_probability("level", level)?;
    let (diff, se, df) = welch_parts(a, b)?;
    let half = if se == 0.0 { 0.0 } else { t_quantile(0.5 + level / 2.0, df) * se };
    Ok(Interval {
        low: diff - half,
        high: diff + half,
        level,
    })
}

/// Two one-sided tests (Schuirmann 1987) at alpha = 0.05 are equivalent to the 90% interval
/// lying inside `[-margin, margin]`; pass the 90% interval of the difference (or log ratio).
pub fn tost_equivalent(interval_90: &Interval, margin: f64) -> bool {
    -margin <= interval_90.low && interval_90.high <= margin
}

/// Mann-Whitney U (Wilcoxon rank-sum) test, two-sided. `statistic` is U for b: the number of
/// pairs with `b_j > a_i`, ties counting 1/2 (so `na * nb / 2` under no shift).
///
/// Exact null distribution when there are no ties and `na + nb <= 100` (the generating function
/// of U is the Gaussian binomial coefficient `[na+nb choose na]_q`, computed in exact integers);
/// otherwise the normal approximation with tie-corrected variance
/// `na nb / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1)))` and a 0.5 continuity correction.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Result<TestResult, StatsError> {
    for v in [a, b] {
        check_finite(v)?;
        if v.is_empty() {
            return Err(StatsError::TooFew { needed: 1, got: 0 });
        }
    }
    let (na, nb) = (a.len(), b.len());
    // Mid-ranks of the pooled values.
    let mut pooled: Vec<(f64, bool)> = a.iter().map(|&x| (x, false)).chain(b.iter().map(|&x| (x, true))).collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = pooled.len();
    let (mut rank_sum_b, mut tie_term, mut i) = (0.0, 0.0, 0);
    while i < n {
        let mut j = i;
        while j + 1 < n && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        let mid_rank = (i + j) as f64 / 2.0 + 1.0;
        rank_sum_b += pooled[i..=j].iter().filter(|p| p.1).count() as f64 * mid_rank;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let u = rank_sum_b - (nb * (nb + 1)) as f64 / 2.0;
    let p_value = if tie_term == 0.0 && na + nb <= 100 {
        exact_u_p(na, nb, u)
    } else {
        let (nf, mean) = (n as f64, (na * nb) as f64 / 2.0);
        let var = (na * nb) as f64 / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)));
        if var <= 0.0 {
            1.0 // every value tied: no evidence of a shift
        } else {
            let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
            normal_two_sided_p(z)
        }
    };
    Ok(TestResult {
        statistic: u,
        df: None,
        p_value,
    })
}

/// Exact two-sided p-value of U (integer, no ties): `min(1, 2 min(P(U <= u), P(U >= u)))`.
fn exact_u_p(na: usize, nb: usize, u: f64) -> f64 {
    // counts[k] = number of arrangements with U = k: coefficients of
    // prod_{i=1..na} (1 - q^(nb+i)) / (1 - q^i). Each step leaves the polynomial
    // [nb+i choose i]_q, whose coefficients are non-negative integers <= C(100, 50) < 2^127.
    let max_u = na * nb;
    let mut c = vec![0i128; max_u + 1];
    c[0] = 1;
    for i in 1..=na {
        let shift = nb + i;
        for k in (shift..=max_u).rev() {
            c[k] -= c[k - shift];
        }
        for k in i..=max_u {
            c[k] += c[k - i];
        }
    }
    let total: f64 = c.iter().map(|&x| x as f64).sum();
    let u = u.round() as usize;
    let lower: f64 = c[..=u].iter().map(|&x| x as f64).sum::<f64>() / total;
    let upper: f64 = c[u..].iter().map(|&x| x as f64).sum::<f64>() / total;
    (2.0 * lower.min(upper)).min(1.0)
}

/// Benjamini-Hochberg (1995) adjusted p-values ("q-values"): `q_(i) = min_{j >= i} p_(j) m / j`,
/// capped at 1, returned in input order. Rejecting every `q <= alpha` controls the false
/// discovery rate at alpha for independent (or positively dependent) tests. NaN counts as 1.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let clean = |x: f64| if x.is_nan() { 1.0 } else { x };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| clean(p[i]).total_cmp(&clean(p[j])));
    let mut q = vec![0.0; m];
    let mut running = 1.0f64;
    for (rank, &idx) in order.iter().enumerate().rev() {
        running = running.min(clean(p[idx]) * m as f64 / (rank + 1) as f64);
        q[idx] = running.min(1.0);
    }
    q
}

#[cfg(test)]
#[path = "hypothesis_tests.rs"]
mod tests;
