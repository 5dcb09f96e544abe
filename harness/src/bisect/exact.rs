//! `Exact`: the counters search (`--counters`). Instruction counts barely vary between processes,
//! so each commit is measured once (a few processes) and compared with the ends: it is bad when
//! its value moved more than half way from good towards bad. A plain binary search: about
//! `log2(n)` builds, with `git bisect skip` semantics for commits that cannot be measured (the
//! nearest measurable commit to the middle is taken instead).
//!
//! How sure: each verdict is right with probability `T_df(|v - midpoint| / se)` (Student t over
//! the processes' spread, 1 when every process counted the same), and the named commit is right
//! when every verdict was, so the confidence is their product.

use super::noisy::{EndsCheck, Measured, centre, skipped_step};
use super::posterior::Class;
use crate::errors::Error;
use crate::model::{BisectStep, RangeChange, StepVerdict};
use crate::stats::dist::t_two_sided_p;

/// Where the counters come from: the real processes or a test's numbers.
pub(crate) trait CounterSource {
    /// `processes` values of the metric at commit `c`, one per process.
    fn values(&mut self, c: usize, processes: usize) -> Result<Measured<Vec<f64>>, Error>;
}

/// Mean, its standard error and df of one commit's values.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Level {
    mean: f64,
    se: f64,
    df: f64,
}

fn level(v: &[f64]) -> Level {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    Level {
        mean,
        se: (var / n).sqrt(),
        df: (n - 1.0).max(1.0),
    }
}

/// The binary search's state over commits `0..=last`.
pub(crate) struct Exact {
    processes: usize,
    floor: f64,
    good: Option<Level>,
    bad: Option<Level>,
    /// Highest commit known good, lowest known bad.
    lo: usize,
    hi: usize,
    skipped: Vec<bool>,
    confidence: f64,
}

impl Exact {
    /// A search over commits `0..=last`, `processes` per commit, `floor` the smallest change.
    pub fn new(last: usize, processes: usize, floor: f64) -> Exact {
        Exact {
            processes,
            floor,
            good: None,
            bad: None,
            lo: 0,
            hi: last,
            skipped: vec![false; last + 1],
            confidence: 1.0,
        }
    }

    fn measure_end(&mut self, src: &mut dyn CounterSource, c: usize, flag: &'static str) -> Result<Level, Error> {
        match src.values(c, self.processes)? {
            Measured::Done(v) if !v.is_empty() => Ok(level(&v)),
            Measured::Done(_) => Err(end_error(flag, "no process reported the metric")),
            Measured::Skipped(why) => Err(end_error(flag, &why)),
        }
    }

    /// Measure both ends; the change must exceed the floor and the processes' spread.
    pub fn check_ends(&mut self, src: &mut dyn CounterSource) -> Result<EndsCheck, Error> {
        let g = self.measure_end(src, 0, "--good")?;
        let b = self.measure_end(src, self.hi, "--bad")?;
        self.good = Some(g);
        self.bad = Some(b);
        let ratio = if g.mean == 0.0 { f64::INFINITY } else { b.mean / g.mean };
        let noise = g.se.hypot(b.se);
        let change = RangeChange {
            ratio,
            low: ratio,
            high: ratio,
            noise_floor: self.floor,
        };
        let diff = (b.mean - g.mean).abs();
        if diff <= self.floor * g.mean.abs() || diff <= 4.0 * noise {
            let why = format!(
                "no commit moved it: bad/good = {ratio:.5} ({} against {}), within the +-{:.2}% floor or 4 standard errors \
                 of the processes' spread",
                b.mean,
                g.mean,
                self.floor * 100.0
            );
            return Ok(EndsCheck::NotMoved(change, why));
        }
        Ok(EndsCheck::Changed(change))
    }

    /// The measurable commit nearest the middle of the open interval `(lo, hi)`.
    fn next(&self) -> Option<usize> {
        let mid = (self.lo + self.hi) as f64 / 2.0;
        ((self.lo + 1)..self.hi)
            .filter(|&c| !self.skipped[c])
            .min_by(|&a, &b| (a as f64 - mid).abs().total_cmp(&(b as f64 - mid).abs()))
    }

