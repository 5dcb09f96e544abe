//! `Noisy`: the wall-time search. The ends are compared first (interleaved good/bad pairs, compare's
//! paired estimator); then each step measures the [`Posterior`]'s median commit in interleaved
//! pairs against both ends and turns all of that commit's pairs into one verdict.
//!
//! A commit `c` gives `x`, the log change good -> c, and `y`, the log change c -> bad, each with
//! its standard error (Yuen's trimmed mean of per-pair log ratios, `compare::paired_estimate`). If `c` is
//! bad, `x ~ delta` and `y ~ 0`; if good, the reverse; `u = x - y` is `+delta` or `-delta`, so
//! the verdict is the sign of `u` against the sign of `delta`, and it is right with probability
//! `T_df(|delta| / se(u))` (Student t, df the smaller of the two). `delta` itself is pooled from
//! every estimate of it (the ends' pairs, and `x + y` of each commit) by inverse variance, and
//! taken one standard error towards zero, so an overestimated change cannot make a verdict look
//! surer than it is; and a commit measured in `m` steps is trusted at most `1 - 0.01^m`
//! (`posterior::cap`). The seeded simulation in `noisy_sim.rs` checks that a named commit is right
//! at least as often as the confidence claimed.

use super::posterior::{Class, Posterior, Verdict, cap};
use crate::compare::{Effect, Scale, paired_estimate};
use crate::errors::Error;
use crate::model::{BisectStep, RangeChange, StepVerdict};
use crate::stats::dist::t_two_sided_p;

/// Interleaved pairs: `a[i]` and `b[i]` are two processes' values that ran back to back.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Pairs {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

impl Pairs {
    fn extend(&mut self, more: &Pairs) {
        self.a.extend(&more.a);
        self.b.extend(&more.b);
    }
}

/// One commit measured against both ends: pairs (good, c) and (c, bad).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct AgainstEnds {
    pub good_c: Pairs,
    pub c_bad: Pairs,
    /// Processes run (failed ones included).
    pub processes: usize,
}

/// A measurement, or why the commit cannot be measured.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Measured<T> {
    Done(T),
    Skipped(String),
}

/// Where the wall-time search gets its pairs: the real builds and processes, or a simulation.
pub(crate) trait WallSource {
    /// `runs` interleaved pairs of good (a) and bad (b).
    fn ends(&mut self, runs: usize) -> Result<Pairs, Error>;
    /// `runs` pairs of commit `c` against each end, interleaved.
    fn against_ends(&mut self, c: usize, runs: usize) -> Result<Measured<AgainstEnds>, Error>;
}

/// How the search runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NoisySettings {
    /// Pairs per side per step (and per batch of the ends' comparison).
    pub runs: usize,
    /// Changes within +-this fraction are no change.
    pub floor: f64,
    /// Stop when one commit holds this probability.
    pub confidence: f64,
    /// Stop after this many steps.
    pub max_steps: usize,
}

/// Batches of ends' pairs before the change is called unclear.
const END_BATCHES: usize = 5;
/// The pooled change is taken this many standard errors towards zero before it sets a verdict's
/// probability (see the module docs).
const DELTA_SHRINK_SE: f64 = 1.0;

/// What the ends' comparison found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EndsCheck {
    /// The value moved beyond the noise floor: search.
    Changed(RangeChange),
    /// It did not; the sentence says how it is known.
    NotMoved(RangeChange, String),
}

/// One commit's pairs, the steps that measured them, and the two effects they give.
struct Pooled {
    pairs: AgainstEnds,
    steps: usize,
    effects: Option<(Effect, Effect)>,
}

impl Pooled {
    fn new(pairs: AgainstEnds, steps: usize) -> Pooled {
        let effects = effect(&pairs.good_c).zip(effect(&pairs.c_bad));
        Pooled { pairs, steps, effects }
    }
}

/// The search's state.
pub(crate) struct Noisy {
    settings: NoisySettings,
    post: Posterior,
    ends: Pairs,
    /// Every pair of each commit, pooled over its steps, with its two effects (good -> c and
    /// c -> bad) computed once per change.
    pooled: Vec<Option<Pooled>>,
    steps: usize,
}

