//! `PairCoverage`: which ordered pairs (a ran before b in one process) the observed processes
//! have shown, so shuffles are topped up until every ordered pair was seen.
//!
//! Memory grows with the executions, not with the pairs: each scenario keeps the (process,
//! position) of its observations, and a pair is looked up by merging two such lists. The unseen
//! pairs are listed only once they are few ([`LIST_PER_SCENARIO`] per scenario on average, which
//! a sample of [`SAMPLE`] scenarios estimates first); until then a top-up shuffles everything.

use std::collections::HashMap;

/// Scenarios sampled to estimate how many pairs are unseen before listing them.
const SAMPLE: usize = 256;
/// Unseen pairs are listed (and top-ups shuffle only the scenarios in them) once there are at
/// most this many per scenario.
const LIST_PER_SCENARIO: usize = 8;
/// Up to this many scenarios, unseen pairs are listed without sampling first.
const EXACT_UP_TO: usize = 2048;

/// What is left to see.
#[derive(Debug, Clone, PartialEq)]
pub enum Missing {
    /// Every ordered pair was seen.
    Nothing,
    /// These many pairs are unseen; `involved` are the scenarios in them, in listing order.
    Pairs {
        /// Unseen pairs.
        count: usize,
        /// Scenarios in at least one unseen pair.
        involved: Vec<String>,
    },
    /// About this many pairs are unseen (estimated from a sample): too many to list.
    Many {
        /// The estimate.
        estimate: usize,
    },
}

/// Ordered pairs shown so far among a fixed set of scenarios.
#[derive(Debug, Clone)]
pub struct PairCoverage {
    ids: HashMap<String, u32>,
    names: Vec<String>,
    /// Per scenario, the (process, position) of each observation; processes ascending.
    occ: Vec<Vec<(u32, u32)>>,
    /// Each observed process's executed order.
    orders: Vec<Box<[u32]>>,
    /// Left out of shared runs (a hang): no pair with them is asked for.
    out: Vec<bool>,
    /// They end every process they run in: no pair starting with them is asked for.
    enders: Vec<bool>,
    /// Every unseen pair, once few enough; and how many processes it reflects.
    listed: Option<(Vec<(u32, u32)>, usize)>,
}

impl PairCoverage {
    /// No pair seen yet among `names`.
    pub fn new(names: &[String]) -> Self {
        let n = names.len();
        PairCoverage {
            ids: names.iter().enumerate().map(|(i, s)| (s.clone(), i as u32)).collect(),
            names: names.to_vec(),
            occ: vec![Vec::new(); n],
            orders: Vec::new(),
            out: vec![false; n],
            enders: vec![false; n],
            listed: None,
        }
    }

    /// Record one process's executed order.
    pub fn add(&mut self, executed: &[String]) {
        let p = self.orders.len() as u32;
        let order: Box<[u32]> = executed.iter().filter_map(|n| self.ids.get(n).copied()).collect();
        for (pos, &id) in order.iter().enumerate() {
            self.occ[id as usize].push((p, pos as u32));
        }
        self.orders.push(order);
    }

    /// Ask no pair with `name` (it hangs, and is left out of shared runs).
    pub fn leave_out(&mut self, name: &str) {
        if let Some(&id) = self.ids.get(name) {
            self.out[id as usize] = true;
            if let Some((pairs, _)) = &mut self.listed {
                pairs.retain(|&(a, b)| a != id && b != id);
            }
        }
    }

    /// Pairs that start with one of `names` count as seen (those scenarios end their process).
    pub fn exclude_first(&mut self, names: &[String]) {
        for n in names {
            if let Some(&id) = self.ids.get(n) {
                self.enders[id as usize] = true;
                if let Some((pairs, _)) = &mut self.listed {
                    pairs.retain(|&(a, _)| a != id);
                }
            }
        }
    }

