//! libtest's `--shuffle-seed` permutation, computed here ([`predict`]), so a localization probe
//! or a confirming pair run can pick a seed that runs the candidates before the target instead
//! of trying seeds until one does.
//!
//! libtest (`library/test/src/helpers/shuffle.rs`, checked against rustc 1.95's) sorts the
//! selected tests by name, gives each the name `AlignedTestName(name, PadNone)`, hashes the list
//! of names with `DefaultHasher` (SipHash-1-3, zero keys), and runs a Fisher-Yates shuffle whose
//! random numbers are `hash((state, names_hash))`, `state` starting at the seed. That is an
//! internal detail of libtest and may change: detect trusts a prediction only once an observed
//! shuffled run matched it and none differed ([`ShuffleTrust`]).

use std::borrow::Cow;
use std::hash::{DefaultHasher, Hash, Hasher};

/// libtest's `NamePadding`, for its hash.
#[derive(Hash)]
#[expect(dead_code, reason = "mirrors libtest's enum: the variant's index is what is hashed")]
enum Padding {
    None,
    OnRight,
}

/// libtest's `TestName`, for its derived hash (variant index, then the name).
#[derive(Hash)]
#[expect(dead_code, reason = "mirrors libtest's enum: the variant's index is what is hashed")]
enum TestName<'a> {
    Static(&'a str),
    Dyn(String),
    Aligned(Cow<'a, str>, Padding),
}

fn hash<T: Hash>(t: &T) -> u64 {
    let mut h = DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// The order a libtest binary runs `names` in under `--shuffle-seed seed`.
pub fn predict(names: &[String], seed: u64) -> Vec<String> {
    let mut order: Vec<String> = names.to_vec();
    order.sort();
    let extra = {
        let named: Vec<TestName<'_>> = order.iter().map(|n| TestName::Aligned(Cow::Borrowed(n), Padding::None)).collect();
        hash(&named.iter().collect::<Vec<_>>())
    };
    let mut state = seed;
    for i in 0..order.len() {
        state = hash(&(state, extra));
        let j = i + (state % (order.len() - i) as u64) as usize;
        order.swap(i, j);
    }
    order
}

/// Whether predictions of one binary's shuffles can be trusted: after a match and no mismatch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShuffleTrust {
    /// Shuffled runs whose order matched the prediction.
    pub matched: usize,
    /// Shuffled runs whose order did not.
    pub differed: usize,
}

impl ShuffleTrust {
    /// Compare one run of `asked` under `seed` that ran every name, in `executed` order.
    pub fn check(&mut self, asked: &[String], seed: u64, executed: &[String]) {
        if predict(asked, seed) == executed {
            self.matched += 1;
        } else {
            self.differed += 1;
        }
    }

    /// Predictions may be used.
    pub fn trusted(&self) -> bool {
        self.matched > 0 && self.differed == 0
    }
}

/// Among `tries` seeds from `start`, the one whose predicted order of `set` scores best by
/// `score` (ties: the first), with its score.
pub fn best_seed(set: &[String], start: u64, tries: usize, score: impl Fn(&[String]) -> usize) -> Option<(u64, usize)> {
    let mut best: Option<(u64, usize)> = None;
    for k in 0..tries as u64 {
        let seed = start.wrapping_add(k) % 1_000_000_000;
        let s = score(&predict(set, seed));
        if best.is_none_or(|(_, b)| s > b) {
            best = Some((seed, s));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutation_depends_on_the_seed_and_the_set_only() {
        let names: Vec<String> = ["b", "a", "d", "c", "e"].iter().map(|s| (*s).to_owned()).collect();
        let p = predict(&names, 7);
        let mut sorted = p.clone();
        sorted.sort();
        assert_eq!(sorted, ["a", "b", "c", "d", "e"]);
        let mut given_sorted = names.clone();
        given_sorted.sort();
        assert_eq!(predict(&given_sorted, 7), p, "the order names are given in does not matter");
        let distinct: std::collections::BTreeSet<Vec<String>> = (0..50).map(|s| predict(&names, s)).collect();
        assert!(distinct.len() > 20, "{}", distinct.len());
        let mut t = ShuffleTrust::default();
        assert!(!t.trusted());
        t.check(&names, 7, &p);
        assert!(t.trusted());
        t.check(&names, 8, &p);
        assert!(!t.trusted() || predict(&names, 8) == p);
    }

    #[test]
    fn a_seed_is_found_that_runs_the_candidates_before_the_target() {
        let set: Vec<String> = (0..12).map(|i| format!("t{i:02}")).collect();
        // t00 (sorting first) last: name order never does this.
        let (seed, score) = best_seed(&set, 1, 256, |o| usize::from(o.last().is_some_and(|x| x == "t00"))).unwrap();
        assert_eq!(score, 1);
        assert_eq!(predict(&set, seed).last().unwrap(), "t00");
    }
}
