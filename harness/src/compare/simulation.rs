//! Seeded simulations with known truth through the same [`analyze`] the command uses: A/A false
//! positives (interleaved against blocked), power for injected shifts, and Benjamini-Hochberg
//! across a suite. Figures are printed (`--nocapture`) and copied into docs/statistics.md.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::analyze::{AnalysisConfig, MetricInput, analyze};
use super::verdict::{DEFAULT_MARGIN, DEFAULT_NOISE_FLOOR};
use crate::model::{Better, CompareVerdict, Unit};
use crate::stats::clopper_pearson_upper;
use crate::stats::testutil::{normal, rng};

/// Noise of one scenario on a machine, on the log scale.
#[derive(Debug, Clone, Copy)]
struct Noise {
    /// Per-run noise (sd of ln value): 0.05 is about 5%.
    sigma: f64,
    /// Random-walk step of the machine's speed per run, as a share of `sigma`.
    drift: f64,
    /// AR(1) correlation of adjacent runs' noise.
    rho: f64,
    /// Chance that a run is an outlier 30% slow (a background job).
    outlier: f64,
}

impl Noise {
    fn realistic(sigma: f64) -> Self {
        Noise {
            sigma,
            drift: 0.25,
            rho: 0.4,
            outlier: 0.02,
        }
    }
}

/// `len` consecutive runs' log offsets: drift + correlated noise + rare outliers.
fn series(r: &mut ChaCha8Rng, len: usize, n: Noise) -> Vec<f64> {
    let (mut walk, mut ar) = (0.0, n.sigma * normal(r));
    (0..len)
        .map(|_| {
            walk += n.drift * n.sigma * normal(r);
            ar = n.rho * ar + (1.0 - n.rho * n.rho).sqrt() * n.sigma * normal(r);
            let out = if r.random::<f64>() < n.outlier { 1.3f64.ln() } else { 0.0 };
            walk + ar + out
        })
        .collect()
}

/// One scenario measured `pairs` times a side; the candidate is `shift` slower (0.05 = 5%).
/// Interleaved: runs 2i and 2i+1 are pair i, in random order. Blocked: all A, then all B.
fn scenario(r: &mut ChaCha8Rng, name: String, pairs: usize, noise: Noise, shift: f64, interleaved: bool) -> MetricInput {
    let s = series(r, 2 * pairs, noise);
    let (mut a, mut b) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
    for i in 0..pairs {
        let (ia, ib) = if !interleaved {
            (i, pairs + i)
        } else if r.random::<bool>() {
            (2 * i, 2 * i + 1)
        } else {
            (2 * i + 1, 2 * i)
        };
        a.push(1000.0 * s[ia].exp());
        b.push(1000.0 * (1.0 + shift) * s[ib].exp());
    }
    MetricInput {
        name,
        metric: "latency_ns".into(),
        unit: Unit::Nanoseconds,
        better: Better::Lower,
        n_baseline: pairs,
        n_candidate: pairs,
        baseline: a,
        candidate: b,
        paired: interleaved,
        mixed_pairs: 0,
        note: None,
        within: None,
        source: None,
    }
}

fn config() -> AnalysisConfig {
    AnalysisConfig {
        floor: DEFAULT_NOISE_FLOOR,
        margin: DEFAULT_MARGIN,
        ..Default::default()
    }
}

/// Scenarios flagged regressed/improved, and those with raw p <= 0.05, over `trials` A/A
/// scenarios (sigma drawn from 5-20%), each analysed alone (no help from BH).
fn aa_rates(seed: u64, trials: usize, pairs: usize, interleaved: bool) -> (usize, usize) {
    let mut r = rng(seed);
    let (mut flagged, mut raw) = (0, 0);
    for t in 0..trials {
        let sigma = 0.05 + 0.15 * r.random::<f64>();
        let input = scenario(&mut r, format!("s{t}"), pairs, Noise::realistic(sigma), 0.0, interleaved);
        let e = &analyze(&[input], &config())[0];
        flagged += usize::from(matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved));
        raw += usize::from(e.p_value.unwrap() <= 0.05);
    }
    (flagged, raw)
}

/// Claim: on identical code with drift, correlated runs and outliers, interleaved pairs flag at
/// most 5% of scenario comparisons (Clopper-Pearson 95% upper bound below 5%); the blocked design
/// (a saved baseline) flags far more, which is why binaries are interleaved.
#[test]
fn a_a_false_positives_interleaved_versus_blocked() {
    let trials = 2000;
    for pairs in [10, 30] {
        let (fi, ri) = aa_rates(101 + pairs as u64, trials, pairs, true);
        let (fb, rb) = aa_rates(202 + pairs as u64, trials, pairs, false);
        let rate = |k: usize| k as f64 / trials as f64;
        eprintln!(
            "A/A n={pairs}: interleaved verdict FP {:.4} (raw p<=0.05: {:.4}); blocked verdict FP {:.4} (raw p<=0.05: {:.4})",
            rate(fi),
            rate(ri),
            rate(fb),
            rate(rb)
        );
        let upper = clopper_pearson_upper(fi as u64, trials as u64, 0.95);
        assert!(upper <= 0.05, "interleaved FP {} of {trials}, upper bound {upper}", fi);
        // Raw paired t alone stays near alpha: the pairing, not the band, removes the drift.
        assert!(rate(ri) <= 0.07, "raw interleaved {}", rate(ri));
        assert!(
            rate(rb) > 2.0 * rate(ri),
            "blocked raw {} vs interleaved raw {}",
            rate(rb),
            rate(ri)
        );
        assert!(
            rate(fb) > 3.0 * rate(fi).max(0.005),
            "blocked {} vs interleaved {}",
            rate(fb),
            rate(fi)
        );
    }
}

