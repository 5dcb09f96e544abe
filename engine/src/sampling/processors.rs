//! The [`LogitsProcessor`] trait, its processors ([`Temperature`], [`RepetitionPenalty`], [`TopK`], [`TopP`],
//! [`MinP`]) and the [`Chain`] that applies several per step.

use super::select::{key, top_k_indices};
use crate::errors::SamplingError;

/// Rewrites a logits vector in place before sampling; filtered tokens become `f32::NEG_INFINITY`.
pub trait LogitsProcessor: Send + Sync {
    /// Applies the processor. `history` holds the token ids generated (or prompted) so far.
    fn process(&self, logits: &mut [f32], history: &[u32]);
}

fn check(name: &'static str, value: f64, ok: bool, accepted: &'static str) -> Result<(), SamplingError> {
    if ok && value.is_finite() {
        Ok(())
    } else {
        Err(SamplingError::InvalidParameter { name, value, accepted })
    }
}

/// Divides every logit by `t`: below 1 sharpens the distribution, above 1 flattens it.
#[derive(Debug, Clone, Copy)]
pub struct Temperature(f32);

impl Temperature {
    /// `t` must be finite and positive (use greedy sampling for the `t -> 0` limit).
    pub fn new(t: f32) -> Result<Self, SamplingError> {
        check("temperature", t.into(), t > 0.0, "a finite temperature > 0")?;
        Ok(Temperature(t))
    }
}

impl LogitsProcessor for Temperature {
    fn process(&self, logits: &mut [f32], _history: &[u32]) {
        let inv = 1.0 / self.0;
        logits.iter_mut().for_each(|l| *l *= inv);
    }
}

/// Discourages tokens already in the history (CTRL, Keskar et al. 2019): a seen token's positive logit is
/// divided by the penalty, a negative one multiplied, once per distinct token however often it was seen.
#[derive(Debug, Clone, Copy)]
pub struct RepetitionPenalty(f32);

impl RepetitionPenalty {
    /// `penalty` must be finite and positive; 1 is a no-op, above 1 penalizes.
    pub fn new(penalty: f32) -> Result<Self, SamplingError> {
        check("repetition_penalty", penalty.into(), penalty > 0.0, "a finite penalty > 0")?;
        Ok(RepetitionPenalty(penalty))
    }
}

impl LogitsProcessor for RepetitionPenalty {
    fn process(&self, logits: &mut [f32], history: &[u32]) {
        let mut seen: Vec<u32> = history.to_vec();
        seen.sort_unstable();
        seen.dedup();
        for &t in &seen {
            if let Some(l) = logits.get_mut(t as usize) {
                *l = if *l > 0.0 { *l / self.0 } else { *l * self.0 };
            }
        }
    }
}

/// Keeps the `k` largest logits (ties towards the lower token id).
#[derive(Debug, Clone, Copy)]
pub struct TopK(usize);

impl TopK {
    /// `k` must be at least 1.
    pub fn new(k: usize) -> Result<Self, SamplingError> {
        check("top_k", k as f64, k >= 1, "k >= 1")?;
        Ok(TopK(k))
    }
}

impl LogitsProcessor for TopK {
    fn process(&self, logits: &mut [f32], _history: &[u32]) {
        if self.0 >= logits.len() {
            return;
        }
        let kept: Vec<(u32, f32)> = top_k_indices(logits, self.0).into_iter().map(|i| (i, logits[i as usize])).collect();
        logits.fill(f32::NEG_INFINITY);
        for (i, l) in kept {
            logits[i as usize] = l;
        }
    }
}

/// Softmax probabilities in f64 (NaN and `-inf` get 0); all zeros when nothing is finite.
pub(crate) fn probabilities(logits: &[f32]) -> Vec<f64> {
    let max = logits.iter().map(|&l| key(l)).fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        return vec![0.0; logits.len()];
    }
    let mut p: Vec<f64> = logits.iter().map(|&l| ((key(l) - max) as f64).exp()).collect();
    let total: f64 = p.iter().sum();
    p.iter_mut().for_each(|x| *x /= total);
    p
}

/// Nucleus sampling (Holtzman et al. 2019): keeps the smallest set of most probable tokens whose mass is
/// at least `p`.
#[derive(Debug, Clone, Copy)]
pub struct TopP(f64);

