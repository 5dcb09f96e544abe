//! Peeking after every batch, simulated: the sequential design's false regressed/improved
//! verdicts stay at or below 5% where testing every look at the full alpha does not, on the
//! measured noise shape. Prints the figures of docs/statistics.md ("Sequential pairs";
//! `cargo test -p harness --lib sequential_sim -- --nocapture`).

use super::analyze::{AnalysisConfig, MetricInput, analyze};
use super::estimator_sim::{MEASURED, Shape, pairs, per_process};
use super::sequential::{Plan, Sequential};
use super::verdict::{DEFAULT_MARGIN, DEFAULT_NOISE_FLOOR};
use crate::model::{Better, CompareVerdict, Unit};
use crate::stats::clopper_pearson_upper;
use crate::stats::testutil::rng;

fn input(p: &[(Vec<f64>, Vec<f64>)]) -> MetricInput {
    MetricInput {
        name: "s".into(),
        metric: "latency_ns".into(),
        unit: Unit::Nanoseconds,
        better: Better::Lower,
        baseline: p.iter().map(|(a, _)| per_process(1, a)).collect(),
        candidate: p.iter().map(|(_, b)| per_process(1, b)).collect(),
        paired: true,
        mixed_pairs: 0,
        n_baseline: p.len(),
        n_candidate: p.len(),
        note: None,
        within: None,
        source: None,
    }
}

/// Final verdicts of `trials` scenarios run sequentially, and how many a naive design (every
/// look tested at the full alpha, stopping at the first decision) called regressed/improved.
struct Outcome {
    regressed: usize,
    improved: usize,
    unchanged: usize,
    naive_flagged: usize,
    mean_pairs: f64,
}

fn simulate(seed: u64, trials: usize, shape: Shape, shift: f64, margin: f64) -> Outcome {
    simulate_to(60, seed, trials, shape, shift, margin)
}

fn simulate_to(horizon: usize, seed: u64, trials: usize, shape: Shape, shift: f64, margin: f64) -> Outcome {
    let plan = Plan { first: 10, horizon };
    let config = AnalysisConfig {
        floor: DEFAULT_NOISE_FLOOR.min(margin),
        margin,
        ..Default::default()
    };
    let mut r = rng(seed);
    let mut o = Outcome {
        regressed: 0,
        improved: 0,
        unchanged: 0,
        naive_flagged: 0,
        mean_pairs: 0.0,
    };
    for _ in 0..trials {
        let all = pairs(&mut r, shape, plan.horizon, shift);
        let mut seq = Sequential::new(plan, config.clone());
        let mut n = plan.first;
        let verdict = loop {
            let e = seq.look(&[input(&all[..n])]).remove(0);
            match seq.next().get("s") {
                Some(&next) => n = next,
                None => break e.verdict,
            }
        };
        o.mean_pairs += n as f64 / trials as f64;
        match verdict {
            CompareVerdict::Regressed => o.regressed += 1,
            CompareVerdict::Improved => o.improved += 1,
            CompareVerdict::Unchanged => o.unchanged += 1,
            CompareVerdict::Inconclusive => {}
        }
        let naive = plan.grid().into_iter().find_map(|k| {
            let v = analyze(&[input(&all[..k])], &config)[0].verdict;
            (v != CompareVerdict::Inconclusive).then_some(v)
        });
        o.naive_flagged += usize::from(matches!(naive, Some(CompareVerdict::Regressed | CompareVerdict::Improved)));
    }
    o
}

/// Claim: with looks at 10, 15, 23, 35, 53 and 60 pairs, stopping as soon as a scenario decides,
/// false regressed/improved verdicts on identical builds stay at or below 5% (Clopper-Pearson
/// upper bound), both on pure significance (margin 0) and under the 5% margin; testing every look
/// at the full alpha instead exceeds 5% on pure significance. A +10% candidate is still found.
#[test]
fn peeking_after_every_batch_keeps_false_verdicts_at_or_below_alpha() {
    let trials = 400;
    let noisy = Shape {
        between: 0.10,
        jump: 0.15,
        ..MEASURED
    };
    for (label, shape, seed) in [("measured", MEASURED, 61), ("noisier", noisy, 62)] {
        let sig = simulate(seed, trials, shape, 0.0, 0.0);
        let marg = simulate(seed + 100, trials, shape, 0.0, DEFAULT_MARGIN);
        let rate = |k: usize| k as f64 / trials as f64;
        let false_sig = sig.regressed + sig.improved;
        let false_marg = marg.regressed + marg.improved;
        eprintln!(
            "A/A {label}, {trials} scenarios: margin 0: sequential false {:.4}, naive peeking {:.4}; margin 5%: sequential false {:.4} \
             (naive {:.4}), unchanged {:.3}, mean pairs {:.1}",
            rate(false_sig),
            rate(sig.naive_flagged),
            rate(false_marg),
            rate(marg.naive_flagged),
            rate(marg.unchanged),
            marg.mean_pairs
        );
        for k in [false_sig, false_marg] {
            let upper = clopper_pearson_upper(k as u64, trials as u64, 0.95);
            assert!(upper <= 0.05 || rate(k) <= 0.03, "false verdicts {k} of {trials}, upper {upper}");
        }
        assert!(
            rate(sig.naive_flagged) > 0.08,
            "naive peeking at full alpha inflates: {}",
            rate(sig.naive_flagged)
        );
    }
    let found = simulate(64, 150, MEASURED, 0.10, DEFAULT_MARGIN);
    eprintln!(
        "+10% measured, 150 scenarios: regressed {:.3}, mean pairs {:.1}",
        found.regressed as f64 / 150.0,
        found.mean_pairs
    );
    assert!(found.regressed as f64 / 150.0 > 0.5 && found.improved == 0);
}

/// Claim: the horizon a long budget buys (240 pairs) keeps false regressed/improved verdicts at or
/// below 5% (the alphas still sum to 0.05), and decides `unchanged` more often than horizon 60 on
/// the noisier shape, where horizon 60 gives most scenarios up.
#[test]
fn a_longer_horizon_stays_valid_and_decides_more() {
    let trials = 300;
    let noisy = Shape {
        between: 0.10,
        jump: 0.15,
        ..MEASURED
    };
    for (label, shape, seed) in [("measured", MEASURED, 71), ("noisier", noisy, 72)] {
        let sig = simulate_to(240, seed, trials, shape, 0.0, 0.0);
        let long = simulate_to(240, seed + 100, trials, shape, 0.0, DEFAULT_MARGIN);
        let short = simulate_to(60, seed + 100, trials, shape, 0.0, DEFAULT_MARGIN);
        let rate = |k: usize| k as f64 / trials as f64;
        eprintln!(
            "A/A {label}, horizon 240, {trials} scenarios: margin 0: false {:.4}; margin 5%: false {:.4}, unchanged {:.3} \
             (horizon 60: {:.3}), mean pairs {:.1}",
            rate(sig.regressed + sig.improved),
            rate(long.regressed + long.improved),
            rate(long.unchanged),
            rate(short.unchanged),
            long.mean_pairs
        );
        for k in [sig.regressed + sig.improved, long.regressed + long.improved] {
            let upper = clopper_pearson_upper(k as u64, trials as u64, 0.95);
            assert!(upper <= 0.05 || rate(k) <= 0.03, "false verdicts {k} of {trials}, upper {upper}");
        }
        assert!(
            long.unchanged >= short.unchanged,
            "{label}: {} < {}",
            long.unchanged,
            short.unchanged
        );
    }
}