    /// One step, or `None` when the interval holds no measurable commit.
    pub fn step(&mut self, src: &mut dyn CounterSource) -> Result<Option<BisectStep>, Error> {
        let (Some(g), Some(b)) = (self.good, self.bad) else {
            return Ok(None);
        };
        let Some(c) = self.next() else { return Ok(None) };
        let values = match src.values(c, self.processes)? {
            Measured::Done(v) if !v.is_empty() => v,
            Measured::Done(_) => {
                self.skipped[c] = true;
                return Ok(Some(skipped_step(c, "no process reported the metric".into())));
            }
            Measured::Skipped(why) => {
                self.skipped[c] = true;
                return Ok(Some(skipped_step(c, why)));
            }
        };
        let v = level(&values);
        let moved = (v.mean - g.mean) / (b.mean - g.mean);
        let bad = moved > 0.5;
        let se = v.se.hypot(g.se.hypot(b.se) / 2.0);
        let z = (v.mean - (g.mean + b.mean) / 2.0).abs();
        let p = if se == 0.0 { 1.0 } else { 1.0 - t_two_sided_p(z / se, v.df) / 2.0 };
        self.confidence *= p;
        if bad {
            self.hi = c
        } else {
            self.lo = c
        }
        let (value, interval) = centre(&values);
        let note = (!(-0.25..=1.25).contains(&moved))
            .then(|| format!("moved {moved:.2} of the way from good to bad: beyond the ends, so more than one commit changed it"));
        Ok(Some(BisectStep {
            commit: String::new(),
            index: c,
            value,
            interval,
            verdict: if bad { StepVerdict::Bad } else { StepVerdict::Good },
            ratio_to_good: (g.mean != 0.0).then(|| v.mean / g.mean),
            ratio_interval: None,
            moved: Some(moved),
            verdict_probability: Some(p),
            processes: values.len(),
            note,
        }))
    }

    /// The answer so far: the commits between the last good and the first bad one (one commit
    /// unless skipped ones lie between), with the chance every verdict was right.
    pub fn best(&self) -> Class {
        Class {
            first: self.lo + 1,
            last: self.hi,
            probability: self.confidence,
        }
    }
}

fn end_error(flag: &'static str, why: &str) -> Error {
    Error::InvalidFlag {
        flag,
        value: String::new(),
        reason: format!("the scenario cannot be measured at this end: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1000 instructions before commit `first_bad`, 1100 from it on; `skip` unmeasurable.
    struct Counts {
        first_bad: usize,
        skip: Vec<usize>,
        asked: Vec<usize>,
        wobble: f64,
    }

    impl CounterSource for Counts {
        fn values(&mut self, c: usize, processes: usize) -> Result<Measured<Vec<f64>>, Error> {
            self.asked.push(c);
            if self.skip.contains(&c) {
                return Ok(Measured::Skipped("does not build".into()));
            }
            let base = if c >= self.first_bad { 1100.0 } else { 1000.0 };
            Ok(Measured::Done((0..processes).map(|i| base + self.wobble * i as f64).collect()))
        }
    }

    fn run(src: &mut Counts, last: usize) -> (Exact, Vec<BisectStep>) {
        let mut s = Exact::new(last, 3, 0.005);
        assert!(matches!(s.check_ends(src).unwrap(), EndsCheck::Changed(_)));
        let mut steps = Vec::new();
        while let Some(st) = s.step(src).unwrap() {
            steps.push(st);
        }
        (s, steps)
    }

    #[test]
    fn binary_search_names_the_commit_in_log2_steps_with_certainty_when_counts_are_exact() {
        for first_bad in 1..=8 {
            let mut src = Counts {
                first_bad,
                skip: vec![],
                asked: vec![],
                wobble: 0.0,
            };
            let (s, steps) = run(&mut src, 8);
            let best = s.best();
            assert_eq!((best.first, best.last, best.probability), (first_bad, first_bad, 1.0));
            assert_eq!(steps.len(), 3, "log2(8) builds for first bad {first_bad}: {:?}", src.asked);
            assert_eq!(&src.asked[..2], [0, 8], "the ends first");
        }
    }

    #[test]
    fn skipped_commits_are_stepped_around_and_spread_lowers_the_confidence() {
        let mut src = Counts {
            first_bad: 5,
            skip: vec![6],
            asked: vec![],
            wobble: 2.0,
        };
        let (s, steps) = run(&mut src, 8);
        assert!(
            steps.iter().any(|s| s.verdict == StepVerdict::Skipped && s.index == 6),
            "{:?}",
            src.asked
        );
        assert_eq!((s.best().first, s.best().last), (5, 5), "{:?}", src.asked);
        assert!(
            s.best().probability < 1.0 && s.best().probability > 0.99,
            "{}",
            s.best().probability
        );

        // 4 cannot be built, so the first bad is 4 or 5: git bisect's "could be any of".
        src.skip = vec![4];
        src.asked.clear();
        let (s, _) = run(&mut src, 8);
        assert_eq!((s.best().first, s.best().last), (4, 5), "{:?}", src.asked);
        let mut src = Counts {
            first_bad: 1,
            skip: vec![],
            asked: vec![],
            wobble: 0.0,
        };
        let mut s = Exact::new(8, 3, 0.2);
        assert!(
            matches!(s.check_ends(&mut src).unwrap(), EndsCheck::NotMoved(..)),
            "10% is inside a 20% floor"
        );
    }
}
