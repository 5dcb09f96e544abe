//! The verdict rule: `regressed` / `improved` / `unchanged` / `inconclusive` from an [`Effect`],
//! its Benjamini-Hochberg q, the metric's direction, the margin of practical relevance and the
//! alpha a (sequential) look may spend; with the minimal detectable effect and the pairs that
//! would decide.
//!
//! The interval already carries the run's own noise, so the rule compares it with a margin
//! chosen for relevance (`--margin`, or a band calibrated in separate A/A sessions), never with
//! the run's noise a second time (issue 15: that made +22.7% [+7.5%, +40.1%] inconclusive).

use super::effect::{Effect, Scale};
use crate::model::{Better, CompareVerdict};
use crate::stats::{Interval, minimal_detectable_effect, required_n_paired};

/// Significance level of a `regressed` / `improved` verdict, after Benjamini-Hochberg, spent
/// over all looks of a sequential comparison.
pub const ALPHA: f64 = 0.05;
/// Power that `mde` and `runs_needed` are stated at.
pub const POWER: f64 = 0.8;
/// Default noise floor (+-2%) when no calibration says otherwise: changes this small between
/// two builds come from code layout and link order alone (Mytkowicz et al., ASPLOS 2009), which
/// no within-session interval can see.
pub const DEFAULT_NOISE_FLOOR: f64 = 0.02;
/// Default margin of practical relevance (`--margin`): `unchanged` means the interval lies
/// inside +-5%, `regressed` that it lies wholly beyond +5%.
pub const DEFAULT_MARGIN: f64 = 0.05;

/// Default margin of counter rows (`--counter-margin`): instruction counts vary between processes
/// by layout alone (the env padding moves the stack) by about 0.1-1%, against 5-40% for wall
/// time, so a change of 1% is already a code change. rustc-perf's smallest bucket is 0.2%.
pub const DEFAULT_COUNTER_MARGIN: f64 = 0.01;

/// The band of a counter row: its margin, or a calibrated band where that is wider. Unlike
/// [`noise_band`], exact counts keep the margin: a change of a few instructions in a million is
/// not a regression anyone asked about.
pub(crate) fn counter_band(margin: f64, calibrated: Option<f64>) -> f64 {
    margin.max(calibrated.unwrap_or(0.0))
}

/// A calibrated band measured at `n_cal` pairs, applied at `n` pairs. Below `n_cal` its width
/// grows as `sqrt(n_cal / n)` (the standard error it was built from does); above, it is kept,
/// because the between-session part it may contain does not shrink with more pairs.
pub(crate) fn scale_calibrated(band: f64, n_cal: usize, n: usize) -> f64 {
    if n == 0 || n >= n_cal {
        band
    } else {
        band * (n_cal as f64 / n as f64).sqrt()
    }
}

/// The band of one comparison (a fraction of the baseline): `max(floor, margin, calibrated)`.
/// Exact (zero-variance) values have no noise: band 0.
pub(crate) fn noise_band(effect: &Effect, floor: f64, margin: f64, calibrated: Option<f64>) -> f64 {
    if effect.exact {
        return 0.0;
    }
    floor.max(margin).max(calibrated.unwrap_or(0.0))
}

/// A fraction of change on the effect's scale (log ratio or relative difference).
pub(crate) fn to_scale(scale: Scale, fraction: f64) -> f64 {
    match scale {
        Scale::Log => fraction.ln_1p(),
        Scale::Relative => fraction,
    }
}

fn from_scale(scale: Scale, x: f64) -> f64 {
    match scale {
        Scale::Log => x.exp_m1(),
        Scale::Relative => x,
    }
}

/// A verdict with what backs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub verdict: CompareVerdict,
    /// Fraction; see [`mde`].
    pub mde: f64,
    /// For `inconclusive`: pairs (or runs a side) for 80% power at the band's size.
    pub runs_needed: Option<usize>,
    /// The interval the verdict was judged on (level `1 - alpha_look`).
    pub interval: Interval,
    pub note: Option<String>,
}

/// The smallest true change detected with 80% power under this rule at the runs used:
/// the band plus `(z(0.975) + z(0.8)) sd / sqrt(n)`, as a fraction. 0 for exact values.
pub(crate) fn mde(effect: &Effect, band: f64) -> f64 {
    if effect.exact {
        return 0.0;
    }
    let extra = minimal_detectable_effect(effect.sd, effect.n(), ALPHA, POWER);
    from_scale(effect.scale, to_scale(effect.scale, band) + extra)
}