fn band(e: &Effect, floor: f64) -> f64 {
    match e.scale {
        Scale::Log => floor.ln_1p(),
        Scale::Relative => floor,
    }
}

fn effect(p: &Pairs) -> Option<Effect> {
    paired_estimate(&p.a, &p.b).ok()
}

/// `P(T <= z)` for Student's t.
fn t_cdf(z: f64, df: f64) -> f64 {
    let tail = t_two_sided_p(z, df) / 2.0;
    if z >= 0.0 { 1.0 - tail } else { tail }
}

impl Noisy {
    /// A search over commits `0..=last`.
    pub fn new(last: usize, settings: NoisySettings) -> Noisy {
        Noisy {
            settings,
            post: Posterior::new(last),
            ends: Pairs::default(),
            pooled: (0..=last).map(|_| None).collect(),
            steps: 0,
        }
    }

    /// The posterior so far.
    pub fn posterior(&self) -> &Posterior {
        &self.post
    }

    /// Compare the ends: up to [`END_BATCHES`] batches of pairs until the change is beyond the
    /// floor or inside it.
    pub fn check_ends(&mut self, src: &mut dyn WallSource) -> Result<EndsCheck, Error> {
        let floor = self.settings.floor;
        let mut last = None;
        for _ in 0..END_BATCHES {
            let more = src.ends(self.settings.runs)?;
            self.ends.extend(&more);
            let Some(e) = effect(&self.ends) else { continue };
            let b = band(&e, floor);
            // Each batch is a look at the same question: Bonferroni over the looks keeps the
            // chance of calling identical ends changed (or a real change absent) at 5%.
            let ci = e.interval(1.0 - 0.05 / END_BATCHES as f64);
            let change = RangeChange {
                ratio: e.to_ratio(e.estimate),
                low: e.to_ratio(ci.low),
                high: e.to_ratio(ci.high),
                noise_floor: floor,
            };
            if ci.low > b || ci.high < -b {
                return Ok(EndsCheck::Changed(change));
            }
            if ci.low >= -b && ci.high <= b {
                let why = format!(
                    "no commit moved it: bad/good = {:.4} [{:.4}, {:.4}] over {} pairs, inside the +-{:.1}% noise floor",
                    change.ratio,
                    change.low,
                    change.high,
                    e.pairs,
                    floor * 100.0
                );
                return Ok(EndsCheck::NotMoved(change, why));
            }
            last = Some((change, e.pairs));
        }
        let (change, n) = last.ok_or_else(|| Error::Io {
            what: "comparing the ends".into(),
            source: std::io::Error::other("no complete good/bad pair: the scenario did not pass at an end"),
        })?;
        let why = format!(
            "no commit moved it clearly: bad/good = {:.4} [{:.4}, {:.4}] over {n} pairs is neither beyond nor inside the \
             +-{:.1}% noise floor (more --runs may tell)",
            change.ratio,
            change.low,
            change.high,
            floor * 100.0
        );
        Ok(EndsCheck::NotMoved(change, why))
    }

    /// The change good -> bad pooled from every estimate of it, and its standard error.
    fn delta(&self) -> Option<(f64, f64)> {
        let mut parts: Vec<(f64, f64)> = effect(&self.ends).map(|e| (e.estimate, e.se)).into_iter().collect();
        for (x, y) in self.pooled.iter().flatten().filter_map(|p| p.effects.as_ref()) {
            parts.push((x.estimate + y.estimate, x.se.hypot(y.se)));
        }
        let w = |se: f64| 1.0 / se.powi(2).max(1e-18);
        let total: f64 = parts.iter().map(|&(_, se)| w(se)).sum();
        (total > 0.0).then(|| (parts.iter().map(|&(d, se)| d * w(se)).sum::<f64>() / total, total.sqrt().recip()))
    }

