//! The verdict rule (STATISTICS.md item 10): `regressed` / `improved` / `unchanged` /
//! `inconclusive` from an [`Effect`], its Benjamini-Hochberg q, the metric's direction and the
//! noise band; with the minimal detectable effect and the runs that would decide.

use super::effect::{Effect, Scale};
use crate::model::{Better, CompareVerdict};
use crate::stats::{minimal_detectable_effect, required_n_paired, tost_equivalent};

/// Significance level of a `regressed` / `improved` verdict, after Benjamini-Hochberg.
pub const ALPHA: f64 = 0.05;
/// Power that `mde` and `runs_needed` are stated at.
pub const POWER: f64 = 0.8;
/// Default noise floor (+-2%) when no calibration says otherwise: changes this small between
/// two builds come from code layout and link order alone (Mytkowicz et al., ASPLOS 2009), which
/// no within-session interval can see.
pub const DEFAULT_NOISE_FLOOR: f64 = 0.02;
/// z(0.975): the band's own-noise term is the 97.5th percentile of |A/A change| at this run count.
const Z975: f64 = 1.959_964;

/// The noise band of one comparison (a fraction of the baseline):
/// `max(floor, calibrated, 1.96 se)`, where `1.96 se` is the 97.5th percentile of the change an
/// A/A comparison with this scenario's own noise and run count would show (the same quantity
/// `calibrate` measures across sessions). Exact (zero-variance) values have no noise: band 0.
pub(crate) fn noise_band(effect: &Effect, floor: f64, calibrated: Option<f64>) -> f64 {
    if effect.exact {
        return 0.0;
    }
    let own = from_scale(effect.scale, Z975 * effect.se);
    floor.max(calibrated.unwrap_or(0.0)).max(own)
}