/// Detection rate of `shift` at per-run noise `sigma` with `pairs` pairs, `trials` trials.
fn power(seed: u64, trials: usize, pairs: usize, sigma: f64, shift: f64) -> f64 {
    let mut r = rng(seed);
    let hits = (0..trials)
        .filter(|t| {
            let input = scenario(&mut r, format!("s{t}"), pairs, Noise::realistic(sigma), shift, true);
            analyze(&[input], &config())[0].verdict == CompareVerdict::Regressed
        })
        .count();
    hits as f64 / trials as f64
}

/// The power table of docs/statistics.md ("Comparing builds"): injected slowdowns of 2/5/10% at
/// per-run noise 1/5/20%, 10 and 30 pairs, margin 5%. More shift, more pairs, less noise: more
/// power; a shift inside or on the margin is not a regression.
#[test]
fn power_table_for_injected_shifts() {
    let trials = 400;
    let shifts = [0.02, 0.05, 0.10];
    let mut table = String::from("| noise | pairs | 2% | 5% | 10% |\n|---|---|---|---|---|\n");
    let mut p = std::collections::BTreeMap::new();
    for (i, sigma) in [0.01, 0.05, 0.20].into_iter().enumerate() {
        for pairs in [10, 30] {
            let row: Vec<f64> = shifts
                .iter()
                .enumerate()
                .map(|(j, &s)| power(1000 + (i * 100 + pairs * 10 + j) as u64, trials, pairs, sigma, s))
                .collect();
            table += &format!(
                "| {:.0}% | {pairs} | {:.3} | {:.3} | {:.3} |\n",
                sigma * 100.0,
                row[0],
                row[1],
                row[2]
            );
            for (j, v) in row.into_iter().enumerate() {
                p.insert((i, pairs, j), v);
            }
        }
    }
    eprintln!("power (regressed verdict rate), {trials} trials a cell:\n{table}");
    // Monotone (with Monte-Carlo slack of 0.05): in shift, in pairs, and against noise.
    for i in 0..3 {
        for pairs in [10, 30] {
            assert!(p[&(i, pairs, 0)] <= p[&(i, pairs, 1)] + 0.05 && p[&(i, pairs, 1)] <= p[&(i, pairs, 2)] + 0.05);
        }
        for j in 0..3 {
            assert!(p[&(i, 10, j)] <= p[&(i, 30, j)] + 0.05, "more pairs, less power at {i} {j}");
        }
    }
    for pairs in [10, 30] {
        for j in 0..3 {
            assert!(p[&(2, pairs, j)] <= p[&(1, pairs, j)] + 0.05 && p[&(1, pairs, j)] <= p[&(0, pairs, j)] + 0.05);
        }
    }
    assert!(p[&(0, 10, 2)] > 0.95, "10% at 1% noise, 10 pairs: {}", p[&(0, 10, 2)]);
    assert!(p[&(1, 30, 2)] > 0.8, "10% at 5% noise, 30 pairs: {}", p[&(1, 30, 2)]);
    // 2% lies inside the 5% margin and 5% on its edge: the rule does not call them, by design.
    assert!(p[&(0, 30, 0)] < 0.05, "2% at 1% noise: {}", p[&(0, 30, 0)]);
    assert!(p[&(0, 30, 1)] < 0.5, "5% at 1% noise: {}", p[&(0, 30, 1)]);
}

/// Claim: in suites of 60 scenarios of which 6 are 10% slower (noise 2-5%), the false
/// regressed/improved flags per suite stay rare and the share of flags that are false stays
/// under 5% (the false discovery rate), while most true shifts are found.
#[test]
fn benjamini_hochberg_keeps_false_flags_per_suite_rare() {
    let (suites, m, shifted) = (200, 60, 6);
    let mut r = rng(77);
    let (mut false_flags, mut flags, mut found, mut suites_with_false, mut raw) = (0usize, 0usize, 0usize, 0usize, 0usize);
    for _ in 0..suites {
        let inputs: Vec<MetricInput> = (0..m)
            .map(|k| {
                let sigma = 0.02 + 0.03 * r.random::<f64>();
                let shift = if k < shifted { 0.10 } else { 0.0 };
                scenario(&mut r, format!("s{k}"), 10, Noise::realistic(sigma), shift, true)
            })
            .collect();
        let out = analyze(&inputs, &config());
        let flagged = |e: &crate::model::CompareEntry| matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved);
        let f = out[shifted..].iter().filter(|e| flagged(e)).count();
        false_flags += f;
        raw += out[shifted..].iter().filter(|e| e.p_value.unwrap() <= 0.05).count();
        suites_with_false += usize::from(f > 0);
        flags += out.iter().filter(|e| flagged(e)).count();
        found += out[..shifted].iter().filter(|e| e.verdict == CompareVerdict::Regressed).count();
    }
    let fdr = false_flags as f64 / flags.max(1) as f64;
    let per_suite = false_flags as f64 / suites as f64;
    let recall = found as f64 / (suites * shifted) as f64;
    let raw_per_suite = raw as f64 / suites as f64;
    eprintln!(
        "BH, {suites} suites of {m} (6 shifted 10%): false flags per suite {per_suite:.3}, suites with any {:.3}, \
         false share of flags {fdr:.4}, true shifts found {recall:.3}; unadjusted p <= 0.05 alone: {raw_per_suite:.2} false flags per suite",
        suites_with_false as f64 / suites as f64
    );
    assert!(fdr <= 0.05, "{fdr}");
    assert!(
        per_suite <= 0.2 && per_suite < raw_per_suite / 10.0,
        "{per_suite} vs {raw_per_suite}"
    );
    assert!(recall > 0.5, "{recall}");
}
