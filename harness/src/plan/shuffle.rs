//! `SeededOrder`: a reproducible permutation source. The same seed gives the same order on every
//! platform and release (ChaCha8 is a fixed, portable algorithm; `StdRng` is not guaranteed to be).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Seeded shuffles; successive calls continue the same stream.
pub struct SeededOrder {
    rng: ChaCha8Rng,
}

impl SeededOrder {
    /// A stream determined by `seed` alone.
    pub fn new(seed: u64) -> Self {
        SeededOrder {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Shuffle in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        items.shuffle(&mut self.rng);
    }

    /// A derived value for per-run randomisation (e.g. environment padding).
    pub fn next_u64(&mut self) -> u64 {
        rand::RngCore::next_u64(&mut self.rng)
    }
}

/// A seed from the clock and the process id, for runs that were given none.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // SplitMix64 finaliser: spreads nearby clock readings over the whole range.
    let mut z = nanos ^ (u64::from(std::process::id()) << 32);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % 1_000_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_order_other_seed_other_order() {
        let base: Vec<u32> = (0..50).collect();
        let shuffled = |seed| {
            let mut v = base.clone();
            SeededOrder::new(seed).shuffle(&mut v);
            v
        };
        assert_eq!(shuffled(7), shuffled(7));
        assert_ne!(shuffled(7), shuffled(8));
        assert_ne!(shuffled(7), base);
    }
}
