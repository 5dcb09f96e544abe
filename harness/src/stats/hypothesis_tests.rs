//! Reference values and seeded simulations for `hypothesis.rs`.

use super::*;
use crate::stats::proportion::clopper_pearson;
use crate::stats::testutil::{normal, rng};

const ALPHA: f64 = 0.05;
const TRIALS: usize = 2000;

/// "The observed false-positive rate k/N is not significantly above alpha": the lower end of a
/// 99.8% two-sided (99.9% one-sided) Clopper-Pearson interval for the rate is <= alpha. A
/// correct test fails this about once in 1000 seeds; a test whose true rate is 0.065 at
/// N = 2000 fails it about half the time.
fn assert_rate_at_most(what: &str, k: usize, trials: usize, alpha: f64) {
    let rate = k as f64 / trials as f64;
    let ci = clopper_pearson(k as u64, trials as u64, 0.998);
    eprintln!(
        "{what}: false-positive rate {rate:.4} ({k}/{trials}), 99.8% CP [{:.4}, {:.4}]",
        ci.low, ci.high
    );
    assert!(ci.low <= alpha, "{what}: rate {rate} is significantly above {alpha}");
}

#[test]
fn welch_matches_a_hand_computed_example() {
    // a: mean 3, var 2.5; b: mean 6, var 10. se^2 = 2.5/5 + 10/5 = 2.5, t = 3 / sqrt(2.5),
    // df = 2.5^2 / (0.5^2/4 + 2^2/4) = 6.25 / 1.0625 = 5.88235. p by numerical integration of
    // the t density (Simpson, 2e5 panels) = 0.107531.
    let (a, b) = ([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 6.0, 8.0, 10.0]);
    let r = welch_t(&a, &b).unwrap();
    assert!((r.statistic - 1.8973666).abs() < 1e-6);
    assert!((r.df.unwrap() - 5.8823529).abs() < 1e-6);
    assert!((r.p_value - 0.107531).abs() < 1e-5, "{}", r.p_value);
    let ci = welch_interval(&a, &b, 0.95).unwrap();
    assert!((ci.half_width() - t_quantile_for_test(5.8823529) * 2.5f64.sqrt()).abs() < 1e-6);
    assert!(((ci.low + ci.high) / 2.0 - 3.0).abs() < 1e-12);
    assert!(matches!(welch_t(&[1.0, 1.0], &[2.0, 2.0]), Err(StatsError::ZeroVariance { .. })));
    // t interval: mean 3, s = 1.5811, t(0.975, 4) = 2.7764 -> 3 +- 1.9632.
    let ci = t_interval(&a, 0.95).unwrap();
    assert!((ci.high - 4.96319).abs() < 1e-4, "{ci:?}");
    let p = paired_t(&[1.0, 2.0, 3.0]).unwrap(); // t = 2 / (1 / sqrt 3) = 3.4641, df 2
    assert!((p.statistic - 3.4641016).abs() < 1e-6 && (p.p_value - 0.0741799).abs() < 1e-5);
}

fn t_quantile_for_test(df: f64) -> f64 {
    crate::stats::dist::t_quantile(0.975, df)
}

#[test]
fn mann_whitney_exact_reference_values() {
    // Complete separation: U = 9 of 9, P(U >= 9) = 1 / C(6,3) = 1/20, two-sided 0.1.
    let r = mann_whitney_u(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
    assert_eq!(r.statistic, 9.0);
    assert!((r.p_value - 0.1).abs() < 1e-12);
    // 4 vs 5 separated: 2 / C(9,4) = 2/126.
    let r = mann_whitney_u(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0, 9.0]).unwrap();
    assert!((r.p_value - 2.0 / 126.0).abs() < 1e-12);
    // With ties -> normal approximation. Pairs with b > a: b=2 beats 1 and ties both 2s
    // (1 + 2 * 0.5), b=3 and b=4 beat all three: U = 2 + 3 + 3 = 8.
    let r = mann_whitney_u(&[1.0, 2.0, 2.0], &[2.0, 3.0, 4.0]).unwrap();
    assert_eq!(r.statistic, 8.0);
    assert!(r.p_value > 0.1 && r.p_value < 1.0);
    // Exact and normal approximation agree at moderate n without ties.
    let a: Vec<f64> = (0..40).map(|i| (i * 2) as f64).collect();
    let b: Vec<f64> = (0..40).map(|i| (i * 2 + 7) as f64 + 0.5).collect();
    let exact = mann_whitney_u(&a, &b).unwrap().p_value;
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let u = a.iter().map(|x| b.iter().filter(|y| *y > x).count()).sum::<usize>() as f64;
    let z = ((u - na * nb / 2.0).abs() - 0.5) / (na * nb * (na + nb + 1.0) / 12.0).sqrt();
    let normal = crate::stats::dist::normal_two_sided_p(z);
    assert!(exact > 0.01 && exact < 0.5, "a moderate p, where the two could disagree: {exact}");
    assert!((exact - normal).abs() < 0.1 * exact, "exact {exact} vs normal {normal}");
}

#[test]
fn benjamini_hochberg_reference() {
    // m = 4: sorted p 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.04, 0.04, 0.5 (monotone step-up).
    let q = benjamini_hochberg(&[0.03, 0.5, 0.01, 0.02]);
    let expect = [0.04, 0.5, 0.04, 0.04];
    for (x, e) in q.iter().zip(expect) {
        assert!((x - e).abs() < 1e-12, "{q:?}");
    }
    assert_eq!(benjamini_hochberg(&[0.9, 0.8]), vec![0.9, 0.9]);
    assert!(benjamini_hochberg(&[]).is_empty());
}

