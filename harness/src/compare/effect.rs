//! `Effect`: the candidate/baseline change of one metric with its intervals and p-value, from
//! interleaved pairs (paired t on per-pair log ratios) or from two unpaired samples (Welch on logs).

use crate::stats::{Interval, Sample, Severity, StatsError, mann_whitney_u, paired_t, t_interval, tukey_outliers, welch_interval, welch_t};

/// Below this many values severe outliers are flagged by nobody: quartiles of fewer say too little.
const MIN_N_TO_EXCLUDE: usize = 8;
/// At most this share of values is set aside; beyond it the tails are the distribution, not accidents.
const MAX_EXCLUDED_SHARE: f64 = 0.2;
/// A standard deviation this small (on log or relative scale) is rounding, not noise.
const EXACT_SD: f64 = 1e-12;

/// The scale a change is estimated on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scale {
    /// `ln b - ln a`: every value is positive, noise is multiplicative; ratio = exp(estimate).
    Log,
    /// `(b - a) / |mean(a)|`: some value is zero or negative; ratio = 1 + estimate.
    Relative,
}

/// A change, candidate against baseline, on `scale`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Effect {
    /// Point estimate on `scale` (mean log ratio, or relative difference).
    pub estimate: f64,
    /// 95% interval of `estimate`.
    pub ci95: Interval,
    /// 90% interval of `estimate` (for the equivalence test).
    pub ci90: Interval,
    /// Standard error of `estimate`.
    pub se: f64,
    /// Per-pair (or pooled per-run-difference) standard deviation: `se * sqrt(n)`.
    pub sd: f64,
    /// Two-sided p-value of "no change".
    pub p_value: f64,
    /// Mann-Whitney U p-value on the same (log) values; a cross-check only.
    pub p_mann_whitney: Option<f64>,
    /// The scale.
    pub scale: Scale,
    /// Zero variance: every pair differed by the same amount (deterministic counters).
    pub exact: bool,
    /// Pairs used (0 when unpaired).
    pub pairs: usize,
    /// Runs of the baseline used.
    pub n_a: usize,
    /// Runs of the candidate used.
    pub n_b: usize,
    /// Pairs (or runs) set aside as severe outliers (Tukey's 3 IQR fences).
    pub excluded: usize,
}

impl Effect {
    /// A value on `scale` as a ratio candidate/baseline.
    pub fn to_ratio(&self, x: f64) -> f64 {
        match self.scale {
            Scale::Log => x.exp(),
            Scale::Relative => 1.0 + x,
        }
    }

    /// The runs (pairs, or runs a side) that `se` is based on: it scales as 1/sqrt of this.
    pub fn n(&self) -> usize {
        if self.pairs > 0 { self.pairs } else { self.n_a.min(self.n_b) }
    }
}

fn scale_of(a: &[f64], b: &[f64]) -> Scale {
    if a.iter().chain(b).all(|&x| x > 0.0) {
        Scale::Log
    } else {
        Scale::Relative
    }
}

/// Baseline-relative values: logs, or values divided by |mean(a)| (1 when the mean is 0, so a
/// counter that is zero on the baseline side still compares; the note says so upstream).
fn transform(a: &[f64], b: &[f64], scale: Scale) -> (Vec<f64>, Vec<f64>) {
    match scale {
        Scale::Log => (a.iter().map(|x| x.ln()).collect(), b.iter().map(|x| x.ln()).collect()),
        Scale::Relative => {
            let m = a.iter().sum::<f64>() / a.len().max(1) as f64;
            let d = if m == 0.0 { 1.0 } else { m.abs() };
            (a.iter().map(|x| x / d).collect(), b.iter().map(|x| x / d).collect())
        }
    }
}

/// Indices of severe outliers (beyond Tukey's 3 IQR fences) of `values`, when there are at least
/// [`MIN_N_TO_EXCLUDE`] values and at most [`MAX_EXCLUDED_SHARE`] of them are severe. A run that a
/// background job slowed by 30% in a scenario with 1% noise would otherwise widen the interval of
/// every other pair; setting it aside (and saying so in the row's note) keeps the comparison's
/// power. On clean normal data the fences flag 2.4e-6 of values, so this almost never fires.
fn severe(values: &[f64]) -> Vec<usize> {
    let Ok(s) = Sample::new(values) else { return Vec::new() };
    if values.len() < MIN_N_TO_EXCLUDE {
        return Vec::new();
    }
    let out: Vec<usize> = tukey_outliers(&s, |x| x)
        .into_iter()
        .filter(|o| o.severity == Severity::Severe)
        .map(|o| o.index)
        .collect();
    if out.len() as f64 > MAX_EXCLUDED_SHARE * values.len() as f64 {
        Vec::new()
    } else {
        out
    }
}

fn keep(values: &[f64], drop: &[usize]) -> Vec<f64> {
    values
        .iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, &x)| x)
        .collect()
}

fn exact_interval(x: f64, level: f64) -> Interval {
    Interval { low: x, high: x, level }
}

