//! `Partition`: shard K of N of a seeded plan, and the plan's fingerprint that shards share.
//!
//! Shard K takes the jobs at positions K-1, K-1+N, K-1+2N, ... of the seeded order: every job
//! lands in exactly one shard, the shards' union is the whole plan, and each shard keeps the
//! plan's interleaving of scenarios (round-robin over a shuffled order, not blocks of it).

use std::fmt;
use std::str::FromStr;

use super::Job;

/// Shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// Which shard, 1..=count.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl FromStr for Partition {
    type Err = String;

    /// `K/N` with 1 <= K <= N (nextest also accepts `hash:K/N` and `count:K/N`; both mean this).
    fn from_str(s: &str) -> Result<Self, String> {
        let body = s.strip_prefix("count:").or_else(|| s.strip_prefix("hash:")).unwrap_or(s);
        let (k, n) = body.split_once('/').ok_or_else(|| "expected K/N, e.g. 2/3".to_owned())?;
        let index: usize = k.trim().parse().map_err(|_| format!("shard {k:?} is not a whole number"))?;
        let count: usize = n.trim().parse().map_err(|_| format!("count {n:?} is not a whole number"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("need 1 <= K <= N, got {index}/{count}"));
        }
        Ok(Partition { index, count })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Partition {
    /// This shard's items, in their order.
    pub fn select<T>(&self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % self.count == self.index - 1)
            .map(|(_, t)| t)
            .collect()
    }
}

/// A fingerprint of the whole (unsharded) plan: seed, iterations, warm-up and every job in its
/// seeded order. Shards of one plan share it; `merge` refuses shards that differ.
pub(crate) fn fingerprint(seed: u64, iterations: usize, warmup: usize, jobs: &[Job]) -> String {
    // FNV-1a, 64 bits: stable across platforms and releases, unlike std's DefaultHasher.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes.iter().chain(&[0xff]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(format!("{seed}/{iterations}/{warmup}").as_bytes());
    for j in jobs {
        eat(j.scenario.as_bytes());
        // Counted jobs are marked; an uncounted job hashes as it did before counters existed.
        let counted = match (j.counted, j.allocs) {
            (true, _) => "/counted",
            (_, true) => "/allocs",
            _ => "",
        };
        eat(format!("{}/{:?}{counted}", j.repetition, j.env).as_bytes());
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_and_cover_everything() {
        let items: Vec<u32> = (0..17).collect();
        let mut all: Vec<u32> = (1..=3)
            .flat_map(|k| Partition { index: k, count: 3 }.select(items.clone()))
            .collect();
        all.sort_unstable();
        assert_eq!(all, items);
        assert_eq!(Partition { index: 2, count: 3 }.select(items.clone()), vec![1, 4, 7, 10, 13, 16]);
    }

    #[test]
    fn parses_k_of_n_and_names_what_is_wrong() {
        assert_eq!("2/3".parse::<Partition>().unwrap(), Partition { index: 2, count: 3 });
        assert_eq!("hash:1/4".parse::<Partition>().unwrap().to_string(), "1/4");
        assert!("0/3".parse::<Partition>().unwrap_err().contains("1 <= K <= N"));
        assert!("4/3".parse::<Partition>().is_err());
        assert!("2".parse::<Partition>().unwrap_err().contains("K/N"));
        assert!("a/3".parse::<Partition>().is_err());
    }
}