#[test]
fn tost_needs_the_whole_interval_inside_the_margin() {
    let inside = Interval {
        low: -0.01,
        high: 0.015,
        level: 0.9,
    };
    let straddles = Interval {
        low: -0.01,
        high: 0.03,
        level: 0.9,
    };
    assert!(tost_equivalent(&inside, 0.02));
    assert!(!tost_equivalent(&straddles, 0.02));
}

/// A/A: both sides from one distribution. Welch on equal and on very unequal variances and
/// sizes (sd 1 vs 3, n 5 vs 15, where Student's pooled t is known to be liberal), and
/// Mann-Whitney exact and (with ties from rounding) normal-approximate. Then power against a
/// 1.5 sd shift at n = 10 a side, which theory puts near 0.89 (t) and 0.87 (U).
#[test]
fn a_a_false_positive_rates_and_power() {
    let mut r = rng(5);
    let draw = |r: &mut rand_chacha::ChaCha8Rng, n: usize, mu: f64, sd: f64| -> Vec<f64> { (0..n).map(|_| mu + sd * normal(r)).collect() };
    let (mut welch_eq, mut welch_uneq, mut mw, mut mw_ties) = (0, 0, 0, 0);
    let (mut welch_pow, mut mw_pow) = (0, 0);
    for _ in 0..TRIALS {
        let (a, b) = (draw(&mut r, 10, 0.0, 1.0), draw(&mut r, 10, 0.0, 1.0));
        welch_eq += (welch_t(&a, &b).unwrap().p_value <= ALPHA) as usize;
        mw += (mann_whitney_u(&a, &b).unwrap().p_value <= ALPHA) as usize;
        let round = |v: &[f64]| v.iter().map(|x| (x * 2.0).round()).collect::<Vec<_>>();
        mw_ties += (mann_whitney_u(&round(&a), &round(&b)).unwrap().p_value <= ALPHA) as usize;
        let (a, b) = (draw(&mut r, 5, 0.0, 1.0), draw(&mut r, 15, 0.0, 3.0));
        welch_uneq += (welch_t(&a, &b).unwrap().p_value <= ALPHA) as usize;
        let (a, b) = (draw(&mut r, 10, 0.0, 1.0), draw(&mut r, 10, 1.5, 1.0));
        welch_pow += (welch_t(&a, &b).unwrap().p_value <= ALPHA) as usize;
        mw_pow += (mann_whitney_u(&a, &b).unwrap().p_value <= ALPHA) as usize;
    }
    assert_rate_at_most("Welch A/A n=10+10", welch_eq, TRIALS, ALPHA);
    assert_rate_at_most("Welch A/A n=5 sd1 vs n=15 sd3", welch_uneq, TRIALS, ALPHA);
    assert_rate_at_most("Mann-Whitney exact A/A n=10+10", mw, TRIALS, ALPHA);
    assert_rate_at_most("Mann-Whitney tied (normal approx) A/A n=10+10", mw_ties, TRIALS, ALPHA);
    let (pw, pm) = (welch_pow as f64 / TRIALS as f64, mw_pow as f64 / TRIALS as f64);
    eprintln!("power at a 1.5 sd shift, n=10+10: Welch {pw:.3}, Mann-Whitney {pm:.3}");
    assert!(pw > 0.8 && pm > 0.8);
    // The rates must not be absurdly low either (a test that never rejects passes the above).
    assert!(welch_eq as f64 / TRIALS as f64 > 0.03 && mw as f64 / TRIALS as f64 > 0.03);
}

/// FDR of BH at q = 0.05: 500 families of 60 true nulls (z ~ N(0,1)) and 10 true effects
/// (z ~ N(3,1)), two-sided normal p-values. Theory: FDR = q m0 / m = 0.0429. Unadjusted
/// p <= 0.05 is shown to fail, so the check can tell the difference.
#[test]
fn benjamini_hochberg_controls_fdr() {
    let mut r = rng(9);
    let (families, m0, m1, q) = (500, 60, 10, 0.05);
    let (mut fdp_bh, mut fdp_raw, mut found) = (0.0, 0.0, 0usize);
    for _ in 0..families {
        let p: Vec<f64> = (0..m0 + m1)
            .map(|i| {
                let z = normal(&mut r) + if i < m0 { 0.0 } else { 3.0 };
                crate::stats::dist::normal_two_sided_p(z)
            })
            .collect();
        let qv = benjamini_hochberg(&p);
        let fdp = |flags: &dyn Fn(usize) -> bool| {
            let rejected = (0..m0 + m1).filter(|&i| flags(i)).count();
            let false_ = (0..m0).filter(|&i| flags(i)).count();
            if rejected == 0 { 0.0 } else { false_ as f64 / rejected as f64 }
        };
        fdp_bh += fdp(&|i| qv[i] <= q);
        fdp_raw += fdp(&|i| p[i] <= q);
        found += (m0..m0 + m1).filter(|&i| qv[i] <= q).count();
        assert!(qv.iter().zip(&p).all(|(qi, pi)| *qi >= pi * (1.0 - 1e-12) && *qi <= 1.0));
    }
    let (fdr, raw) = (fdp_bh / families as f64, fdp_raw / families as f64);
    let power = found as f64 / (families * m1) as f64;
    eprintln!("BH FDR over {families} families (60 null + 10 effects): {fdr:.4} (raw p<=0.05: {raw:.3}); power {power:.3}");
    assert!(fdr <= q, "FDR {fdr}");
    assert!(raw > 2.0 * q, "unadjusted FDR {raw} should be well above q");
}