    /// Commit `c`'s verdict from its pooled pairs, with `x` and its effect.
    fn verdict_of(&self, c: usize, delta: (f64, f64)) -> Option<(Verdict, Effect)> {
        let pooled = self.pooled[c].as_ref()?;
        let (x, y) = pooled.effects.clone()?;
        let u = x.estimate - y.estimate;
        let se = x.se.hypot(y.se);
        let d = (delta.0.abs() - DELTA_SHRINK_SE * delta.1).max(0.0);
        let p = if d == 0.0 || u == 0.0 {
            0.5
        } else if se == 0.0 {
            1.0
        } else {
            t_cdf(d / se, x.df.min(y.df))
        }
        .min(cap(pooled.steps));
        Some((
            Verdict {
                bad: (u > 0.0) == (delta.0 > 0.0),
                p,
            },
            x,
        ))
    }

    fn refresh(&mut self) {
        let Some(delta) = self.delta() else { return };
        for c in 0..self.pooled.len() {
            if let Some((v, _)) = self.verdict_of(c, delta) {
                self.post.set(c, v);
            }
        }
    }

    /// Whether the search is over: a class holds the asked confidence, the steps are spent, or
    /// nothing is left to measure.
    pub fn done(&self) -> bool {
        self.post.ranked()[0].probability >= self.settings.confidence
            || self.steps >= self.settings.max_steps
            || self.post.next_query().is_none()
    }

    /// The best class and the runner-up.
    pub fn best(&self) -> (Class, Option<Class>) {
        let r = self.post.ranked();
        (r[0], r.get(1).copied())
    }

    /// One step: measure the median commit against both ends. `None` when [`Noisy::done`].
    pub fn step(&mut self, src: &mut dyn WallSource) -> Result<Option<BisectStep>, Error> {
        if self.done() {
            return Ok(None);
        }
        let c = self.post.next_query().expect("done() checked it");
        self.steps += 1;
        let m = match src.against_ends(c, self.settings.runs)? {
            Measured::Skipped(why) => {
                self.post.skip(c);
                return Ok(Some(skipped_step(c, why)));
            }
            Measured::Done(m) => m,
        };
        let processes = m.processes;
        let values: Vec<f64> = m.good_c.b.iter().chain(&m.c_bad.a).copied().collect();
        self.pooled[c] = Some(match self.pooled[c].take() {
            Some(mut p) => {
                p.pairs.good_c.extend(&m.good_c);
                p.pairs.c_bad.extend(&m.c_bad);
                Pooled::new(p.pairs, p.steps + 1)
            }
            None => Pooled::new(m, 1),
        });
        self.refresh();
        Ok(Some(self.step_record(c, &values, processes)))
    }

    fn step_record(&self, c: usize, values: &[f64], processes: usize) -> BisectStep {
        let delta = self.delta();
        let judged = delta.and_then(|d| self.verdict_of(c, d));
        let (value, interval) = centre(values);
        BisectStep {
            commit: String::new(),
            index: c,
            value,
            interval,
            verdict: match judged {
                Some((v, _)) if v.bad => StepVerdict::Bad,
                _ => StepVerdict::Good,
            },
            ratio_to_good: judged.as_ref().map(|(_, x)| x.to_ratio(x.estimate)),
            ratio_interval: judged.as_ref().map(|(_, x)| [x.to_ratio(x.ci95.low), x.to_ratio(x.ci95.high)]),
            moved: match (judged.as_ref(), delta) {
                (Some((_, x)), Some((d, _))) if d != 0.0 => Some(x.estimate / d),
                _ => None,
            },
            verdict_probability: judged.map(|(v, _)| v.p),
            processes,
            note: None,
        }
    }
}

/// A step that found commit `c` unmeasurable.
pub(crate) fn skipped_step(c: usize, why: String) -> BisectStep {
    BisectStep {
        commit: String::new(),
        index: c,
        value: None,
        interval: None,
        verdict: StepVerdict::Skipped,
        ratio_to_good: None,
        ratio_interval: None,
        moved: None,
        verdict_probability: None,
        processes: 0,
        note: Some(why),
    }
}

