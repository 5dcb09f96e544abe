//! Trimmed means: the plain trimmed mean of a sample, and Yuen's trimmed-mean t interval and
//! test for the centre of one sample (Tukey & McLaughlin 1963; Yuen 1974; Wilcox,
//! *Introduction to Robust Estimation and Hypothesis Testing*, §4.4).
//!
//! With `g = floor(gamma n)` values cut from each end, the standard error is
//! `s_w / ((1 - 2 gamma) sqrt(n))` with `s_w` the sd of the winsorized sample, and the statistic
//! is referred to Student's t with `n - 2g - 1` degrees of freedom.

use super::dist::{t_quantile, t_two_sided_p};
use super::errors::StatsError;
use super::interval::Interval;
use super::sample::Sample;

/// The `gamma`-trimmed mean (`gamma` in [0, 0.5)): `floor(gamma n)` values cut from each end.
pub fn trimmed_mean(values: &[f64], gamma: f64) -> Result<f64, StatsError> {
    Sample::new(values)?;
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    let g = (gamma * s.len() as f64).floor() as usize;
    let kept = &s[g..s.len() - g];
    Ok(kept.iter().sum::<f64>() / kept.len() as f64)
}

/// A process's centre of its samples: the interquartile mean (a quarter, rounded up, cut from
/// each end, always keeping the middle one or two; 0 for none). Spikes in up to a quarter of the samples do not move it, and unlike the median it
/// averages the clock's quantization, so processes of a ~100 ns call do not tie on one tick
/// and claim an exact time (docs/statistics.md, "Within a process").
pub(crate) fn within_process_centre(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    let g = s.len().div_ceil(4).min((s.len() - 1) / 2);
    let kept = &s[g..s.len() - g];
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// Yuen's trimmed mean of `d`, its standard error and degrees of freedom `n - 2g - 1`.
/// Needs at least 3 values left after trimming.
pub fn yuen_parts(d: &[f64], gamma: f64) -> Result<(f64, f64, f64), StatsError> {
    Sample::new(d)?;
    let n = d.len();
    let g = (gamma * n as f64).floor() as usize;
    if n < 2 * g + 3 {
        return Err(StatsError::TooFew { needed: 2 * g + 3, got: n });
    }
    let mut s = d.to_vec();
    s.sort_by(f64::total_cmp);
    let centre = trimmed_mean(d, gamma)?;
    let (lo, hi) = (s[g], s[n - 1 - g]);
    let w: Vec<f64> = s.iter().map(|x| x.clamp(lo, hi)).collect();
    let wm = w.iter().sum::<f64>() / n as f64;
    let sw = (w.iter().map(|x| (x - wm).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let h = n - 2 * g;
    Ok((centre, sw * (n as f64).sqrt() / h as f64, (h - 1) as f64))
}

/// Yuen's trimmed-mean estimate of the centre of `d`, its interval at `level`, and the two-sided
/// p-value of "centre 0". A zero winsorized spread gives a zero-width interval and p = 0 (or 1
/// at 0), as a paired t would; callers with tied data fall back to the untrimmed t.
pub fn yuen(d: &[f64], gamma: f64, level: f64) -> Result<(f64, Interval, f64), StatsError> {
    let (centre, se, df) = yuen_parts(d, gamma)?;
    if se == 0.0 {
        let i = Interval {
            low: centre,
            high: centre,
            level,
        };
        return Ok((centre, i, if centre == 0.0 { 1.0 } else { 0.0 }));
    }
    let t = t_quantile(0.5 + level / 2.0, df);
    let interval = Interval {
        low: centre - t * se,
        high: centre + t * se,
        level,
    };
    Ok((centre, interval, t_two_sided_p(centre / se, df)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand example: n = 10, gamma 0.2 cuts 2 a side. Sorted 1..10 with 10 -> 100:
    /// trimmed mean of 3..8 = 5.5; winsorized 3,3,3..8,8,8, sd 2.0548; se = sw / (0.6 sqrt 10).
    #[test]
    fn matches_a_hand_computation() {
        let d = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 100.0];
        let (c, i, _) = yuen(&d, 0.2, 0.95).unwrap();
        assert_eq!(c, 5.5);
        let w = [3.0, 3.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 8.0, 8.0];
        let m = w.iter().sum::<f64>() / 10.0;
        let sw = (w.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 9.0).sqrt();
        let se = sw / (0.6 * 10f64.sqrt());
        let t = t_quantile(0.975, 5.0);
        assert!((i.high - (5.5 + t * se)).abs() < 1e-9, "{i:?} vs {}", 5.5 + t * se);
        assert!(yuen(&d[..4], 0.2, 0.95).is_ok() && yuen(&d[..2], 0.2, 0.95).is_err());
    }
}
