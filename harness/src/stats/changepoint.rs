//! `change_points`: level shifts in a series, by E-Divisive means with a permutation test.
//!
//! Matteson & James, "A nonparametric approach for multiple change point analysis of
//! multivariate data", JASA 2014, with their `alpha = 1` (plain distances, so the statistic
//! reacts to a shift of level). For a split of a segment at `tau` the divergence is
//! `Q = tau (T - tau) / T * (2 mean|x_i - x_j| across - mean|x_i - x_k| left - mean right)`;
//! the best split's significance is the share of seeded permutations of the segment whose best
//! `Q` reaches the observed one. A significant split divides the segment and both halves are
//! searched again (binary segmentation). Under no change the values are exchangeable, so the
//! first test's false-alarm rate is at most `alpha` whatever the noise's shape; MongoDB runs
//! this over per-commit results (Daly et al., ICPE 2020). Seeded permutations keep it
//! deterministic, which Otava gets by swapping in a t-test instead.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Settings of [`change_points`]; the defaults are the ones the simulations in
/// `docs/statistics.md` were run with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePointConfig {
    /// Significance level of each split's permutation test (default 0.01).
    pub alpha: f64,
    /// Permutations per test (default 499; the smallest p-value is 1/500).
    pub permutations: usize,
    /// Fewest points on each side of a change (default 3): a change is found at the earliest
    /// this many runs after it happened.
    pub min_segment: usize,
    /// Seed of the permutations.
    pub seed: u64,
}

impl Default for ChangePointConfig {
    fn default() -> Self {
        ChangePointConfig {
            alpha: 0.01,
            permutations: 499,
            min_segment: 3,
            seed: 0x5eed_c4a2,
        }
    }
}

/// A change found at `index`: the first point of the new level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    /// Index of the first point after the change.
    pub index: usize,
    /// Permutation p-value of the split.
    pub p_value: f64,
}

/// Change points of `x`, in index order.
pub fn change_points(x: &[f64], config: &ChangePointConfig) -> Vec<ChangePoint> {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let mut found = Vec::new();
    let mut segments = vec![(0, x.len())];
    while let Some((lo, hi)) = segments.pop() {
        let seg = &x[lo..hi];
        let Some((tau, q)) = best_split(seg, config.min_segment) else {
            continue;
        };
        let p = permutation_p(seg, q, config, &mut rng);
        if p <= config.alpha {
            found.push(ChangePoint {
                index: lo + tau,
                p_value: p,
            });
            segments.push((lo, lo + tau));
            segments.push((lo + tau, hi));
        }
    }
    found.sort_by_key(|c| c.index);
    found
}

/// One run's level from its per-process values: the median, on a log scale when every value is
/// positive. The median keeps one process's 1.3-1.6x jump (seen on shared machines) from moving
/// the run; `None` for a run without values.
pub fn run_level(values: &[f64]) -> Option<f64> {
    let positive = values.iter().all(|v| *v > 0.0);
    let mut v: Vec<f64> = values
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| if positive { v.ln() } else { *v })
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let k = v.len();
    Some(if k % 2 == 1 { v[k / 2] } else { (v[k / 2 - 1] + v[k / 2]) / 2.0 })
}

fn permutation_p(seg: &[f64], observed: f64, config: &ChangePointConfig, rng: &mut ChaCha8Rng) -> f64 {
    let mut work = seg.to_vec();
    let mut reached = 0usize;
    for _ in 0..config.permutations {
        work.shuffle(rng);
        if best_split(&work, config.min_segment).is_some_and(|(_, q)| q >= observed * (1.0 - 1e-12)) {
            reached += 1;
        }
    }
    (reached + 1) as f64 / (config.permutations + 1) as f64
}

/// The split `tau` (first index of the right part) with the largest divergence `Q`, in O(T^2).
fn best_split(x: &[f64], min_segment: usize) -> Option<(usize, f64)> {
    let n = x.len();
    let m = min_segment.max(2);
    if n < 2 * m {
        return None;
    }
    // Start with everything on the right; move points left one at a time, updating the sums of
    // distances within the left part, within the right part and across.
    let (mut left, mut across) = (0.0, 0.0);
    let mut right: f64 = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| (x[i] - x[j]).abs())
        .sum();
    let mut best: Option<(usize, f64)> = None;
    for p in 0..n - m {
        let to_left: f64 = x[..p].iter().map(|v| (v - x[p]).abs()).sum();
        let to_right: f64 = x[p + 1..].iter().map(|v| (v - x[p]).abs()).sum();
        left += to_left;
        right -= to_right;
        across += to_right - to_left;
        let tau = p + 1;
        if tau < m {
            continue;
        }
        let (a, b) = (tau as f64, (n - tau) as f64);
        let within = |sum: f64, k: f64| if k > 1.0 { sum / (k * (k - 1.0) / 2.0) } else { 0.0 };
        let q = a * b / n as f64 * (2.0 * across / (a * b) - within(left, a) - within(right, b));
        if best.is_none_or(|(_, bq)| q > bq) {
            best = Some((tau, q));
        }
    }
    best
}

#[cfg(test)]
#[path = "changepoint_tests.rs"]
mod tests;