/// The centre of per-process values and its 95% interval (geometric for positive values).
pub(crate) fn centre(values: &[f64]) -> (Option<f64>, Option<[f64; 2]>) {
    match crate::stats::summarize(values, None, true, 0.95) {
        Ok(s) => {
            let ci = s.ci.as_ref().map_or([s.center_value; 2], |c| [c.low, c.high]);
            (Some(s.center_value), Some(ci))
        }
        Err(_) => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic source: every value 100 at commits before `first_bad`, `100 * ratio`
    /// from it on, with a +-1% alternation so intervals exist; `skip` cannot be measured.
    struct Exact {
        first_bad: usize,
        ratio: f64,
        skip: Vec<usize>,
        asked: Vec<usize>,
    }

    impl Exact {
        fn level(&self, c: usize) -> f64 {
            if c >= self.first_bad { 100.0 * self.ratio } else { 100.0 }
        }
        fn pairs(&self, a: usize, b: usize, runs: usize) -> Pairs {
            let wobble = |i: usize| if i.is_multiple_of(2) { 1.01 } else { 0.99 };
            Pairs {
                a: (0..runs).map(|i| self.level(a) * wobble(i)).collect(),
                b: (0..runs).map(|i| self.level(b) * wobble(i / 2)).collect(),
            }
        }
    }

    impl WallSource for Exact {
        fn ends(&mut self, runs: usize) -> Result<Pairs, Error> {
            Ok(self.pairs(0, 8, runs))
        }
        fn against_ends(&mut self, c: usize, runs: usize) -> Result<Measured<AgainstEnds>, Error> {
            self.asked.push(c);
            if self.skip.contains(&c) {
                return Ok(Measured::Skipped("build failed".into()));
            }
            Ok(Measured::Done(AgainstEnds {
                good_c: self.pairs(0, c, runs),
                c_bad: self.pairs(c, 8, runs),
                processes: 4 * runs,
            }))
        }
    }

    fn settings() -> NoisySettings {
        NoisySettings {
            runs: 10,
            floor: 0.02,
            confidence: 0.95,
            max_steps: 20,
        }
    }

    #[test]
    fn a_clear_change_is_found_in_about_log2_steps_and_skips_are_stepped_around() {
        let mut src = Exact {
            first_bad: 5,
            ratio: 1.5,
            skip: vec![6],
            asked: vec![],
        };
        let mut s = Noisy::new(8, settings());
        let EndsCheck::Changed(ch) = s.check_ends(&mut src).unwrap() else {
            panic!("the ends differ by 1.5x")
        };
        assert!((ch.ratio - 1.5).abs() < 0.01, "{ch:?}");
        let mut steps = Vec::new();
        while let Some(st) = s.step(&mut src).unwrap() {
            steps.push(st);
        }
        let (best, runner_up) = s.best();
        assert_eq!((best.first, best.last), (5, 5), "{steps:?}");
        assert!(best.probability >= 0.95 && runner_up.unwrap().probability < 0.05);
        assert_eq!(src.asked[..2], [4, 6], "the medians");
        assert_eq!(steps[1].verdict, StepVerdict::Skipped, "6 cannot be built");
        assert!(steps.len() <= 5, "{:?}", src.asked);
        let bad = steps.iter().find(|s| s.index == 5).unwrap();
        assert_eq!(bad.verdict, StepVerdict::Bad);
        assert!(
            (bad.moved.unwrap() - 1.0).abs() < 0.05 && (bad.ratio_to_good.unwrap() - 1.5).abs() < 0.02,
            "{bad:?}"
        );

        // With 4 unbuildable, 4 and 5 cannot be told apart: the answer is the pair of them.
        src.skip = vec![4];
        let mut s = Noisy::new(8, settings());
        s.check_ends(&mut src).unwrap();
        while s.step(&mut src).unwrap().is_some() {}
        let (best, _) = s.best();
        assert_eq!((best.first, best.last), (4, 5));
        assert!(best.probability >= 0.95);
    }

    #[test]
    fn ends_inside_the_floor_mean_no_commit_moved_it() {
        let mut src = Exact {
            first_bad: 5,
            ratio: 1.0,
            skip: vec![],
            asked: vec![],
        };
        let mut s = Noisy::new(8, settings());
        match s.check_ends(&mut src).unwrap() {
            EndsCheck::NotMoved(_, why) => assert!(why.contains("no commit moved it"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(src.asked.is_empty());
    }
}
