use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::stats::testutil::{normal, rng};

/// Histories shaped like ours: each run has `processes` values with lognormal noise (sigma
/// 0.05), a run-wide offset (sigma 0.02: the machine's state that day) and, with probability
/// 0.05 per process, a 1.3-1.6x jump; runs from `step_at` on are `step` times slower.
fn history(r: &mut ChaCha8Rng, runs: usize, processes: usize, step_at: usize, step: f64) -> Vec<f64> {
    (0..runs)
        .map(|t| {
            let level = if t >= step_at { step.ln() } else { 0.0 } + 0.02 * normal(r);
            let values: Vec<f64> = (0..processes)
                .map(|_| {
                    let jump = if r.random::<f64>() < 0.05 { r.random_range(1.3..1.6) } else { 1.0 };
                    1000.0 * (level + 0.05 * normal(r)).exp() * jump
                })
                .collect();
            run_level(&values).unwrap()
        })
        .collect()
}

#[test]
fn a_plain_step_is_found_where_it_is() {
    let x = [1.0, 1.1, 0.9, 1.0, 1.05, 5.0, 5.1, 4.9, 5.0, 5.05];
    let c = change_points(&x, &ChangePointConfig::default());
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].index, 5);
    assert!(c[0].p_value <= 0.01);
    // Two steps: both found.
    let x: Vec<f64> = (0..30).map(|i| if i < 10 { 1.0 } else if i < 20 { 3.0 } else { 6.0 } + 0.01 * (i % 3) as f64).collect();
    let idx: Vec<usize> = change_points(&x, &ChangePointConfig::default()).iter().map(|c| c.index).collect();
    assert_eq!(idx, vec![10, 20]);
}

#[test]
fn constant_and_short_series_have_no_change() {
    assert!(change_points(&[2.0; 20], &ChangePointConfig::default()).is_empty());
    assert!(change_points(&[1.0, 9.0, 1.0, 9.0, 1.0], &ChangePointConfig::default()).is_empty());
    assert!(change_points(&[], &ChangePointConfig::default()).is_empty());
    assert_eq!(run_level(&[1.0, 100.0, 10.0]).unwrap(), 10f64.ln());
    assert_eq!(run_level(&[-1.0, 0.0, 3.0]).unwrap(), 0.0);
}

/// False alarms: 400 histories of 30 runs of 5 processes without a change. The first split's
/// permutation test has level alpha = 0.01 whatever the noise, so about 4 alarms are expected;
/// the bound 0.025 is the 99.9% Monte-Carlo slack above alpha.
#[test]
fn false_alarm_rate_without_a_change_is_at_most_alpha() {
    let mut r = rng(1201);
    let config = ChangePointConfig {
        permutations: 199,
        ..Default::default()
    };
    let trials = 400;
    let alarms = (0..trials)
        .filter(|_| !change_points(&history(&mut r, 30, 5, usize::MAX, 1.0), &config).is_empty())
        .count();
    let rate = alarms as f64 / trials as f64;
    eprintln!("change points, no change: {alarms}/{trials} histories of 30 runs alarmed ({rate:.4})");
    assert!(rate <= 0.025, "false-alarm rate {rate}");
}

/// Detection: a 10% step at run 20; the history is checked after every new run, as CI would.
/// The delay is the number of runs after the step until a check finds it (within one run of
/// where it is). The minimum segment makes 3 the smallest possible delay.
#[test]
fn a_ten_percent_step_is_found_within_a_few_runs() {
    let mut r = rng(1202);
    let config = ChangePointConfig {
        permutations: 199,
        ..Default::default()
    };
    let trials = 100;
    let mut delays = Vec::new();
    for _ in 0..trials {
        let h = history(&mut r, 40, 5, 20, 1.10);
        let delay = (23..=h.len())
            .find(|&t| change_points(&h[..t], &config).iter().any(|c| c.index.abs_diff(20) <= 1))
            .map(|t| t - 20);
        delays.extend(delay);
    }
    delays.sort_unstable();
    let found = delays.len() as f64 / trials as f64;
    let median = delays.get(delays.len() / 2).copied().unwrap_or(usize::MAX);
    eprintln!(
        "change points, 10% step: found in {found:.2} of {trials} within 20 runs, median delay {median} runs, max {:?}",
        delays.last()
    );
    assert!(found >= 0.95, "found {found}");
    assert!(median <= 4, "median delay {median}");
}

/// The figures quoted in docs/statistics.md (slow: run in release, see the command there).
#[test]
#[ignore = "simulation for the docs; run with --release --ignored --nocapture"]
fn simulation_table_for_the_docs() {
    let config = ChangePointConfig::default();
    for processes in [1, 5] {
        let mut r = rng(1203);
        let trials = 1000;
        let alarms = (0..trials)
            .filter(|_| !change_points(&history(&mut r, 30, processes, usize::MAX, 1.0), &config).is_empty())
            .count();
        println!(
            "{processes} process(es)/run, no change: {alarms}/{trials} histories of 30 runs alarmed = {:.2} false alarms per 100 runs",
            alarms as f64 / trials as f64 * 100.0 / 30.0
        );
        for step in [1.05, 1.10, 1.30] {
            let mut delays = Vec::new();
            let trials = 300;
            for _ in 0..trials {
                let h = history(&mut r, 40, processes, 20, step);
                let d = (23..=h.len()).find(|&t| change_points(&h[..t], &config).iter().any(|c| c.index.abs_diff(20) <= 1));
                delays.extend(d.map(|t| t - 20));
            }
            delays.sort_unstable();
            println!(
                "{processes} process(es)/run, step x{step}: found {}/{trials} within 20 runs; delay median {:?}, 90th percentile {:?}",
                delays.len(),
                delays.get(delays.len() / 2),
                delays.get(delays.len() * 9 / 10)
            );
        }
    }
}
