//! Seeded simulation for the within-process centre (docs/statistics.md, "Within a process"):
//! preemption spikes of a few ms on a ~0.6 ms routine move a process's mean, not its interquartile mean,
//! and the summary flags a row whose samples are carried by such spikes.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::summary::summarize;
use super::testutil::{normal, rng};

const TRUE_NS: f64 = 600_000.0;

/// One process: `n` samples of a 0.6 ms routine (lognormal, sigma 0.03), each hit by a
/// 5-9 ms preemption spike with probability `p_spike`.
fn process(rng: &mut ChaCha8Rng, n: usize, p_spike: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let x = TRUE_NS * (0.03 * normal(rng)).exp();
            if rng.random::<f64>() < p_spike {
                x + rng.random_range(5e6..9e6)
            } else {
                x
            }
        })
        .collect()
}

/// The pooled centre over 10 processes of 30 samples, each process reduced by `reduce`.
fn centre(seed: u64, p_spike: f64, reduce: fn(&[f64]) -> f64) -> (f64, Option<String>) {
    let mut r = rng(seed);
    let within: Vec<Vec<f64>> = (0..10).map(|_| process(&mut r, 30, p_spike)).collect();
    let per_process: Vec<f64> = within.iter().map(|s| reduce(s)).collect();
    let s = summarize(&per_process, Some(&within), true, 0.95).unwrap();
    (s.center_value / TRUE_NS, s.unstable_reason)
}

fn mean(s: &[f64]) -> f64 {
    s.iter().sum::<f64>() / s.len() as f64
}

/// The same centre the bencher reports.
fn median(s: &[f64]) -> f64 {
    crate::stats::trimmed::within_process_centre(s)
}

/// Claim: with 1 sample in 20 hit by a 5-9 ms spike, the mean-of-samples centre lies above
/// 1.25x the true time in at least 90% of 200 seeds (the 2.4x case), while the
/// interquartile-mean centre (`median` below) lies within 5% of it in every seed.
#[test]
fn spikes_move_the_mean_of_samples_but_not_the_median() {
    let trials = 200;
    let (mut mean_far, mut median_close) = (0, 0);
    for seed in 0..trials {
        let (m, _) = centre(seed, 0.05, mean);
        let (md, _) = centre(seed, 0.05, median);
        mean_far += usize::from(m > 1.25);
        median_close += usize::from((md - 1.0).abs() < 0.05);
    }
    assert!(
        mean_far >= trials as usize * 9 / 10,
        "mean distorted in only {mean_far} of {trials}"
    );
    assert_eq!(median_close, trials as usize, "median within 5% in {median_close} of {trials}");
}

/// Claim: the same spiky processes are flagged unstable with a reason naming the spikes in every
/// one of 100 seeds; spike-free ones (30 samples, sigma 0.03) are never flagged for spikes, and
/// at most 2 of 100 are flagged at all (the severe-outlier rule over 10 tight processes fires on
/// its own now and then: seed 41 has 2 of 10 beyond 3 IQR).
#[test]
fn a_row_carried_by_spikes_is_unstable_with_its_reason() {
    let mut clean_flagged = 0;
    for seed in 0..100 {
        // 1 in 10 samples spiked by 5-9 ms: those hold most of each process's time.
        let (_, spiky) = centre(seed, 0.1, median);
        let why = spiky.unwrap_or_else(|| panic!("seed {seed}: spikes not flagged"));
        assert!(why.contains("a few samples carry most of the time"), "{why}");
        let (_, clean) = centre(seed, 0.0, median);
        if let Some(why) = clean {
            assert!(!why.contains("a few samples carry"), "seed {seed}: {why}");
            clean_flagged += 1;
        }
    }
    assert!(clean_flagged <= 2, "{clean_flagged} of 100 spike-free rows flagged");
}