impl TopP {
    /// `p` must be in (0, 1]; 1 keeps everything.
    pub fn new(p: f64) -> Result<Self, SamplingError> {
        check("top_p", p, p > 0.0 && p <= 1.0, "0 < top_p <= 1")?;
        Ok(TopP(p))
    }
}

impl LogitsProcessor for TopP {
    fn process(&self, logits: &mut [f32], _history: &[u32]) {
        let probs = probabilities(logits);
        // Only candidates need sorting; after a top-k in the chain that is k entries, not V.
        let mut order: Vec<u32> = (0..logits.len() as u32).filter(|&i| probs[i as usize] > 0.0).collect();
        order.sort_unstable_by(|&a, &b| probs[b as usize].total_cmp(&probs[a as usize]).then(a.cmp(&b)));
        let mut mass = 0.0;
        let keep = order
            .iter()
            .position(|&i| {
                mass += probs[i as usize];
                mass >= self.0
            })
            .map_or(order.len(), |last| last + 1);
        for &i in &order[keep..] {
            logits[i as usize] = f32::NEG_INFINITY;
        }
    }
}

/// Min-p (Nguyen et al. 2024): keeps tokens whose probability is at least `min_p` times the most
/// probable token's.
#[derive(Debug, Clone, Copy)]
pub struct MinP(f64);

impl MinP {
    /// `min_p` must be in [0, 1]; 0 keeps everything, 1 keeps only the maximum (and its ties).
    pub fn new(min_p: f64) -> Result<Self, SamplingError> {
        check("min_p", min_p, (0.0..=1.0).contains(&min_p), "0 <= min_p <= 1")?;
        Ok(MinP(min_p))
    }
}

impl LogitsProcessor for MinP {
    fn process(&self, logits: &mut [f32], _history: &[u32]) {
        let max = logits.iter().map(|&l| key(l)).fold(f32::NEG_INFINITY, f32::max);
        if max == f32::NEG_INFINITY {
            return;
        }
        // p_i >= min_p * p_max  <=>  l_i - l_max >= ln(min_p): no softmax, no exp per token.
        let floor = self.0.ln();
        for l in logits.iter_mut() {
            if l.is_nan() || (((*l - max) as f64) < floor) {
                *l = f32::NEG_INFINITY;
            }
        }
    }
}

/// Several processors applied in order each step, e.g. repetition penalty, temperature, top-k, top-p.
#[derive(Default)]
pub struct Chain {
    processors: Vec<Box<dyn LogitsProcessor>>,
}

impl Chain {
    /// An empty chain (a no-op).
    pub fn new() -> Self {
        Chain::default()
    }

    /// Appends a processor; it runs after those already in the chain.
    pub fn with(mut self, processor: impl LogitsProcessor + 'static) -> Self {
        self.processors.push(Box::new(processor));
        self
    }

    /// Number of processors.
    pub fn len(&self) -> usize {
        self.processors.len()
    }

    /// Whether the chain has no processor.
    pub fn is_empty(&self) -> bool {
        self.processors.is_empty()
    }
}

impl LogitsProcessor for Chain {
    fn process(&self, logits: &mut [f32], history: &[u32]) {
        for p in &self.processors {
            p.process(logits, history);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::select::top_k_indices_full_sort;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const NEG: f32 = f32::NEG_INFINITY;

    fn kept(logits: &[f32]) -> Vec<usize> {
        (0..logits.len()).filter(|&i| logits[i] != NEG).collect()
    }

    fn from_probs(p: &[f64]) -> Vec<f32> {
        p.iter().map(|x| x.ln() as f32).collect()
    }

    fn random_logits(vocab: usize, seed: u64) -> Vec<f32> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..vocab).map(|_| rng.random_range(-8.0..8.0)).collect()
    }

