//! Deterministic inputs and the thread counts every kernel scenario is crossed with ([`thread_counts`]).

use engine::cpu::Element;

/// `{1, all cores}`: the serial kernel and the machine's full width (threads=2 on a 2-core box,
/// threads=8 on an 8-core one), so a report shows both the per-core speed and the scaling.
pub(crate) fn thread_counts() -> Vec<usize> {
    let max = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if max == 1 { vec![1] } else { vec![1, max] }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, so inputs are identical in every
/// process and on every machine without pulling a RNG crate into the suite.
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`, from the top 24 bits (exactly representable in f32).
    pub(crate) fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }

    /// Uniform in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// `len` values uniform in [-1, 1), narrowed to `T` (so a reference can widen them back exactly).
pub(crate) fn random_vec<T: Element>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = SplitMix::new(seed);
    (0..len).map(|_| T::from_f32(rng.uniform(-1.0, 1.0))).collect()
}

/// `len` indices uniform in `0..rows`.
pub(crate) fn random_indices(len: usize, rows: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix::new(seed);
    (0..len).map(|_| rng.below(rows) as u32).collect()
}

/// Logits of a vocabulary of `vocab`, uniform in [-8, 8). After softmax 90% of the mass lies in the top
/// ~15% of tokens, so top-p sorts thousands of candidates: flatter (more pessimistic) than a trained model.
pub(crate) fn logits(vocab: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix::new(seed);
    (0..vocab).map(|_| rng.uniform(-8.0, 8.0)).collect()
}

/// Widens a slice of `T` to f64 (exact for f32, f16 and bf16).
pub(crate) fn widen<T: Element>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.to_f32() as f64).collect()
}

/// Unit roundoff of `T`'s significand: the largest relative error of one rounding to `T`.
pub(crate) fn unit_roundoff<T: Element>() -> f64 {
    match T::NAME {
        "f16" => 2f64.powi(-11),
        "bf16" => 2f64.powi(-8),
        _ => 2f64.powi(-24),
    }
}
