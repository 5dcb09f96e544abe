//! `Effect`: the candidate/baseline change of one metric with its standard error, from
//! interleaved pairs (Yuen's 20%-trimmed mean of per-pair log ratios, chosen by the simulation
//! in `estimator_sim.rs`) or from two unpaired samples (Welch on logs). Intervals at any level,
//! so a sequential look can ask for the level its spent alpha allows.

use crate::stats::dist::{t_quantile, t_two_sided_p};
use crate::stats::{Interval, Sample, Severity, StatsError, mann_whitney_u, tukey_outliers, welch_parts, yuen_parts};

/// Below this many values severe outliers are flagged by nobody: quartiles of fewer say too little.
const MIN_N_TO_EXCLUDE: usize = 8;
/// At most this share of values is set aside; beyond it the tails are the distribution, not accidents.
const MAX_EXCLUDED_SHARE: f64 = 0.2;
/// A standard deviation this small (on log or relative scale) is rounding, not noise.
const EXACT_SD: f64 = 1e-12;
/// Share of pairs Yuen's trimmed mean cuts from each end: 20% (Wilcox's default), which kept
/// coverage and doubled power against 1.5x process jumps in the simulation.
pub(crate) const TRIM: f64 = 0.2;

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
    /// Degrees of freedom of the t reference distribution.
    pub df: f64,
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
    /// Paired: pairs beyond Tukey's 3 IQR fences, which the trimmed mean cut (a diagnostic).
    /// Unpaired: runs set aside as severe outliers.
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

    /// Two-sided interval of `estimate` at `level`.
    pub fn interval(&self, level: f64) -> Interval {
        if self.exact {
            return exact_interval(self.estimate, level);
        }
        let h = t_quantile(0.5 + level / 2.0, self.df) * self.se;
        Interval {
            low: self.estimate - h,
            high: self.estimate + h,
            level,
        }
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
        return Vec::new();
    }
    // Never leave a remainder that looks exact (p = 0) when the values as a whole differ.
    let rest = keep(values, &out);
    let spread = |v: &[f64]| Sample::new(v).map_or(0.0, |s| s.std_dev());
    if !out.is_empty() && spread(&rest) <= EXACT_SD {
        return Vec::new();
    }
    out
}