/// A fraction of change on the effect's scale (log ratio or relative difference).
fn to_scale(scale: Scale, fraction: f64) -> f64 {
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

/// Decide one entry. `q` is its Benjamini-Hochberg adjusted p-value; `band` from [`noise_band`];
/// `base_band` the band without the own-noise term (`max(floor, calibrated)`), which sets
/// `runs_needed`.
///
/// - `regressed` / `improved`: `q <= ALPHA` and the whole 95% interval beyond +-band, on the side
///   `better` calls worse / better;
/// - `unchanged`: the 90% interval inside +-`base_band` (TOST at 5%; 0 for exact values);
/// - `inconclusive` otherwise. Metrics with no better direction (counters) are `unchanged` or
///   `inconclusive` with a note saying how they changed, never `regressed` / `improved`.
pub(crate) fn decide(effect: &Effect, better: Better, q: f64, band: f64, base_band: f64) -> Decision {
    let w = to_scale(effect.scale, band);
    let up = effect.ci95.low > w;
    let down = effect.ci95.high < -w;
    // Equivalence is judged against the band without the own-noise term: "unchanged" must mean
    // "no change beyond the floor (or calibrated band)", not "within this scenario's own noise".
    let w0 = if effect.exact { 0.0 } else { to_scale(effect.scale, base_band) };
    let equivalent = tost_equivalent(&effect.ci90, w0);
    let change_pct = (effect.to_ratio(effect.estimate) - 1.0) * 100.0;
    let mde = mde(effect, band);
    // Pairs at which the verdict would likely (80%) be decided, given where the estimate sits:
    // near zero, to show it inside the band (TOST); beyond the band, to show it wholly beyond
    // max(band, 1.96 se), which takes about (1.96 + 1.96 + 0.84) / (1.96 + 0.84) = 1.7 times the
    // sd. The distance to the band edge is floored at half the band so an estimate sitting on
    // the edge still gets a finite answer.
    let runs_needed = || {
        if effect.exact || effect.sd == 0.0 {
            return None;
        }
        let w0 = to_scale(effect.scale, base_band);
        let dist = (effect.estimate.abs() - w0).abs().max(w0 / 2.0);
        let sd = if effect.estimate.abs() > w0 { 1.7 * effect.sd } else { effect.sd };
        Some(required_n_paired(sd, dist, ALPHA, POWER).max(effect.n() + 1))
    };
    let decided = |verdict| Decision {
        verdict,
        mde,
        runs_needed: None,
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
            runs_needed: runs_needed(),
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
        let band = noise_band(&e, DEFAULT_NOISE_FLOOR, None);
        assert_eq!(decide(&e, Better::Lower, e.p_value, band, 0.02).verdict, CompareVerdict::Regressed);
        assert_eq!(decide(&e, Better::Higher, e.p_value, band, 0.02).verdict, CompareVerdict::Improved);
        let d = decide(&e, Better::Neither, e.p_value, band, 0.02);
        assert_eq!(d.verdict, CompareVerdict::Inconclusive);
        assert!(d.note.unwrap().contains("+20"));
    }

    #[test]
    fn a_wide_interval_is_inconclusive_with_runs_needed_and_a_narrow_null_is_unchanged() {
        let a = [100.0, 130.0, 90.0, 120.0];
        let b = [125.0, 100.0, 118.0, 95.0];
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, None);
        let d = decide(&e, Better::Lower, e.p_value, band, 0.02);
        assert_eq!(d.verdict, CompareVerdict::Inconclusive);
        assert!(d.runs_needed.unwrap() > 4, "{d:?}");
        assert!(d.mde > band);
        let a: Vec<f64> = (0..10).map(|i| 100.0 + (i % 4) as f64 * 0.2).collect();
        let b: Vec<f64> = (0..10).map(|i| 100.0 + ((i + 1) % 4) as f64 * 0.2).collect();
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, None);
        assert_eq!(decide(&e, Better::Lower, e.p_value, band, 0.02).verdict, CompareVerdict::Unchanged);
    }

    #[test]
    fn a_significant_change_inside_the_band_is_not_a_regression() {
        // 1% slower on every pair, very low noise: significant, but inside the 2% floor.
        let a: Vec<f64> = (0..20).map(|i| 100.0 + (i % 5) as f64 * 0.01).collect();
        let b: Vec<f64> = a.iter().enumerate().map(|(i, x)| x * 1.01 + (i % 3) as f64 * 0.01).collect();
        let e = paired(&a, &b).unwrap();
        assert!(e.p_value < 1e-6);
        let band = noise_band(&e, 0.02, None);
        assert_eq!(decide(&e, Better::Lower, e.p_value, band, 0.02).verdict, CompareVerdict::Unchanged);
        // A calibrated band of 27% does not let a 20% change through either.
        let b: Vec<f64> = a.iter().enumerate().map(|(i, x)| x * 1.2 + (i % 3) as f64 * 0.01).collect();
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, Some(0.27));
        assert_ne!(decide(&e, Better::Lower, e.p_value, band, 0.27).verdict, CompareVerdict::Regressed);
    }

    #[test]
    fn a_noisy_null_is_inconclusive_not_unchanged_within_its_own_noise() {
        let a: Vec<f64> = (0..30).map(|i| 100.0 * (1.0 + 0.15 * ((i * 7 % 11) as f64 - 5.0) / 5.0)).collect();
        let b: Vec<f64> = (0..30).map(|i| 100.0 * (1.0 + 0.15 * ((i * 5 % 11) as f64 - 5.0) / 5.0)).collect();
        let e = paired(&a, &b).unwrap();
        let band = noise_band(&e, 0.02, None);
        assert!(band > 0.04 && tost_equivalent(&e.ci90, band.ln_1p()), "{band} {e:?}");
        let d = decide(&e, Better::Lower, e.p_value, band, 0.02);
        assert_eq!(d.verdict, CompareVerdict::Inconclusive);
        assert!(d.runs_needed.unwrap() > 30);
    }

    #[test]
    fn exact_counters_have_no_band() {
        let e = paired(&[8.0, 8.0, 8.0], &[8.0, 8.0, 8.0]).unwrap();
        assert_eq!(noise_band(&e, 0.02, None), 0.0);
        assert_eq!(decide(&e, Better::Neither, 1.0, 0.0, 0.02).verdict, CompareVerdict::Unchanged);
        let e = paired(&[8.0, 8.0, 8.0], &[9.0, 9.0, 9.0]).unwrap();
        assert_eq!(decide(&e, Better::Lower, 0.0, 0.0, 0.02).verdict, CompareVerdict::Regressed);
    }
}
