//! The Wilcoxon signed-rank test and the Hodges-Lehmann estimate with its distribution-free
//! interval, for the centre of one sample of paired differences.
//!
//! Hodges & Lehmann (1963); Hollander, Wolfe & Chicken, *Nonparametric Statistical Methods*,
//! §3.2: the estimate is the median of the `n (n + 1) / 2` Walsh averages `(d_i + d_j) / 2`,
//! `i <= j`; the interval `[W_(c), W_(M + 1 - c)]` with `c` the largest integer such that
//! `P(T+ <= c - 1) <= alpha / 2` under the null distribution of the signed-rank statistic. It
//! covers the centre of any continuous symmetric distribution at >= `1 - alpha`, and a jump of
//! one pair moves it no more than one Walsh average in `M`.

use super::dist::{normal_quantile, normal_two_sided_p};
use super::errors::StatsError;
use super::hypothesis::TestResult;
use super::interval::Interval;
use super::sample::{Sample, quantile_sorted};

/// Up to this many non-zero differences the null distribution is computed exactly.
const EXACT_MAX_N: usize = 200;

/// `P(T+ = t)` for t in `0..=n(n+1)/2` under the null (each rank's sign a fair coin).
fn null_distribution(n: usize) -> Vec<f64> {
    let m = n * (n + 1) / 2;
    let mut p = vec![0.0; m + 1];
    p[0] = 1.0;
    for r in 1..=n {
        for t in (r..=m).rev() {
            p[t] = 0.5 * (p[t] + p[t - r]);
        }
        for x in p.iter_mut().take(r) {
            *x *= 0.5;
        }
    }
    p
}

/// The interval's order-statistic index `c` (1-based; 0 when even `[min, max]` misses the
/// level) for `n` differences at two-sided `alpha`, and the level it achieves.
fn critical(n: usize, alpha: f64) -> (usize, f64) {
    let m = n * (n + 1) / 2;
    if n <= EXACT_MAX_N {
        let p = null_distribution(n);
        let (mut c, mut cum) = (0, 0.0);
        // P(T+ <= c) <= alpha / 2 means c + 1 is admissible.
        while c < m && cum + p[c] <= alpha / 2.0 {
            cum += p[c];
            c += 1;
        }
        (c, 1.0 - 2.0 * cum)
    } else {
        let mean = m as f64 / 2.0;
        let sd = (n as f64 * (n as f64 + 1.0) * (2.0 * n as f64 + 1.0) / 24.0).sqrt();
        let c = (mean - normal_quantile(1.0 - alpha / 2.0) * sd - 0.5).floor().max(0.0) as usize;
        (c, 1.0 - alpha)
    }
}

/// Hodges-Lehmann estimate of the centre of `d` and its signed-rank interval at `level`.
/// The achieved level (exact below 200 values, for continuous data) is reported in the interval;
/// below 6 values even `[min, max]` reaches less than 95%.
pub fn hodges_lehmann(d: &[f64], level: f64) -> Result<(f64, Interval), StatsError> {
    Sample::new(d)?;
    let n = d.len();
    let mut w = Vec::with_capacity(n * (n + 1) / 2);
    for i in 0..n {
        for j in i..n {
            w.push((d[i] + d[j]) / 2.0);
        }
    }
    w.sort_by(f64::total_cmp);
    let estimate = quantile_sorted(&w, 0.5);
    let (c, achieved) = critical(n, 1.0 - level);
    let m = w.len();
    let interval = if c == 0 {
        Interval {
            low: w[0],
            high: w[m - 1],
            level: 1.0 - 2.0 * 0.5f64.powi(n as i32),
        }
    } else {
        Interval {
            low: w[c - 1],
            high: w[m - c],
            level: achieved,
        }
    };
    Ok((estimate, interval))
}

