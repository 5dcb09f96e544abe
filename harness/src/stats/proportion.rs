//! Intervals for a proportion k/n (failure rates): `wilson`, `clopper_pearson`, `clopper_pearson_upper`.
//!
//! Wilson (1927) inverts the score test: close to nominal on average, and much better than the
//! Wald interval near 0 and 1, but its coverage oscillates with p and dips below nominal at some
//! p (Brown, Cai & DasGupta, *Statistical Science* 2001). Clopper-Pearson (1934) inverts the
//! exact binomial test via Beta quantiles and never covers less than nominal; use it for
//! claims ("fails less than 1% of the time").
//!
//! # Panics
//! All three panic when `k > n` or `level` is not in (0, 1): those are caller bugs, not data.

use statrs::distribution::{Beta, ContinuousCDF};

use super::dist::normal_quantile;
use super::interval::Interval;

fn check(k: u64, n: u64, level: f64) {
    assert!(k <= n, "proportion: k = {k} successes out of n = {n}");
    assert!(level > 0.0 && level < 1.0, "proportion: level {level} is outside (0, 1)");
}

/// Wilson score interval for k successes in n trials. n = 0 gives [0, 1].
pub fn wilson(k: u64, n: u64, level: f64) -> Interval {
    check(k, n, level);
    if n == 0 {
        return Interval {
            low: 0.0,
            high: 1.0,
            level,
        };
    }
    let (k, n) = (k as f64, n as f64);
    let z = normal_quantile(0.5 + level / 2.0);
    let z2 = z * z;
    let center = (k + z2 / 2.0) / (n + z2);
    let half = z / (n + z2) * (k * (n - k) / n + z2 / 4.0).sqrt();
    Interval {
        low: (center - half).max(0.0),
        high: (center + half).min(1.0),
        level,
    }
}

/// Clopper-Pearson ("exact") interval: `[Beta(k, n-k+1) q(a/2), Beta(k+1, n-k) q(1-a/2)]`,
/// with the bound at 0 or 1 when k = 0 or k = n. n = 0 gives [0, 1].
pub fn clopper_pearson(k: u64, n: u64, level: f64) -> Interval {
    check(k, n, level);
    let tail = (1.0 - level) / 2.0;
    Interval {
        low: lower_bound(k, n, tail),
        high: upper_bound(k, n, tail),
        level,
    }
}

/// One-sided Clopper-Pearson upper bound: the rate below which the true rate lies with
/// confidence `level`. With k = 0 it is `1 - (1 - level)^(1/n)` (so 0 of 29 runs bounds the
/// rate below 10%, 0 of 59 below 5%, 0 of 299 below 1%, at 95%).
pub fn clopper_pearson_upper(k: u64, n: u64, level: f64) -> f64 {
    check(k, n, level);
    upper_bound(k, n, 1.0 - level)
}

/// Upper bound with `tail` probability above it.
fn upper_bound(k: u64, n: u64, tail: f64) -> f64 {
    if k == n {
        1.0
    } else if k == 0 {
        1.0 - tail.powf(1.0 / n as f64) // closed form; avoids the Beta inverse at its edge
    } else {
        Beta::new((k + 1) as f64, (n - k) as f64)
            .expect("shapes > 0")
            .inverse_cdf(1.0 - tail)
    }
}

/// Lower bound with `tail` probability below it.
fn lower_bound(k: u64, n: u64, tail: f64) -> f64 {
    if k == 0 {
        0.0
    } else if k == n {
        tail.powf(1.0 / n as f64)
    } else {
        Beta::new(k as f64, (n - k + 1) as f64).expect("shapes > 0").inverse_cdf(tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        let u = clopper_pearson_upper(0, 29, 0.95);
        assert!((u - 0.0982).abs() < 1e-4 && u <= 0.10, "{u}");
        assert!(clopper_pearson_upper(0, 59, 0.95) <= 0.05);
        assert!(clopper_pearson_upper(0, 299, 0.95) <= 0.01);
        assert!(clopper_pearson_upper(0, 28, 0.95) > 0.10); // 29 is the smallest n that works
        // Clopper-Pearson 95% for 3/10: [0.0667, 0.6525] (standard tables, e.g. R binom.test).
        let cp = clopper_pearson(3, 10, 0.95);
        assert!((cp.low - 0.06674).abs() < 1e-4 && (cp.high - 0.65245).abs() < 1e-4, "{cp:?}");
        // Wilson 95% for 3/10: [0.1078, 0.6032] (R prop.test without continuity correction).
        let w = wilson(3, 10, 0.95);
        assert!((w.low - 0.10779).abs() < 1e-4 && (w.high - 0.60322).abs() < 1e-4, "{w:?}");
        // Symmetry: the interval for k and for n-k mirror each other.
        let (a, b) = (clopper_pearson(4, 17, 0.9), clopper_pearson(13, 17, 0.9));
        assert!((a.low - (1.0 - b.high)).abs() < 1e-10 && (a.high - (1.0 - b.low)).abs() < 1e-10);
    }

    /// Coverage computed exactly (sum of binomial probabilities of the k whose interval covers p)
    /// rather than simulated, so there is no Monte-Carlo error to allow for.
    fn exact_coverage(n: u64, p: f64, ci: impl Fn(u64) -> Interval) -> f64 {
        (0..=n)
            .filter(|&k| ci(k).contains(p))
            .map(|k| {
                let ln_c = statrs::function::factorial::ln_binomial(n, k);
                (ln_c + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
            })
            .sum()
    }

    /// Clopper-Pearson: coverage >= 0.95 at every (p, n). Wilson: within [0.92, 0.99]. The
    /// tolerance follows Brown, Cai & DasGupta (2001, fig. 4), whose Wilson coverage at n <= 100
    /// dips to about 0.92-0.93 at unlucky p away from the boundary and stays close to nominal on
    /// average; a dip below 0.92 here would mean a wrong formula, not the known oscillation.
    #[test]
    fn coverage_of_wilson_and_clopper_pearson() {
        for n in [20, 100] {
            for p in [0.05, 0.2, 0.5] {
                let cp = exact_coverage(n, p, |k| clopper_pearson(k, n, 0.95));
                let w = exact_coverage(n, p, |k| wilson(k, n, 0.95));
                eprintln!("proportion n={n} p={p}: Clopper-Pearson {cp:.4}, Wilson {w:.4}");
                assert!(cp >= 0.95, "Clopper-Pearson n={n} p={p}: {cp}");
                assert!((0.92..=0.99).contains(&w), "Wilson n={n} p={p}: {w}");
            }
        }
    }
}
