//! Shared-run schedules: the original order, its reverse, and K seeded shuffles (topped up
//! until every ordered pair was seen: [`super::coverage`]).
//!
//! Why this suffices for one polluter: a victim fails whenever its polluter ran anywhere before
//! it in the same process (no cleaner between). The original order and its reverse together put
//! every `a` before every `b` once, so original + reverse alone expose every single-polluter
//! victim and every single state-setter. A cleaner `c` masks `p ... c ... v`; a random order
//! exposes `p ... v` without `c` between with probability 1/3, so K shuffles miss it with
//! probability (2/3)^K (K = 6: 9%; K = 12: 0.8%).

use crate::model::EvidenceKind;
use crate::plan::SeededOrder;

/// Default number of seeded shuffles on top of the original order and its reverse.
pub const DEFAULT_SHUFFLES: usize = 6;
/// Default isolated runs of each check up front (measurements get at least
/// [`MIN_ISOLATED_MEASURE`]): one run alone is what finding a brittle scenario needs; scenarios
/// that fail or shift somewhere get more afterwards.
pub const DEFAULT_ISOLATED: usize = 1;
/// Isolated runs of a measurement at least, for its isolated value distribution.
pub const MIN_ISOLATED_MEASURE: usize = 5;
/// Extra shuffles at most to cover ordered pairs a crash or libtest's order left unseen.
pub const MAX_COVERAGE_SHUFFLES: usize = 32;

/// One shared-run schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// Original, reverse or shuffle.
    pub kind: EvidenceKind,
    /// The seed of a shuffle.
    pub seed: Option<u64>,
    /// The order to ask for (a target that does not honour order gets the set and the seed).
    pub order: Vec<String>,
}

impl Schedule {
    /// `original`, `reverse` or `shuffle`.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            EvidenceKind::Order => "original",
            EvidenceKind::Reverse => "reverse",
            _ => "shuffle",
        }
    }
}

/// Draw the seed of the `i`-th shuffle from the detect seed: each shuffle is reproducible from
/// its own seed alone, which is the one reported.
pub fn shuffle_seeds(seed: u64, count: usize, skip: usize) -> Vec<u64> {
    let mut stream = SeededOrder::new(seed);
    (0..skip + count).map(|_| stream.next_u64() % 1_000_000_000).skip(skip).collect()
}

/// A shuffle of `names` by `seed` (exact-order targets); libtest targets shuffle themselves.
pub fn shuffle_schedule(names: &[String], seed: u64, honours_order: bool) -> Schedule {
    let mut order = names.to_vec();
    if honours_order {
        SeededOrder::new(seed).shuffle(&mut order);
    }
    Schedule {
        kind: EvidenceKind::Shuffle,
        seed: Some(seed),
        order,
    }
}

/// Original, reverse (only where the target honours order) and `shuffles` seeded shuffles.
pub fn plan(names: &[String], honours_order: bool, seed: u64, shuffles: usize) -> Vec<Schedule> {
    let mut out = vec![Schedule {
        kind: EvidenceKind::Order,
        seed: None,
        order: names.to_vec(),
    }];
    if honours_order {
        out.push(Schedule {
            kind: EvidenceKind::Reverse,
            seed: None,
            order: names.iter().rev().cloned().collect(),
        });
    }
    out.extend(
        shuffle_seeds(seed, shuffles, 0)
            .into_iter()
            .map(|s| shuffle_schedule(names, s, honours_order)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("t{i:02}")).collect()
    }

    #[test]
    fn original_and_reverse_cover_every_ordered_pair() {
        use crate::detect::coverage::PairCoverage;
        let n = names(20);
        let plan = plan(&n, true, 7, 0);
        let mut cov = PairCoverage::new(&n);
        for s in &plan {
            cov.add(&s.order);
        }
        assert_eq!(cov.count(), 0);
        let mut only_original = PairCoverage::new(&n);
        only_original.add(&plan[0].order);
        assert_eq!(only_original.count(), 20 * 19 / 2);
    }

    #[test]
    fn shuffles_are_reproducible_from_their_own_seed() {
        let n = names(30);
        let a = plan(&n, true, 42, 3);
        let b = plan(&n, true, 42, 3);
        assert_eq!(a, b);
        let s = &a[3];
        assert_eq!(shuffle_schedule(&n, s.seed.unwrap(), true).order, s.order);
        assert_ne!(a[2].order, a[3].order);
        // libtest targets get the set and a seed, no reverse.
        let l = plan(&n, false, 42, 3);
        assert_eq!(l.len(), 4);
        assert!(l.iter().all(|s| s.order == n));
    }
}