/// Wilcoxon signed-rank test of "centre 0", two-sided. Zeros are dropped (Wilcoxon's
/// convention), ties get mid-ranks. Exact without ties up to 200 non-zero values; otherwise the
/// normal approximation with tie-corrected variance and a 0.5 continuity correction.
/// `statistic` is `T+`, the sum of the ranks of the positive differences.
pub fn wilcoxon_signed_rank(d: &[f64]) -> Result<TestResult, StatsError> {
    Sample::new(d)?;
    let mut nz: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    nz.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let n = nz.len();
    if n == 0 {
        return Ok(TestResult {
            statistic: 0.0,
            df: None,
            p_value: 1.0,
        });
    }
    let (mut t_plus, mut tie_term, mut i) = (0.0, 0.0, 0);
    while i < n {
        let mut j = i;
        while j + 1 < n && nz[j + 1].abs() == nz[i].abs() {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        let mid = (i + j) as f64 / 2.0 + 1.0;
        t_plus += nz[i..=j].iter().filter(|x| **x > 0.0).count() as f64 * mid;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let m = n * (n + 1) / 2;
    let p_value = if tie_term == 0.0 && n <= EXACT_MAX_N {
        let p = null_distribution(n);
        let t = t_plus.round() as usize;
        let lower: f64 = p[..=t].iter().sum();
        let upper: f64 = p[t..].iter().sum();
        (2.0 * lower.min(upper)).min(1.0)
    } else {
        let nf = n as f64;
        let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
        let z = ((t_plus - m as f64 / 2.0).abs() - 0.5).max(0.0) / var.sqrt();
        normal_two_sided_p(z)
    };
    Ok(TestResult {
        statistic: t_plus,
        df: None,
        p_value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::testutil::{normal, rng};
    use rand::Rng;

    /// Reference values: P(T+ <= 0) = 2^-n; n = 10 critical value for 95% two-sided is c = 9
    /// (tables: T <= 8 rejects at 0.05, Hollander & Wolfe table A.4), achieved level 0.951.
    #[test]
    fn null_distribution_and_critical_values_match_tables() {
        let p = null_distribution(10);
        assert!((p[0] - 1.0 / 1024.0).abs() < 1e-15);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let (c, level) = critical(10, 0.05);
        assert_eq!(c, 9);
        assert!((level - (1.0 - 2.0 * p[..9].iter().sum::<f64>())).abs() < 1e-12 && level >= 0.95);
        assert_eq!(critical(5, 0.05).0, 0, "n = 5 cannot reach 95%");
        // All positive, n = 6: T+ = 21, p = 2 / 64.
        let r = wilcoxon_signed_rank(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(r.statistic, 21.0);
        assert!((r.p_value - 2.0 / 64.0).abs() < 1e-12);
        let (est, ci) = hodges_lehmann(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 0.95).unwrap();
        assert_eq!(est, 3.5);
        assert!(ci.low == 1.0 && ci.high == 6.0 && ci.level > 0.96);
    }

    /// Claim: the interval covers the centre of a symmetric heavy-tailed distribution (t3 plus
    /// 10% jumps of +-0.4) at >= 95% (nominal) for n = 8, 15, 40; the test's A/A rejection
    /// rate stays <= 5%.
    #[test]
    fn coverage_and_false_positives_on_heavy_tailed_symmetric_noise() {
        let mut r = rng(31);
        let trials = 1500;
        for n in [8, 15, 40] {
            let (mut cover, mut reject) = (0, 0);
            for _ in 0..trials {
                let d: Vec<f64> = (0..n)
                    .map(|_| {
                        let jump = if r.random::<f64>() < 0.1 {
                            0.4 * if r.random::<bool>() { 1.0 } else { -1.0 }
                        } else {
                            0.0
                        };
                        0.05 * normal(&mut r) + jump
                    })
                    .collect();
                let (_, ci) = hodges_lehmann(&d, 0.95).unwrap();
                cover += usize::from(ci.contains(0.0));
                reject += usize::from(wilcoxon_signed_rank(&d).unwrap().p_value <= 0.05);
            }
            let (c, f) = (cover as f64 / trials as f64, reject as f64 / trials as f64);
            eprintln!("signed rank n={n}: coverage {c:.4}, A/A rejections {f:.4}");
            assert!(c >= crate::stats::testutil::mc_lower(0.95, trials), "coverage {c} at n={n}");
            assert!(f <= 0.05 + 3.1 * (0.05f64 * 0.95 / trials as f64).sqrt(), "FP {f} at n={n}");
        }
    }
}