    #[test]
    fn temperature_divides_and_rejects_non_positive() {
        let mut l = vec![2.0, -1.0, 0.5];
        Temperature::new(0.5).unwrap().process(&mut l, &[]);
        assert_eq!(l, [4.0, -2.0, 1.0]);
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert!(matches!(
                Temperature::new(bad),
                Err(SamplingError::InvalidParameter { name: "temperature", .. })
            ));
        }
    }

    #[test]
    fn repetition_penalty_divides_positive_multiplies_negative_once_per_token() {
        let mut l = vec![2.0, -2.0, 1.0, 0.0, 3.0];
        RepetitionPenalty::new(2.0).unwrap().process(&mut l, &[0, 1, 1, 1, 3, 99]);
        assert_eq!(l, [1.0, -4.0, 1.0, 0.0, 3.0]);
    }

    #[test]
    fn top_k_keeps_the_full_sort_reference_set_with_values() {
        let logits = random_logits(32_000, 1);
        for k in [1, 50, 31_999] {
            let mut l = logits.clone();
            TopK::new(k).unwrap().process(&mut l, &[]);
            let mut want: Vec<usize> = top_k_indices_full_sort(&logits, k).into_iter().map(|i| i as usize).collect();
            want.sort_unstable();
            assert_eq!(kept(&l), want);
            assert!(want.iter().all(|&i| l[i] == logits[i]), "kept values unchanged");
        }
        assert!(TopK::new(0).is_err());
    }

    #[test]
    fn top_p_keeps_smallest_prefix_reaching_p() {
        let l = from_probs(&[0.05, 0.5, 0.15, 0.3]);
        for (p, want) in [(0.4, vec![1]), (0.7, vec![1, 3]), (0.9, vec![1, 2, 3]), (1.0, vec![0, 1, 2, 3])] {
            let mut x = l.clone();
            TopP::new(p).unwrap().process(&mut x, &[]);
            assert_eq!(kept(&x), want, "p = {p}");
        }
        assert!(TopP::new(0.0).is_err() && TopP::new(1.5).is_err());
    }

    #[test]
    fn top_p_property_on_random_logits() {
        let logits = random_logits(50_000, 2);
        let probs = probabilities(&logits);
        for p in [0.1, 0.5, 0.9, 0.99] {
            let mut x = logits.clone();
            TopP::new(p).unwrap().process(&mut x, &[]);
            let k = kept(&x);
            let mass: f64 = k.iter().map(|&i| probs[i]).sum();
            let smallest = k.iter().map(|&i| probs[i]).fold(f64::INFINITY, f64::min);
            assert!(
                mass >= p && mass - smallest < p,
                "p {p}: mass {mass}, without smallest {}",
                mass - smallest
            );
            // The kept set is a prefix by probability: nothing dropped beats anything kept.
            let dropped_max = (0..x.len()).filter(|i| x[*i] == NEG).map(|i| probs[i]).fold(0.0, f64::max);
            assert!(dropped_max <= smallest);
        }
    }

    #[test]
    fn min_p_keeps_tokens_at_least_min_p_of_max() {
        let l = from_probs(&[0.05, 0.5, 0.15, 0.3]);
        for (min_p, want) in [(0.0, vec![0, 1, 2, 3]), (0.25, vec![1, 2, 3]), (0.5, vec![1, 3]), (1.0, vec![1])] {
            let mut x = l.clone();
            MinP::new(min_p).unwrap().process(&mut x, &[]);
            assert_eq!(kept(&x), want, "min_p = {min_p}");
        }
        assert!(MinP::new(-0.1).is_err() && MinP::new(1.1).is_err());
    }

    #[test]
    fn chain_applies_in_order() {
        let logits = random_logits(32_000, 3);
        let history = [5, 17, 17, 31_000];
        let chain = Chain::new()
            .with(RepetitionPenalty::new(1.3).unwrap())
            .with(Temperature::new(0.7).unwrap())
            .with(TopK::new(100).unwrap())
            .with(TopP::new(0.9).unwrap())
            .with(MinP::new(0.05).unwrap());
        assert_eq!(chain.len(), 5);
        let mut by_chain = logits.clone();
        chain.process(&mut by_chain, &history);
        let mut by_hand = logits;
        RepetitionPenalty::new(1.3).unwrap().process(&mut by_hand, &history);
        Temperature::new(0.7).unwrap().process(&mut by_hand, &history);
        TopK::new(100).unwrap().process(&mut by_hand, &history);
        TopP::new(0.9).unwrap().process(&mut by_hand, &history);
        MinP::new(0.05).unwrap().process(&mut by_hand, &history);
        assert_eq!(by_chain, by_hand);
        assert!(!kept(&by_chain).is_empty() && kept(&by_chain).len() <= 100);
    }
}
