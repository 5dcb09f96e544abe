//! [`Sampler`]: runs a [`Chain`] over the logits, then picks a token by [`greedy`] argmax or a seeded draw ([`sample`]).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::processors::{Chain, LogitsProcessor, probabilities};
use super::select::key;
use crate::errors::SamplingError;

fn check_len(logits: &[f32]) -> Result<(), SamplingError> {
    if logits.is_empty() {
        return Err(SamplingError::EmptyLogits);
    }
    Ok(())
}

/// The token with the largest logit (ties towards the lower id); an error when every logit is filtered.
pub fn greedy(logits: &[f32]) -> Result<u32, SamplingError> {
    check_len(logits)?;
    let (best, value) = logits
        .iter()
        .enumerate()
        // `>` keeps the first of equal maxima.
        .fold(
            (0, f32::NEG_INFINITY),
            |(bi, bv), (i, &l)| {
                if key(l) > bv { (i, key(l)) } else { (bi, bv) }
            },
        );
    if value == f32::NEG_INFINITY {
        return Err(SamplingError::NoFiniteLogits { len: logits.len() });
    }
    Ok(best as u32)
}

/// Draws a token from `softmax(logits)` with one uniform draw from `rng` (inverse CDF in f64).
pub fn sample(logits: &[f32], rng: &mut impl Rng) -> Result<u32, SamplingError> {
    check_len(logits)?;
    let probs = probabilities(logits);
    let last = probs
        .iter()
        .rposition(|&p| p > 0.0)
        .ok_or(SamplingError::NoFiniteLogits { len: logits.len() })?;
    let target: f64 = rng.random::<f64>();
    let mut cumulative = 0.0;
    for (i, &p) in probs.iter().enumerate() {
        cumulative += p;
        if p > 0.0 && target < cumulative {
            return Ok(i as u32);
        }
    }
    // Rounding can leave the total a hair under 1; the draw then belongs to the last candidate.
    Ok(last as u32)
}

/// Processes logits with a chain and picks the next token, greedily or from a seeded `ChaCha8Rng`.
///
/// The same seed, chain, logits and history always give the same tokens.
pub struct Sampler {
    chain: Chain,
    rng: Option<ChaCha8Rng>,
}

impl Sampler {
    /// Argmax after the chain (the chain may still matter, e.g. a repetition penalty).
    pub fn greedy(chain: Chain) -> Self {
        Sampler { chain, rng: None }
    }

    /// Random draws after the chain, from a `ChaCha8Rng` seeded with `seed`.
    pub fn seeded(chain: Chain, seed: u64) -> Self {
        Sampler {
            chain,
            rng: Some(ChaCha8Rng::seed_from_u64(seed)),
        }
    }

    /// Rewrites `logits` with the chain and returns the chosen token.
    pub fn next_token(&mut self, logits: &mut [f32], history: &[u32]) -> Result<u32, SamplingError> {
        self.chain.process(logits, history);
        match &mut self.rng {
            None => greedy(logits),
            Some(rng) => sample(logits, rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::{MinP, RepetitionPenalty, Temperature, TopK, TopP};

    fn chain() -> Chain {
        Chain::new()
            .with(RepetitionPenalty::new(1.2).unwrap())
            .with(Temperature::new(0.8).unwrap())
            .with(TopK::new(50).unwrap())
            .with(TopP::new(0.95).unwrap())
            .with(MinP::new(0.02).unwrap())
    }

    /// `steps` tokens from a vocabulary of `vocab`, the logits of each step drawn from a fixed stream.
    fn generate(seed: u64, vocab: usize, steps: usize) -> Vec<u32> {
        let mut logits_rng = ChaCha8Rng::seed_from_u64(1234);
        let mut sampler = Sampler::seeded(chain(), seed);
        let mut history = Vec::new();
        for _ in 0..steps {
            let mut logits: Vec<f32> = (0..vocab).map(|_| logits_rng.random_range(-4.0..4.0)).collect();
            let t = sampler.next_token(&mut logits, &history).unwrap();
            history.push(t);
        }
        history
    }

    #[test]
    fn same_seed_same_tokens_other_seed_other_tokens() {
        let a = generate(7, 32_000, 40);
        assert_eq!(a, generate(7, 32_000, 40));
        assert_ne!(a, generate(8, 32_000, 40));
        assert!(a.iter().all(|&t| t < 32_000));
    }

    #[test]
    fn sample_frequencies_follow_softmax() {
        let logits: Vec<f32> = [0.7f64, 0.2, 0.1].iter().map(|p| p.ln() as f32).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0usize; 3];
        let n = 20_000;
        for _ in 0..n {
            counts[sample(&logits, &mut rng).unwrap() as usize] += 1;
        }
        for (c, p) in counts.iter().zip([0.7, 0.2, 0.1]) {
            // 4.5 standard deviations of a binomial proportion at n = 20k is < 0.015.
            assert!((*c as f64 / n as f64 - p).abs() < 0.015, "{counts:?}");
        }
    }

    #[test]
    fn sample_never_picks_filtered_tokens() {
        let logits = [f32::NEG_INFINITY, 1.0, f32::NAN, 2.0, f32::NEG_INFINITY];
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..1000 {
            assert!(matches!(sample(&logits, &mut rng).unwrap(), 1 | 3));
        }
    }

    #[test]
    fn greedy_picks_max_lowest_id_on_ties() {
        assert_eq!(greedy(&[1.0, 5.0, f32::NAN, 5.0]).unwrap(), 1);
        let mut s = Sampler::greedy(Chain::new().with(RepetitionPenalty::new(10.0).unwrap()));
        // The penalty demotes the seen maximum, so greedy moves on.
        assert_eq!(s.next_token(&mut [1.0, 5.0, 4.0], &[1]).unwrap(), 2);
    }

    #[test]
    fn empty_or_fully_filtered_logits_are_errors() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        assert_eq!(greedy(&[]).unwrap_err(), SamplingError::EmptyLogits);
        let all_filtered = [f32::NEG_INFINITY, f32::NAN];
        assert_eq!(greedy(&all_filtered).unwrap_err(), SamplingError::NoFiniteLogits { len: 2 });
        assert_eq!(
            sample(&all_filtered, &mut rng).unwrap_err(),
            SamplingError::NoFiniteLogits { len: 2 }
        );
    }
}
