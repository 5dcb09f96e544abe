//! Seeded generators and coverage bookkeeping shared by the simulation tests.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A reproducible generator for one simulation.
pub(crate) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// One standard normal draw by Box-Muller (rand_distr is not a dependency).
pub(crate) fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1], so ln is finite
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// `n` draws of `exp(mu + sigma Z)`, each multiplied by `factor` with probability `p_contam`.
pub(crate) fn contaminated_lognormal(rng: &mut ChaCha8Rng, n: usize, mu: f64, sigma: f64, p_contam: f64, factor: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let x = (mu + sigma * normal(rng)).exp();
            if rng.random::<f64>() < p_contam { x * factor } else { x }
        })
        .collect()
}

/// Lower end of a one-sided 99.9% band for an observed proportion when the true rate is `p`:
/// `p - 3.1 * sqrt(p (1 - p) / trials)` (3.09 is the normal 0.999 quantile): the Monte-Carlo
/// slack on "rate >= p" claims, so a correct method fails about once in 1000 seeds.
pub(crate) fn mc_lower(p: f64, trials: usize) -> f64 {
    p - 3.1 * (p * (1.0 - p) / trials as f64).sqrt()
}
