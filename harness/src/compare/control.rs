//! The null control inside a comparison: a share of extra pairs run the baseline against itself
//! (A/A). Their rows should move no more than chance allows; when they do, the machine was too
//! noisy to trust a verdict, and the real rows' `regressed` / `improved` are downgraded to
//! `inconclusive` rather than blamed on the code.

use super::analyze::{AnalysisConfig, MetricInput, analyze};
use super::verdict::ALPHA;
use crate::model::{Better, CompareEntry, CompareVerdict, NullControl};

/// Fewest control pairs a scenario gets: below 3 no interval exists.
pub(crate) const MIN_CONTROL_PAIRS: usize = 3;
/// The control "moved beyond its expectation" when this few A/A rows at most would be
/// significant by chance (binomial upper tail at ALPHA).
const SURPRISE: f64 = 0.01;

/// Control pairs for a scenario that has `pairs` real pairs.
pub(crate) fn control_pairs(pairs: usize, share: f64) -> usize {
    if share <= 0.0 {
        return 0;
    }
    ((pairs as f64 * share).ceil() as usize).max(MIN_CONTROL_PAIRS)
}

/// `P(X >= k)` for `X ~ Bin(m, p)`.
fn binomial_upper(k: usize, m: usize, p: f64) -> f64 {
    let mut term = (1.0 - p).powi(m as i32); // P(X = 0)
    let mut below = 0.0;
    for i in 0..k.min(m + 1) {
        below += term;
        term *= (m - i) as f64 / (i + 1) as f64 * p / (1.0 - p);
    }
    (1.0 - below).max(0.0)
}

/// Judge the A/A control rows: did more of them reach p <= ALPHA than chance allows (binomial
/// tail below 1%), or did any of them get a `regressed` / `improved` verdict?
pub(crate) fn judge(inputs: &[MetricInput], config: &AnalysisConfig) -> NullControl {
    let rows = analyze(inputs, config);
    let directed: Vec<&CompareEntry> = rows
        .iter()
        .filter(|e| e.better != Better::Neither && e.derived_from.is_none() && e.p_value.is_some())
        .collect();
    let significant = directed.iter().filter(|e| e.p_value.is_some_and(|p| p <= ALPHA)).count();
    let moved: Vec<String> = directed
        .iter()
        .filter(|e| matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved))
        .map(|e| format!("{} {}: {:+.1}%", e.name, e.metric, (e.ratio.unwrap_or(1.0) - 1.0) * 100.0))
        .collect();
    let tail = binomial_upper(significant, directed.len(), ALPHA);
    NullControl {
        pairs: inputs.iter().map(|m| m.baseline.len()).max().unwrap_or(0),
        rows: directed.len(),
        significant,
        expected: ALPHA * directed.len() as f64,
        too_noisy: !moved.is_empty() || (significant > 0 && tail < SURPRISE),
        moved,
    }
}

/// When the control says the machine was too noisy, no row may claim a change.
pub(crate) fn downgrade(entries: &mut [CompareEntry], control: &NullControl) {
    if !control.too_noisy {
        return;
    }
    for e in entries
        .iter_mut()
        .filter(|e| matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved))
    {
        let why = format!(
            "was {}; downgraded because the A/A null control moved (machine too noisy)",
            e.verdict.as_str()
        );
        e.note = Some(match e.note.take() {
            Some(n) => format!("{n}; {why}"),
            None => why,
        });
        e.verdict = CompareVerdict::Inconclusive;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Unit;
    use crate::stats::testutil::{normal, rng};

    fn aa(r: &mut rand_chacha::ChaCha8Rng, name: String, sigma: f64, shift: f64) -> MetricInput {
        let a: Vec<f64> = (0..6).map(|_| 100.0 * (sigma * normal(r)).exp()).collect();
        let b: Vec<f64> = (0..6).map(|_| 100.0 * (shift + sigma * normal(r)).exp()).collect();
        MetricInput {
            name,
            metric: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            better: Better::Lower,
            n_baseline: 6,
            n_candidate: 6,
            baseline: a,
            candidate: b,
            paired: true,
            mixed_pairs: 0,
            note: None,
            within: None,
            source: None,
        }
    }

    #[test]
    fn binomial_tail_matches_a_hand_computation() {
        // P(X >= 1) for Bin(3, 0.5) = 7/8; P(X >= 0) = 1.
        assert!((binomial_upper(1, 3, 0.5) - 0.875).abs() < 1e-12);
        assert!((binomial_upper(0, 3, 0.5) - 1.0).abs() < 1e-12);
        assert!((binomial_upper(3, 3, 0.5) - 0.125).abs() < 1e-12);
    }

    /// Claim: a quiet A/A control is rarely judged too noisy (at most 3% of 300 sessions of 20
    /// scenarios); a control where every scenario's two copies differ by a session-level 15%
    /// (a machine that changed under the run) is judged too noisy, and the real verdicts are
    /// downgraded.
    #[test]
    fn a_quiet_control_passes_and_a_moving_one_downgrades() {
        let config = AnalysisConfig {
            floor: 0.02,
            margin: 0.05,
            ..Default::default()
        };
        let mut r = rng(5);
        let sessions = 300;
        let noisy = (0..sessions)
            .filter(|_| {
                let inputs: Vec<MetricInput> = (0..20).map(|k| aa(&mut r, format!("s{k}"), 0.05, 0.0)).collect();
                judge(&inputs, &config).too_noisy
            })
            .count();
        eprintln!("quiet controls judged too noisy: {noisy} of {sessions}");
        assert!(
            noisy as f64 / sessions as f64 <= 0.03,
            "{noisy} of {sessions} quiet controls judged noisy"
        );
        let inputs: Vec<MetricInput> = (0..20).map(|k| aa(&mut r, format!("s{k}"), 0.02, 0.15)).collect();
        let c = judge(&inputs, &config);
        assert!(c.too_noisy && c.significant > 10, "{c:?}");
        let mut rows = analyze(&[aa(&mut r, "real".into(), 0.02, 0.3)], &config);
        assert_eq!(rows[0].verdict, CompareVerdict::Regressed);
        downgrade(&mut rows, &c);
        assert_eq!(rows[0].verdict, CompareVerdict::Inconclusive);
        assert!(rows[0].note.as_deref().unwrap().contains("null control"));
    }
}