/// Pairs at which the verdict would likely (80%) be decided, given where the estimate sits: near
/// zero, to show the interval inside the band; beyond it, to show it wholly beyond. The distance
/// to the band edge is floored at half the band so an estimate on the edge gets a finite answer.
fn runs_needed(effect: &Effect, w: f64) -> Option<usize> {
    if effect.exact || effect.sd == 0.0 {
        return None;
    }
    let dist = (effect.estimate.abs() - w).abs().max(w / 2.0);
    Some(required_n_paired(effect.sd, dist, ALPHA, POWER).max(effect.n() + 1))
}

/// Decide one entry. `q` is its Benjamini-Hochberg adjusted (sequential) p-value; `band` from
/// [`noise_band`]; `alpha_look` the alpha this look may spend ([`ALPHA`] for a single look).
///
/// - `regressed` / `improved`: `q <= ALPHA` and the whole `1 - alpha_look` interval beyond
///   +-band, on the side `better` calls worse / better;
/// - `unchanged`: the `1 - 2 alpha_look` interval inside +-band (two one-sided tests at
///   `alpha_look`; band 0 for exact values);
/// - `inconclusive` otherwise. Metrics with no better direction (counters) are `unchanged` or
///   `inconclusive` with a note saying how they changed, never `regressed` / `improved`.
pub(crate) fn decide(effect: &Effect, better: Better, q: f64, band: f64, alpha_look: f64) -> Decision {
    let w = to_scale(effect.scale, band);
    let interval = effect.interval(1.0 - alpha_look);
    let narrow = effect.interval(1.0 - 2.0 * alpha_look);
    let up = interval.low > w;
    let down = interval.high < -w;
    let equivalent = -w <= narrow.low && narrow.high <= w;
    let change_pct = (effect.to_ratio(effect.estimate) - 1.0) * 100.0;
    let decided = |verdict| Decision {
        verdict,
        mde: mde(effect, band),
        runs_needed: None,
        interval: interval.clone(),
        note: None,
    };
    match better {
        Better::Neither if equivalent => decided(CompareVerdict::Unchanged),
        Better::Neither => Decision {
            note: Some(format!(
                "changed by {change_pct:+.2}%; this metric has no better direction, so it is never called regressed or improved"
            )),
            ..decided(CompareVerdict::Inconclusive)
        },
        _ if q <= ALPHA && (up || down) => {
            let worse = (up && better == Better::Lower) || (down && better == Better::Higher);
            decided(if worse {
                CompareVerdict::Regressed
            } else {
                CompareVerdict::Improved
            })
        }
        _ if equivalent => decided(CompareVerdict::Unchanged),
        _ => Decision {
            runs_needed: runs_needed(effect, w),
            ..decided(CompareVerdict::Inconclusive)
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::effect::paired;

    #[test]
    fn direction_comes_from_the_metric() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 + (i % 3) as f64).collect();
        let b: Vec<f64> = a.iter().enumerate().map(|(i, x)| x * 1.2 + (i % 2) as f64).collect();
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, DEFAULT_NOISE_FLOOR, DEFAULT_MARGIN, None);
        assert_eq!(decide(&e, Better::Lower, e.p_value, band, ALPHA).verdict, CompareVerdict::Regressed);
        assert_eq!(decide(&e, Better::Higher, e.p_value, band, ALPHA).verdict, CompareVerdict::Improved);
        let d = decide(&e, Better::Neither, e.p_value, band, ALPHA);
        assert_eq!(d.verdict, CompareVerdict::Inconclusive);
        assert!(d.note.unwrap().contains("+20"));
    }

    #[test]
    fn a_wide_interval_is_inconclusive_with_runs_needed_and_a_narrow_null_is_unchanged() {
        let a = [100.0, 130.0, 90.0, 120.0];
        let b = [125.0, 100.0, 118.0, 95.0];
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, 0.05, None);
        let d = decide(&e, Better::Lower, e.p_value, band, ALPHA);
        assert_eq!(d.verdict, CompareVerdict::Inconclusive);
        assert!(d.runs_needed.unwrap() > 4, "{d:?}");
        assert!(d.mde > band);
        let a: Vec<f64> = (0..10).map(|i| 100.0 + (i % 4) as f64 * 0.2).collect();
        let b: Vec<f64> = (0..10).map(|i| 100.0 + ((i + 1) % 4) as f64 * 0.2).collect();
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, 0.05, None);
        assert_eq!(decide(&e, Better::Lower, e.p_value, band, ALPHA).verdict, CompareVerdict::Unchanged);
    }

    /// Issue 15's case: +22.7% [+7.5%, +40.1%], q = 0.017, was inconclusive because its low end
    /// lay inside a +-12.1% band made of the run's own noise. Beyond the 5% margin it regresses.
    #[test]
    fn an_interval_beyond_the_margin_regresses_however_noisy_the_run() {
        let a: Vec<f64> = (0..12).map(|i| 100.0 * (1.0 + 0.25 * ((i * 7 % 12) as f64 - 5.5) / 5.5)).collect();
        let b: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(i, x)| x * 1.227 * (1.0 + 0.2 * ((i * 5 % 12) as f64 - 5.5) / 5.5))
            .collect();
        let e = paired(&a, &b).unwrap();
        let i = e.interval(0.95);
        assert!(i.low > 0.05_f64.ln_1p() && i.low < 0.121_f64.ln_1p(), "{i:?}");
        let band = noise_band(&e, 0.02, 0.05, None);
        assert_eq!(decide(&e, Better::Lower, 0.017, band, ALPHA).verdict, CompareVerdict::Regressed);
    }

    #[test]
    fn a_significant_change_inside_the_margin_is_unchanged_not_a_regression() {
        // 1% slower on every pair, very low noise: significant, but inside the 5% margin.
        let a: Vec<f64> = (0..20).map(|i| 100.0 + (i % 5) as f64 * 0.01).collect();
        let b: Vec<f64> = a.iter().enumerate().map(|(i, x)| x * 1.01 + (i % 3) as f64 * 0.01).collect();
        let e = paired(&a, &b).unwrap();
        assert!(e.p_value < 1e-6);
        let band = noise_band(&e, 0.02, 0.05, None);
        assert_eq!(decide(&e, Better::Lower, e.p_value, band, ALPHA).verdict, CompareVerdict::Unchanged);
        // A calibrated band of 27% does not let a 20% change through either.
        let b: Vec<f64> = a.iter().enumerate().map(|(i, x)| x * 1.2 + (i % 3) as f64 * 0.01).collect();
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, 0.05, Some(0.27));
        assert_ne!(decide(&e, Better::Lower, e.p_value, band, ALPHA).verdict, CompareVerdict::Regressed);
    }

    /// A smaller spent alpha (a sequential look) widens the interval: what the full alpha calls
    /// regressed, an early look may leave inconclusive.
    #[test]
    fn a_look_with_less_alpha_needs_more_evidence() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 * (1.0 + 0.06 * ((i * 3 % 10) as f64 - 4.5) / 4.5)).collect();
        let b: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(i, x)| x * 1.12 * (1.0 + 0.06 * ((i * 7 % 10) as f64 - 4.5) / 4.5))
            .collect();
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, 0.05, None);
        let full = decide(&e, Better::Lower, 0.001, band, ALPHA);
        let early = decide(&e, Better::Lower, 0.001, band, 0.0005);
        assert_eq!(full.verdict, CompareVerdict::Regressed, "{full:?}");
        assert_eq!(early.verdict, CompareVerdict::Inconclusive, "{early:?}");
        assert!(early.interval.width() > full.interval.width());
    }

    /// Issue 14: a band calibrated at 20 pairs, applied at 5, is twice as wide; at 40 it is kept.
    #[test]
    fn a_calibrated_band_scales_with_the_pair_count() {
        assert!((scale_calibrated(0.04, 20, 5) - 0.08).abs() < 1e-12);
        assert_eq!(scale_calibrated(0.04, 20, 40), 0.04);
        assert_eq!(scale_calibrated(0.04, 20, 20), 0.04);
    }

    #[test]
    fn exact_counters_have_no_band() {
        let e = paired(&[8.0, 8.0, 8.0], &[8.0, 8.0, 8.0]).unwrap();
        assert_eq!(noise_band(&e, 0.02, 0.05, None), 0.0);
        assert_eq!(decide(&e, Better::Neither, 1.0, 0.0, ALPHA).verdict, CompareVerdict::Unchanged);
        let e = paired(&[8.0, 8.0, 8.0], &[9.0, 9.0, 9.0]).unwrap();
        assert_eq!(decide(&e, Better::Lower, 0.0, 0.0, ALPHA).verdict, CompareVerdict::Regressed);
    }
}