/// Interleaved design: `a[i]` and `b[i]` ran back to back in random order, so drift hits both.
/// The per-pair difference `d_i = ln b_i - ln a_i` carries the change; its mean is the log of the
/// ratio of geometric means and a Student-t interval on it is the paired-t interval.
pub(crate) fn paired(a: &[f64], b: &[f64]) -> Result<Effect, StatsError> {
    if a.len() != b.len() {
        return Err(StatsError::TooFew {
            needed: a.len().max(b.len()),
            got: a.len().min(b.len()),
        });
    }
    let scale = scale_of(a, b);
    let (ta, tb) = transform(a, b, scale);
    let all: Vec<f64> = ta.iter().zip(&tb).map(|(x, y)| y - x).collect();
    let dropped = severe(&all);
    let d = keep(&all, &dropped);
    let s = Sample::new(&d)?;
    let n = d.len();
    let p_mann_whitney = mann_whitney_u(&ta, &tb).ok().map(|r| r.p_value);
    let (mean, sd) = (s.mean(), s.std_dev());
    let base = Effect {
        estimate: mean,
        ci95: exact_interval(mean, 0.95),
        ci90: exact_interval(mean, 0.90),
        se: 0.0,
        sd: 0.0,
        p_value: if mean == 0.0 { 1.0 } else { 0.0 },
        p_mann_whitney,
        scale,
        exact: true,
        pairs: n,
        n_a: n,
        n_b: n,
        excluded: dropped.len(),
    };
    if sd <= EXACT_SD {
        return Ok(base);
    }
    Ok(Effect {
        ci95: t_interval(&d, 0.95)?,
        ci90: t_interval(&d, 0.90)?,
        se: s.std_err(),
        sd,
        p_value: paired_t(&d)?.p_value,
        exact: false,
        ..base
    })
}

/// Unpaired design (two result directories): Welch's t on logs with Satterthwaite df.
pub(crate) fn unpaired(a: &[f64], b: &[f64]) -> Result<Effect, StatsError> {
    let scale = scale_of(a, b);
    let (ta, tb) = transform(a, b, scale);
    let (da, db) = (severe(&ta), severe(&tb));
    let (ta, tb) = (keep(&ta, &da), keep(&tb, &db));
    let (sa, sb) = (Sample::new(&ta)?, Sample::new(&tb)?);
    let diff = sb.mean() - sa.mean();
    let se = (sa.var() / sa.len() as f64 + sb.var() / sb.len() as f64).sqrt();
    let p_mann_whitney = mann_whitney_u(&ta, &tb).ok().map(|r| r.p_value);
    let n = sa.len().min(sb.len());
    let base = Effect {
        estimate: diff,
        ci95: exact_interval(diff, 0.95),
        ci90: exact_interval(diff, 0.90),
        se: 0.0,
        sd: 0.0,
        p_value: if diff == 0.0 { 1.0 } else { 0.0 },
        p_mann_whitney,
        scale,
        exact: true,
        pairs: 0,
        n_a: sa.len(),
        n_b: sb.len(),
        excluded: da.len() + db.len(),
    };
    if se <= EXACT_SD {
        return Ok(base);
    }
    Ok(Effect {
        ci95: welch_interval(&ta, &tb, 0.95)?,
        ci90: welch_interval(&ta, &tb, 0.90)?,
        se,
        sd: se * (n as f64).sqrt(),
        p_value: welch_t(&ta, &tb)?.p_value,
        exact: false,
        ..base
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_ratio_is_the_ratio_of_geometric_means() {
        let a = [100.0, 200.0, 400.0];
        let b = [110.0, 220.0, 440.0];
        let e = paired(&a, &b).unwrap();
        assert!(e.exact, "every pair is exactly 10% slower");
        assert!((e.to_ratio(e.estimate) - 1.1).abs() < 1e-12);
        assert_eq!(e.p_value, 0.0);
        let b = [112.0, 218.0, 441.0];
        let e = paired(&a, &b).unwrap();
        assert!(!e.exact && e.ci95.low < e.estimate && e.estimate < e.ci95.high);
        assert!(e.ci90.width() < e.ci95.width());
        let gm = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
        assert!((e.to_ratio(e.estimate) - gm(&b) / gm(&a)).abs() < 1e-12);
    }

    #[test]
    fn counters_with_zero_use_the_relative_scale_and_identical_counters_are_exact() {
        let e = paired(&[0.0, 2.0], &[0.0, 2.0]).unwrap();
        assert_eq!((e.scale, e.exact, e.estimate, e.p_value), (Scale::Relative, true, 0.0, 1.0));
        let e = unpaired(&[5.0, 5.0, 5.0], &[6.0, 6.0]).unwrap();
        assert!(e.exact && (e.to_ratio(e.estimate) - 1.2).abs() < 1e-12);
    }

    #[test]
    fn a_severe_outlier_pair_is_set_aside_and_counted() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 + (i % 3) as f64 * 0.5).collect();
        let mut b: Vec<f64> = a.iter().enumerate().map(|(i, x)| x * 1.1 + (i % 2) as f64 * 0.5).collect();
        let clean = paired(&a, &b).unwrap();
        b[4] *= 1.3;
        let e = paired(&a, &b).unwrap();
        assert_eq!((clean.excluded, e.excluded, e.pairs), (0, 1, 9));
        assert!((e.estimate - clean.estimate).abs() < 0.01);
    }

    #[test]
    fn unpaired_matches_welch_on_logs() {
        let a = [10.0, 11.0, 9.5, 10.2];
        let b = [12.0, 12.5, 11.8, 12.2, 12.9];
        let e = unpaired(&a, &b).unwrap();
        let la: Vec<f64> = a.iter().map(|x: &f64| x.ln()).collect();
        let lb: Vec<f64> = b.iter().map(|x: &f64| x.ln()).collect();
        assert_eq!(e.p_value, welch_t(&la, &lb).unwrap().p_value);
        assert!(e.ci95.low > 0.0 && e.p_value < 0.01);
    }
}
