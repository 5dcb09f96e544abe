//! `Posterior`: the probability of each commit being the first bad one, from noisy verdicts on
//! the commits measured so far: probabilistic bisection (Horstein 1963; Waeber, Frazier &
//! Henderson 2013, "Bisection search with noisy responses", SIAM J. Control Optim. 51(3)).
//!
//! The commits are `0..=last`: 0 is good, `last` is bad, and the first bad one is some `k` in
//! `1..=last` (uniform prior). A measured commit `c` gives a verdict, bad or good, that is right
//! with probability `p_c`: "bad" is a statement about every `k <= c`. So `k`'s likelihood is
//! the product over measured commits of `p_c` where `k <= c` agrees with the verdict and
//! `1 - p_c` where it does not (the PBA update, with each commit's own `p`). Each commit enters
//! once, with the verdict of all its measurements pooled, so measuring it again sharpens its
//! factor instead of counting its evidence twice. The next commit to measure is the posterior
//! median (Horstein's rule); where the evidence is weak the median stays put, and the same
//! commit is measured again.
//!
//! Commits that cannot be measured (`git bisect skip`) cannot separate their neighbours: first
//! bad `k` and `k + 1` differ only in commit `k`'s verdict. Candidates are therefore grouped in
//! [`Class`]es that no measurable commit splits, and a class is what gets the probability.

/// The most a single step's measurements are trusted: one step never makes the search more
/// than 99:1 sure of a side, whatever its interval says, so one unlucky step (a pair hit by an
/// unmodelled disturbance) costs a few extra measurements, not the answer. A commit measured
/// in `m` steps may reach `1 - 0.01^m` ([`cap`]).
pub(crate) const P_MAX: f64 = 0.99;

/// The most a commit measured in `steps` steps is trusted: odds of at most 99:1 per step.
pub(crate) fn cap(steps: usize) -> f64 {
    1.0 - (1.0 - P_MAX).powi(steps.max(1) as i32)
}

/// One commit's verdict: bad (moved more than half way to the bad end) or good, right with
/// probability `p` (0.5: no information).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Verdict {
    pub bad: bool,
    pub p: f64,
}

/// Candidates `first..=last` for the first bad commit that no measurable commit separates (one
/// commit unless the ones before `last` were skipped), and their probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Class {
    pub first: usize,
    pub last: usize,
    pub probability: f64,
}

/// Verdicts on the commits `0..=last` and the posterior they give.
#[derive(Debug, Clone)]
pub(crate) struct Posterior {
    verdicts: Vec<Option<Verdict>>,
    skipped: Vec<bool>,
}

impl Posterior {
    /// Commits `0..=last` (`last >= 1`), nothing measured.
    pub fn new(last: usize) -> Posterior {
        Posterior {
            verdicts: vec![None; last + 1],
            skipped: vec![false; last + 1],
        }
    }

    fn last(&self) -> usize {
        self.verdicts.len() - 1
    }

    /// Set commit `c`'s verdict (replacing an earlier one: the caller pools its measurements
    /// and caps `p`, see [`cap`]); `p` is kept below 1 so no verdict is ever certain.
    pub fn set(&mut self, c: usize, v: Verdict) {
        self.verdicts[c] = Some(Verdict {
            bad: v.bad,
            p: v.p.clamp(0.5, 1.0 - 1e-9),
        });
    }

    /// Commit `c` cannot be measured.
    pub fn skip(&mut self, c: usize) {
        self.skipped[c] = true;
        self.verdicts[c] = None;
    }

    /// Probability of each commit being the first bad one (index 0, good, is always 0).
    pub fn probabilities(&self) -> Vec<f64> {
        let last = self.last();
        let mut log_w = vec![f64::NEG_INFINITY; last + 1];
        for (k, w) in log_w.iter_mut().enumerate().skip(1) {
            *w = self
                .verdicts
                .iter()
                .enumerate()
                .filter_map(|(c, v)| v.map(|v| (c, v)))
                .map(|(c, v)| if (k <= c) == v.bad { v.p.ln() } else { (1.0 - v.p).ln() })
                .sum();
        }
        let top = log_w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = log_w.iter().map(|&l| (l - top).exp()).collect();
        let total: f64 = w.iter().sum();
        w.iter().map(|x| x / total).collect()
    }