/// `values` without their severe outliers, as the old paired-t estimator set them aside.
#[cfg(test)]
pub(crate) fn without_severe(values: &[f64]) -> Vec<f64> {
    keep(values, &severe(values))
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

/// Estimate, standard error and df of the centre of `d`: Yuen's trimmed mean, or the plain mean
/// with the paired t when trimming leaves no spread (tied, quantized values: a zero winsorized
/// spread would make the rest look exact and give p = 0).
fn centre(d: &[f64]) -> Result<(f64, f64, f64), StatsError> {
    if let Ok((c, se, df)) = yuen_parts(d, TRIM)
        && se > EXACT_SD
    {
        return Ok((c, se, df));
    }
    let s = Sample::new(d)?;
    if s.len() < 2 {
        return Err(StatsError::TooFew { needed: 2, got: s.len() });
    }
    Ok((s.mean(), s.std_err(), (s.len() - 1) as f64))
}

fn with_intervals(e: Effect) -> Effect {
    Effect {
        ci95: e.interval(0.95),
        ci90: e.interval(0.90),
        ..e
    }
}

/// Interleaved design: `a[i]` and `b[i]` ran back to back in random order, so drift hits both.
/// The per-pair difference `d_i = ln b_i - ln a_i` carries the change; its 20%-trimmed mean
/// (Yuen) is the estimate, robust to the 1.3-1.6x process-level jumps of a busy machine.
pub(crate) fn paired(a: &[f64], b: &[f64]) -> Result<Effect, StatsError> {
    let e = paired_estimate(a, b)?;
    let (ta, tb) = transform(a, b, e.scale);
    Ok(Effect {
        p_mann_whitney: mann_whitney_u(&ta, &tb).ok().map(|r| r.p_value),
        ..e
    })
}

/// [`paired`] without the Mann-Whitney cross-check (`p_mann_whitney` is `None`): the estimate
/// alone, for callers that use nothing else (bisect's steps, whose pooled pairs would make the
/// exact U distribution the bulk of the work).
pub(crate) fn paired_estimate(a: &[f64], b: &[f64]) -> Result<Effect, StatsError> {
    if a.len() != b.len() {
        return Err(StatsError::TooFew {
            needed: a.len().max(b.len()),
            got: a.len().min(b.len()),
        });
    }
    let scale = scale_of(a, b);
    let (ta, tb) = transform(a, b, scale);
    let d: Vec<f64> = ta.iter().zip(&tb).map(|(x, y)| y - x).collect();
    let s = Sample::new(&d)?;
    let n = d.len();
    let mean = s.mean();
    let base = Effect {
        estimate: mean,
        ci95: exact_interval(mean, 0.95),
        ci90: exact_interval(mean, 0.90),
        se: 0.0,
        df: f64::INFINITY,
        sd: 0.0,
        p_value: if mean == 0.0 { 1.0 } else { 0.0 },
        p_mann_whitney: None,
        scale,
        exact: true,
        pairs: n,
        n_a: n,
        n_b: n,
        excluded: 0,
    };
    if s.std_dev() <= EXACT_SD {
        return Ok(base);
    }
    let (estimate, se, df) = centre(&d)?;
    Ok(with_intervals(Effect {
        estimate,
        se,
        df,
        sd: se * (n as f64).sqrt(),
        p_value: t_two_sided_p(estimate / se, df),
        exact: false,
        excluded: severe(&d).len(),
        ..base
    }))
}

/// Unpaired design (two result directories): Welch's t on logs with Satterthwaite df.
pub(crate) fn unpaired(a: &[f64], b: &[f64]) -> Result<Effect, StatsError> {
    let scale = scale_of(a, b);
    let (ta, tb) = transform(a, b, scale);
    let (da, db) = (severe(&ta), severe(&tb));
    let (ta, tb) = (keep(&ta, &da), keep(&tb, &db));
    let (sa, sb) = (Sample::new(&ta)?, Sample::new(&tb)?);
    let diff = sb.mean() - sa.mean();
    let p_mann_whitney = mann_whitney_u(&ta, &tb).ok().map(|r| r.p_value);
    let n = sa.len().min(sb.len());
    let base = Effect {
        estimate: diff,
        ci95: exact_interval(diff, 0.95),
        ci90: exact_interval(diff, 0.90),
        se: 0.0,
        df: f64::INFINITY,
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
    if (sa.var() / sa.len() as f64 + sb.var() / sb.len() as f64).sqrt() <= EXACT_SD {
        return Ok(base);
    }
    let (_, se, df) = welch_parts(&ta, &tb)?;
    Ok(with_intervals(Effect {
        se,
        df,
        sd: se * (n as f64).sqrt(),
        p_value: t_two_sided_p(diff / se, df),
        exact: false,
        ..base
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::welch_t;

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
        assert_eq!((clean.excluded, e.excluded, e.pairs), (0, 1, 10));
        assert!((e.estimate - clean.estimate).abs() < 0.01, "the trimmed mean cuts the outlier");
    }

    /// Issue 14: quantized values where most pairs tie exactly. Tukey's fences have zero width,
    /// the winsorized spread is 0; neither may turn the rest into an "exact" p = 0.
    #[test]
    fn tied_quantized_pairs_are_neither_dropped_nor_exact() {
        let a = [100.0; 12];
        let mut b = [100.0; 12];
        b[3] = 101.0;
        b[8] = 99.0;
        b[10] = 101.0;
        let e = paired(&a, &b).unwrap();
        assert!(!e.exact && e.excluded == 0, "{e:?}");
        assert!(e.p_value > 0.3 && e.ci95.low < 0.0 && e.ci95.high > 0.0, "{e:?}");
        assert_eq!(without_severe(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.01, -0.01]).len(), 10);
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
