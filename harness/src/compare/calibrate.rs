//! `calibrate`: A/A sessions of one binary against itself into each scenario x metric's noise
//! band and minimal detectable effect ([`CalibrationEntry`], `calibration.json`).
//!
//! Noise band = `max(floor, 1.96 sqrt(max(mean se_s^2, var(m_s))))` on the log scale, where
//! `m_s` is session s's A/A log ratio and `se_s` its standard error: the 95th percentile of
//! |A/A change| at this run count under a normal model, using the observed spread between
//! sessions when it exceeds what each session's own interval predicts (drift between sessions,
//! ASLR, frequency states). A parametric percentile, because five sessions cannot estimate a
//! 95th percentile directly.

use std::collections::BTreeMap;

use super::analyze::{AnalysisConfig, MetricInput, analyze};
use super::effect::{Effect, Scale, paired};
use super::verdict::{ALPHA, DEFAULT_MARGIN, POWER};
use crate::model::{CalibrationEntry, CompareVerdict};
use crate::stats::minimal_detectable_effect;

const Z975: f64 = 1.959_964;

/// Calibration from `sessions`, each the paired inputs of one A/A session (same scenarios).
pub(crate) fn calibrate(sessions: &[Vec<MetricInput>], floor: f64) -> Vec<CalibrationEntry> {
    let mut by_key: BTreeMap<(String, String), Vec<(Effect, bool)>> = BTreeMap::new();
    for inputs in sessions {
        let entries = analyze(
            inputs,
            // Sessions falsely flagged under the default verdict rule (margin 5%).
            &AnalysisConfig {
                floor,
                margin: DEFAULT_MARGIN,
                ..Default::default()
            },
        );
        for (m, e) in inputs.iter().zip(entries) {
            let Ok(effect) = paired(&m.baseline, &m.candidate) else { continue };
            let flagged = matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved);
            by_key
                .entry((m.name.clone(), m.metric.clone()))
                .or_default()
                .push((effect, flagged));
        }
    }
    by_key
        .into_iter()
        .map(|((name, metric), effects)| {
            let s = effects.len() as f64;
            let scale = effects[0].0.scale;
            let from = |x: f64| if scale == Scale::Log { x.exp_m1() } else { x };
            let ms: Vec<f64> = effects.iter().map(|(e, _)| e.estimate).collect();
            let mean_m = ms.iter().sum::<f64>() / s;
            let var_between = if effects.len() > 1 {
                ms.iter().map(|m| (m - mean_m).powi(2)).sum::<f64>() / (s - 1.0)
            } else {
                0.0
            };
            let mean_se2 = effects.iter().map(|(e, _)| e.se * e.se).sum::<f64>() / s;
            let sd = (effects.iter().map(|(e, _)| e.sd * e.sd).sum::<f64>() / s).sqrt();
            let n = effects.iter().map(|(e, _)| e.n()).min().unwrap_or(0);
            let band_scale = Z975 * mean_se2.max(var_between).sqrt();
            let exact = effects.iter().all(|(e, _)| e.exact);
            let noise_band = if exact { 0.0 } else { floor.max(from(band_scale)) };
            let to = |f: f64| if scale == Scale::Log { f.ln_1p() } else { f };
            let mde = if exact {
                0.0
            } else {
                from(to(noise_band) + minimal_detectable_effect(sd, n, ALPHA, POWER))
            };
            CalibrationEntry {
                name,
                metric,
                noise_band,
                mde,
                n,
                sessions: effects.len(),
                sd_log_ratio: sd,
                session_changes: ms.iter().map(|&m| from(m)).collect(),
                false_positives: effects.iter().filter(|(_, f)| *f).count(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, Unit};
    use crate::stats::testutil::{normal, rng};

    fn session(r: &mut rand_chacha::ChaCha8Rng, sigma: f64, offset: f64) -> Vec<MetricInput> {
        let a: Vec<f64> = (0..10).map(|_| 100.0 * (sigma * normal(r)).exp()).collect();
        let b: Vec<f64> = (0..10).map(|_| 100.0 * (offset + sigma * normal(r)).exp()).collect();
        vec![MetricInput {
            name: "s".into(),
            metric: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            better: Better::Lower,
            n_baseline: 10,
            n_candidate: 10,
            baseline: a,
            candidate: b,
            paired: true,
            mixed_pairs: 0,
            note: None,
            within: None,
            source: None,
        }]
    }

    /// Claim: a quiet scenario gets the floor; a noisy one a wider band; sessions that disagree
    /// with each other (between-session drift) widen it further.
    #[test]
    fn band_follows_within_and_between_session_noise() {
        let mut r = rng(9);
        let quiet: Vec<_> = (0..5).map(|_| session(&mut r, 0.002, 0.0)).collect();
        let noisy: Vec<_> = (0..5).map(|_| session(&mut r, 0.10, 0.0)).collect();
        let drifting: Vec<_> = [-0.2, 0.2, -0.2, 0.2, 0.0].iter().map(|&o| session(&mut r, 0.002, o)).collect();
        let q = &calibrate(&quiet, 0.02)[0];
        let n = &calibrate(&noisy, 0.02)[0];
        let d = &calibrate(&drifting, 0.02)[0];
        assert_eq!((q.noise_band, q.sessions, q.n), (0.02, 5, 10));
        assert!(n.noise_band > 0.06 && n.noise_band < 0.2, "{n:?}");
        assert!(d.noise_band > 0.3, "{d:?}");
        assert!(n.mde > n.noise_band && q.mde < 0.03);
    }
}