    /// The classes, in range order.
    pub fn classes(&self) -> Vec<Class> {
        let prob = self.probabilities();
        let mut out = Vec::new();
        let mut first = 1;
        for k in 1..=self.last() {
            // k and k + 1 stay together when commit k cannot be measured.
            if k == self.last() || !self.skipped[k] {
                out.push(Class {
                    first,
                    last: k,
                    probability: prob[first..=k].iter().sum(),
                });
                first = k + 1;
            }
        }
        out
    }

    /// The classes, likeliest first (ties: earlier first).
    pub fn ranked(&self) -> Vec<Class> {
        let mut c = self.classes();
        c.sort_by(|a, b| b.probability.total_cmp(&a.probability).then(a.first.cmp(&b.first)));
        c
    }

    /// The commit to measure next: the measurable commit nearest the posterior median (the
    /// smaller on a tie), or `None` when every commit between the ends was skipped.
    pub fn next_query(&self) -> Option<usize> {
        let prob = self.probabilities();
        let mut below = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for (c, p) in prob.iter().enumerate().take(self.last()).skip(1) {
            below += p;
            if self.skipped[c] {
                continue;
            }
            let d = (below - 0.5).abs();
            if best.is_none_or(|(_, b)| d < b - 1e-12) {
                best = Some((c, d));
            }
        }
        best.map(|(c, _)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sure(bad: bool) -> Verdict {
        Verdict { bad, p: P_MAX }
    }

    #[test]
    fn clean_verdicts_halve_the_range_like_git_bisect() {
        // Eight commits after good; the first bad is 5.
        let mut post = Posterior::new(8);
        let mut asked = Vec::new();
        while post.ranked()[0].probability < 0.95 {
            let c = post.next_query().unwrap();
            asked.push(c);
            post.set(c, sure(c >= 5));
        }
        assert_eq!(asked, [4, 6, 5], "medians of a uniform prior, then of what is left");
        let best = post.ranked()[0];
        assert_eq!((best.first, best.last), (5, 5));
        assert!(best.probability > 0.95 && best.probability < 0.99, "{best:?}");
    }

    #[test]
    fn a_weak_verdict_moves_little_and_the_median_stays_to_measure_again() {
        let mut post = Posterior::new(8);
        post.set(4, Verdict { bad: true, p: 0.55 });
        let p = post.probabilities();
        let below: f64 = p[1..=4].iter().sum();
        assert!((below - 0.55).abs() < 1e-12, "{below}");
        assert_eq!(post.next_query(), Some(4), "still the median: measure it again");
        post.set(4, Verdict { bad: true, p: 0.5 });
        assert!(
            post.probabilities()[1..].iter().all(|&x| (x - 0.125).abs() < 1e-12),
            "p = 0.5 says nothing"
        );
    }

    #[test]
    fn a_wrong_verdict_is_outvoted_and_no_verdict_is_certain() {
        let mut post = Posterior::new(4);
        post.set(2, Verdict { bad: true, p: 1.0 });
        assert!(post.probabilities()[3] > 0.0, "never certainty");
        assert_eq!((cap(1), cap(2)), (P_MAX, 1.0 - 1e-4));
        // The truth is 4: commit 2's "bad" (p 0.9) was wrong; 1 and 3 say good.
        post.set(2, Verdict { bad: true, p: 0.9 });
        post.set(1, sure(false));
        post.set(3, sure(false));
        let best = post.ranked()[0];
        assert_eq!(best.last, 4, "{:?}", post.ranked());
    }

    #[test]
    fn skipped_commits_join_their_successor_and_are_never_queried() {
        let mut post = Posterior::new(6);
        post.skip(3);
        post.skip(4);
        let classes = post.classes();
        let spans: Vec<(usize, usize)> = classes.iter().map(|c| (c.first, c.last)).collect();
        assert_eq!(spans, [(1, 1), (2, 2), (3, 5), (6, 6)]);
        assert!((classes[2].probability - 0.5).abs() < 1e-12);
        assert_eq!(post.next_query(), Some(2), "3 and 4 are skipped; 2 is nearest the median");
        post.set(2, sure(false));
        post.set(5, sure(true));
        let best = post.ranked()[0];
        assert_eq!((best.first, best.last), (3, 5), "the first bad is one of 3, 4, 5");
        assert!(best.probability > 0.95);
        for c in [1, 2, 5] {
            post.skip(c);
        }
        assert_eq!(post.next_query(), None, "nothing measurable left");
    }
}