    /// Whether `a` ran before `b` in some process (from `since` on).
    fn seen_since(&self, a: u32, b: u32, since: u32) -> bool {
        let (oa, ob) = (&self.occ[a as usize], &self.occ[b as usize]);
        let (mut i, mut j) = (oa.partition_point(|x| x.0 < since), ob.partition_point(|x| x.0 < since));
        while i < oa.len() && j < ob.len() {
            match oa[i].0.cmp(&ob[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    if oa[i].1 < ob[j].1 {
                        return true;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        false
    }

    fn asked(&self, a: u32, b: u32) -> bool {
        a != b && !self.out[a as usize] && !self.out[b as usize] && !self.enders[a as usize]
    }

    /// Every `a` whose pair (a, b) is asked for and unseen. `mark` is scratch space of one flag
    /// per scenario, all false on entry and on return.
    fn unseen_before(&self, b: u32, mark: &mut [bool], out: &mut Vec<u32>) {
        if self.out[b as usize] {
            return;
        }
        // The scenarios before b in its longest prefix are seen; only the rest need a lookup.
        let best = self.occ[b as usize].iter().max_by_key(|x| x.1).copied();
        let prefix: &[u32] = best.map_or(&[], |(p, pos)| &self.orders[p as usize][..pos as usize]);
        for &x in prefix {
            mark[x as usize] = true;
        }
        for a in 0..self.names.len() as u32 {
            if !mark[a as usize] && self.asked(a, b) && !self.seen_since(a, b, 0) {
                out.push(a);
            }
        }
        for &x in prefix {
            mark[x as usize] = false;
        }
    }

    /// How many scenarios never ran before `name` where they were asked to.
    pub fn unseen_count_before(&self, name: &str) -> usize {
        let Some(&b) = self.ids.get(name) else { return 0 };
        let mut mark = vec![false; self.names.len()];
        let mut out = Vec::new();
        self.unseen_before(b, &mut mark, &mut out);
        out.len()
    }

    /// What is left to see, listing the unseen pairs once they are few.
    pub fn missing(&mut self) -> Missing {
        let n = self.names.len();
        if self.listed.is_none() {
            let mut mark = vec![false; n];
            let mut scratch = Vec::new();
            if n > EXACT_UP_TO {
                let stride = n / SAMPLE;
                let sampled: Vec<u32> = (0..n).step_by(stride.max(1)).map(|b| b as u32).collect();
                for &b in &sampled {
                    self.unseen_before(b, &mut mark, &mut scratch);
                }
                let estimate = scratch.len() * n / sampled.len().max(1);
                if estimate > LIST_PER_SCENARIO * n {
                    return Missing::Many { estimate };
                }
            }
            let mut pairs = Vec::new();
            for b in 0..n as u32 {
                scratch.clear();
                self.unseen_before(b, &mut mark, &mut scratch);
                pairs.extend(scratch.iter().map(|&a| (a, b)));
            }
            self.listed = Some((pairs, self.orders.len()));
        }
        let processes = self.orders.len();
        let (mut pairs, through) = self.listed.take().expect("listed above");
        if through < processes {
            pairs.retain(|&(a, b)| !self.seen_since(a, b, through as u32));
        }
        let result = if pairs.is_empty() {
            Missing::Nothing
        } else {
            let mut involved = vec![false; n];
            for &(a, b) in &pairs {
                involved[a as usize] = true;
                involved[b as usize] = true;
            }
            Missing::Pairs {
                count: pairs.len(),
                involved: (0..n).filter(|&i| involved[i]).map(|i| self.names[i].clone()).collect(),
            }
        };
        self.listed = Some((pairs, processes));
        result
    }

    /// The unseen pairs (a must run before b), once [`PairCoverage::missing`] listed them.
    pub fn listed_pairs(&self) -> Option<Vec<(&str, &str)>> {
        let (pairs, _) = self.listed.as_ref()?;
        Some(
            pairs
                .iter()
                .map(|&(a, b)| (self.names[a as usize].as_str(), self.names[b as usize].as_str()))
                .collect(),
        )
    }

    /// Unseen pairs, counted exactly (the tests' check of a whole schedule).
    #[cfg(test)]
    pub fn count(&self) -> usize {
        let n = self.names.len() as u32;
        (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .filter(|&(a, b)| self.asked(a, b) && !self.seen_since(a, b, 0))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::SeededOrder;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("t{i:05}")).collect()
    }

    #[test]
    fn pairs_are_seen_within_a_process_only_and_listing_follows_new_processes() {
        let n = names(4);
        let mut c = PairCoverage::new(&n);
        assert_eq!(c.count(), 12);
        // A crash split the original order: t0 t1 | t2 t3.
        c.add(&n[..2]);
        c.add(&n[2..]);
        assert_eq!(c.count(), 10);
        let mut rev = n.clone();
        rev.reverse();
        c.add(&rev);
        // Unseen: t0 before t2 or t3, t1 before t2 or t3.
        assert_eq!(c.count(), 4);
        let Missing::Pairs { count, involved } = c.missing() else {
            panic!()
        };
        assert_eq!((count, involved), (4, n.clone()));
        c.add(&[n[1].clone(), n[0].clone(), n[3].clone(), n[2].clone()]);
        assert_eq!(c.missing(), Missing::Nothing);
        // A hang is left out, an ender starts no pair.
        let mut d = PairCoverage::new(&n);
        d.add(&n);
        d.leave_out(&n[3]);
        d.exclude_first(&[n[2].clone()]);
        // Unseen and asked: (t1,t0), (t2,t0)x, (t2,t1)x -> (t1, t0) only.
        assert_eq!(d.count(), 1);
        assert_eq!(d.unseen_count_before(&n[0]), 1);
    }

    #[test]
    fn the_listed_count_matches_the_exact_one_and_a_sample_only_guards_the_listing() {
        for size in [40, 2500] {
            let n = names(size);
            let mut c = PairCoverage::new(&n);
            c.add(&n);
            let mut rng = SeededOrder::new(size as u64);
            let (mut shuffles, mut checked_many, mut checked_pairs) = (0, false, false);
            loop {
                // The exact count is quadratic: checked once per kind of answer.
                match c.missing() {
                    Missing::Nothing => break,
                    Missing::Many { estimate } if !checked_many => {
                        // The sample's estimate is within 20% of the truth here.
                        let exact = c.count();
                        assert!(estimate.abs_diff(exact) * 5 <= exact, "{estimate} vs {exact}");
                        checked_many = true;
                    }
                    Missing::Pairs { count, .. } if !checked_pairs || size < 100 => {
                        assert_eq!(count, c.count());
                        checked_pairs = true;
                    }
                    _ => {}
                }
                let mut o = n.clone();
                rng.shuffle(&mut o);
                c.add(&o);
                shuffles += 1;
            }
            // About 2 log2(n) random orders see every ordered pair.
            let bound = 2 * (usize::BITS - size.leading_zeros()) as usize + 8;
            assert!(shuffles <= bound, "{size}: {shuffles} shuffles");
            assert!(size < 100 || (checked_many && checked_pairs));
        }
    }
}
