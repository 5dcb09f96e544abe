//! Sequential, adaptive pairs: after a first batch only the scenarios still undecided get more
//! pairs, look after look, until every scenario is decided, the horizon is reached or the
//! caller's budget says stop.
//!
//! Error control under this optional stopping is an alpha-spending design (Lan & DeMets 1983)
//! with the Pocock-type spending function `alpha(t) = ALPHA ln(1 + (e - 1) t)`, `t` = pairs /
//! horizon, on a fixed geometric grid of looks (each look 1.5x the pairs of the one before). A
//! look at grid point k spends `alpha(t_k) - alpha(t_(k-1))`; a row's sequential p-value is
//! `min_k p_k ALPHA / alpha_k` (weighted Bonferroni over looks), which stays a valid p-value
//! however the looks stop, because the per-look alphas sum to ALPHA. The Pocock shape spends
//! early (an obvious regression decides at the first look), unlike O'Brien-Fleming's, which
//! spends almost nothing before the horizon: on a machine where the budget, not the horizon,
//! usually ends the comparison, alpha saved for a late look is alpha never spent.

use std::collections::BTreeMap;

use super::analyze::{AnalysisConfig, Look, MetricInput, analyze_looks};
use super::verdict::ALPHA;
use crate::model::{Better, CompareEntry, CompareVerdict};

/// Growth of the pairs from one look to the next.
const GROWTH: f64 = 1.5;
/// The least horizon: at most this many pairs for one scenario when the budget holds no more
/// (or the first batch, if larger).
pub(crate) const DEFAULT_HORIZON: usize = 60;
/// The largest horizon a long budget buys: beyond it the first looks' alpha shrinks for little.
pub(crate) const MAX_HORIZON: usize = 240;
/// A scenario whose pairs-needed estimate exceeds this multiple of the horizon gets no more pairs:
/// the budget goes to the scenarios it can decide.
const OUT_OF_REACH: usize = 3;

/// The looks of a sequential comparison: a first batch and a horizon.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Plan {
    pub first: usize,
    pub horizon: usize,
}

/// Alpha spent by information fraction `t` (Pocock-type Lan-DeMets function).
fn spend(t: f64) -> f64 {
    ALPHA * (1.0 + (std::f64::consts::E - 1.0) * t.clamp(0.0, 1.0)).ln()
}

impl Plan {
    /// One look at `pairs`: all of alpha at once (the non-sequential comparison).
    pub fn single(pairs: usize) -> Plan {
        Plan {
            first: pairs,
            horizon: pairs,
        }
    }

    /// Pairs at each look: `first`, then 1.5x each time, ending at `horizon`.
    pub fn grid(&self) -> Vec<usize> {
        let mut g = vec![self.first];
        let horizon = self.horizon.max(self.first);
        while *g.last().expect("non-empty") < horizon {
            let last = *g.last().expect("non-empty");
            g.push(((last as f64 * GROWTH).ceil() as usize).min(horizon));
        }
        g
    }

    /// Alpha that look `k` of [`Plan::grid`] may spend.
    pub fn alpha_at(&self, k: usize) -> f64 {
        let g = self.grid();
        let h = *g.last().expect("non-empty") as f64;
        let prev = if k == 0 { 0.0 } else { spend(g[k - 1] as f64 / h) };
        spend(g[k.min(g.len() - 1)] as f64 / h) - prev
    }
}

/// Where one scenario stands.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScenarioState {
    /// Index into the grid of its latest look.
    pub look: usize,
    /// Decided (every directed row regressed, improved or unchanged) or given up.
    pub done: bool,
    /// Given up: its pairs-needed estimate is far beyond the horizon.
    pub out_of_reach: bool,
    /// Stopped by the budget: it stays at its last look.
    pub stopped: bool,
}

/// The state of a whole sequential comparison between looks.
#[derive(Debug, Clone)]
pub(crate) struct Sequential {
    pub plan: Plan,
    pub config: AnalysisConfig,
    pub scenarios: BTreeMap<String, ScenarioState>,
    /// Sequential p-value of each (scenario, metric) so far.
    p_seq: BTreeMap<(String, String), f64>,
    /// The alpha of each row's latest look.
    alpha: BTreeMap<(String, String), f64>,
    /// Counting pairs are what this design adds (its rows are counter rows); otherwise
    /// wall-time pairs, and counter rows keep the looks of `counter_looks`.
    counting: bool,
    /// The counter rows' places in the counting design, which ended before the first look.
    counter_looks: BTreeMap<(String, String), Look>,
}

/// Whether a row's verdict ends the need for pairs. In the wall-time design a counter row does:
/// more wall-time pairs cannot change its counts.
fn decided(e: &CompareEntry, counting: bool) -> bool {
    e.verdict != CompareVerdict::Inconclusive
        || e.better == Better::Neither
        || e.derived_from.is_some()
        || e.ratio.is_none()
        || (e.source.is_some() && !counting)
}

impl Sequential {
    /// The wall-time design; counter rows are judged with `counter_looks` (from
    /// [`Sequential::row_looks`] of the counting design), else at the whole alpha.
    pub fn new(plan: Plan, config: AnalysisConfig) -> Self {
        Sequential {
            plan,
            config,
            scenarios: BTreeMap::new(),
            p_seq: BTreeMap::new(),
            alpha: BTreeMap::new(),
            counting: false,
            counter_looks: BTreeMap::new(),
        }
    }

    /// The counting design: looks at counting pairs, for counter rows only.
    pub fn counting(plan: Plan, config: AnalysisConfig) -> Self {
        Sequential {
            counting: true,
            ..Sequential::new(plan, config)
        }
    }

    /// Judge counter rows as the counting design left them.
    pub fn with_counter_looks(mut self, looks: BTreeMap<(String, String), Look>) -> Self {
        self.counter_looks = looks;
        self
    }

    /// Each row's place after its latest look: judged again on the same data with it, a row
    /// gets the same p-value and interval.
    pub fn row_looks(&self) -> BTreeMap<(String, String), Look> {
        self.alpha
            .iter()
            .map(|(k, &alpha)| {
                let p_prior = self.p_seq.get(k).copied().unwrap_or(1.0);
                (k.clone(), Look { alpha, p_prior })
            })
            .collect()
    }

    /// Analyse the data so far (every scenario's pairs, cumulative) as one look, update each
    /// scenario's state, and return the rows.
    pub fn look(&mut self, inputs: &[MetricInput]) -> Vec<CompareEntry> {
        let looks: Vec<Look> = inputs
            .iter()
            .map(|m| {
                let s = self.scenarios.entry(m.name.clone()).or_default();
                let key = (m.name.clone(), m.metric.clone());
                if m.source.is_some() && !self.counting {
                    // Counted before any wall-time look and never again: every look sees the
                    // same counts, judged where the counting design left them (one test at the
                    // whole alpha without one), exactly, not a peek.
                    return self.counter_looks.get(&key).copied().unwrap_or(Look::SINGLE);
                }
                Look {
                    alpha: self.plan.alpha_at(s.look),
                    p_prior: self.p_seq.get(&key).copied().unwrap_or(1.0),
                }
            })
            .collect();
        let (entries, p_seq) = analyze_looks(inputs, &self.config, &looks);
        for ((m, p), l) in inputs.iter().zip(p_seq).zip(&looks) {
            self.p_seq.insert((m.name.clone(), m.metric.clone()), p);
            self.alpha.insert((m.name.clone(), m.metric.clone()), l.alpha);
        }
        let last = self.plan.grid().len() - 1;
        for (name, s) in &mut self.scenarios {
            let rows: Vec<&CompareEntry> = entries.iter().filter(|e| &e.name == name).collect();
            let needed = rows
                .iter()
                .filter(|e| !decided(e, self.counting))
                .filter_map(|e| e.runs_needed)
                .max();
            // Judged from the second look on: ten pairs on a busy machine can misjudge the spread.
            s.out_of_reach = s.look >= 1 && needed.is_some_and(|n| n > OUT_OF_REACH * self.plan.horizon);
            s.done = s.stopped || rows.iter().all(|e| decided(e, self.counting)) || s.look >= last || s.out_of_reach;
        }
        entries
    }

    /// The pairs each undecided scenario should have at the next look (its next grid point);
    /// empty when every scenario is done. Advances the looks of those scenarios.
    pub fn next(&mut self) -> BTreeMap<String, usize> {
        let grid = self.plan.grid();
        let mut want = BTreeMap::new();
        for (name, s) in self.scenarios.iter_mut().filter(|(_, s)| !s.done) {
            s.look += 1;
            want.insert(name.clone(), grid[s.look]);
        }
        want
    }

    /// Undo [`Sequential::next`] for a scenario the budget could not afford: it stays at its
    /// last look, done.
    pub fn stop(&mut self, name: &str) {
        if let Some(s) = self.scenarios.get_mut(name) {
            s.look = s.look.saturating_sub(1);
            s.done = true;
            s.stopped = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter row of three counting pairs.
    fn counter_input(name: &str, baseline: [f64; 3], candidate: [f64; 3]) -> MetricInput {
        MetricInput {
            name: name.into(),
            metric: "instructions".into(),
            unit: crate::model::Unit::Count,
            better: Better::Lower,
            baseline: baseline.to_vec(),
            candidate: candidate.to_vec(),
            paired: true,
            mixed_pairs: 0,
            n_baseline: 3,
            n_candidate: 3,
            note: None,
            within: None,
            source: Some("valgrind-callgrind 3.19".into()),
        }
    }

    #[test]
    fn the_grid_grows_geometrically_and_spends_exactly_alpha() {
        let p = Plan { first: 10, horizon: 60 };
        assert_eq!(p.grid(), vec![10, 15, 23, 35, 53, 60]);
        let total: f64 = (0..6).map(|k| p.alpha_at(k)).sum();
        assert!((total - ALPHA).abs() < 1e-12, "{total}");
        assert!(p.alpha_at(0) > 0.01, "the first look spends a usable share: {}", p.alpha_at(0));
        assert_eq!(Plan::single(10).grid(), vec![10]);
        assert!((Plan::single(10).alpha_at(0) - ALPHA).abs() < 1e-15);
    }

    /// A scenario the budget stopped stays stopped at its last look, even when later looks
    /// (for other scenarios) still find it undecided.
    #[test]
    fn a_scenario_stopped_by_the_budget_gets_no_more_pairs() {
        use crate::model::Unit;
        let input = |name: &str, shift: f64| MetricInput {
            name: name.into(),
            metric: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            better: Better::Lower,
            baseline: (0..10).map(|i| 100.0 + (i * 7 % 10) as f64 * 3.0).collect(),
            candidate: (0..10).map(|i| (100.0 + (i * 3 % 10) as f64 * 3.0) * (1.0 + shift)).collect(),
            paired: true,
            mixed_pairs: 0,
            n_baseline: 10,
            n_candidate: 10,
            note: None,
            within: None,
            source: None,
        };
        // A far horizon, so that "b" is not given up as out of reach.
        let config = AnalysisConfig {
            floor: 0.02,
            margin: 0.05,
            ..Default::default()
        };
        let mut seq = Sequential::new(Plan { first: 10, horizon: 600 }, config);
        let inputs = [input("a", 0.04), input("b", 0.05)];
        seq.look(&inputs);
        let want = seq.next();
        assert_eq!(want.len(), 2, "both undecided at 10 pairs: {want:?}");
        seq.stop("a");
        seq.look(&inputs);
        let want = seq.next();
        assert!(!want.contains_key("a") && want.get("b") == Some(&23), "{want:?}");
        assert!(seq.scenarios["a"].stopped && seq.scenarios["a"].look == 0);
    }

    /// A counter row (counted before any look, never topped up) is judged at the whole alpha even
    /// at a look that spends a sliver of it, and never asks for more pairs: three counting pairs
    /// varying by 0.2% are unchanged within the 1% counter margin at the first look.
    #[test]
    fn a_counter_row_is_judged_at_the_whole_alpha_and_wants_no_pairs() {
        use crate::model::Unit;
        let input = counter_input("c", [1_000_000.0, 1_002_000.0, 999_000.0], [1_001_000.0, 998_500.0, 1_000_500.0]);
        let wall = MetricInput {
            source: None,
            metric: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            ..input.clone()
        };
        let mut seq = Sequential::new(Plan { first: 1, horizon: 240 }, AnalysisConfig::default());
        let rows = seq.look(std::slice::from_ref(&input));
        assert_eq!(rows[0].verdict, CompareVerdict::Unchanged, "{:?}", rows[0]);
        assert_eq!(rows[0].level, None, "judged at 95%: {:?}", rows[0].level);
        assert!(seq.next().is_empty(), "a counter row wants no wall-time pairs");
        let mut seq = Sequential::new(Plan { first: 1, horizon: 240 }, AnalysisConfig::default());
        let rows = seq.look(&[wall]);
        assert!(
            rows[0].level.is_some_and(|l| l > 0.99),
            "a wall row at the first look spends little: {:?}",
            rows[0].level
        );
    }

    /// The counting design tops up a counter row whose counts move with the process, and hands
    /// its place on: judged again in the wall-time design on the same counts, the row keeps its
    /// interval level and p-value.
    #[test]
    fn the_counting_design_tops_up_a_varying_counter_row_and_hands_its_look_on() {
        let input = counter_input("gather", [8912.0, 8975.0, 8930.0], [8942.0, 8901.0, 8990.0]);
        let plan = Plan { first: 3, horizon: 12 };
        let mut counting = Sequential::counting(plan, AnalysisConfig::default());
        let first = counting.look(std::slice::from_ref(&input)).remove(0);
        assert_eq!(first.verdict, CompareVerdict::Inconclusive, "{first:?}");
        assert_eq!(counting.next().get("gather"), Some(&5), "a varying row gets more counting pairs");
        counting.stop("gather");
        let looks = counting.row_looks();
        let key = ("gather".to_owned(), "instructions".to_owned());
        assert!((looks[&key].alpha - plan.alpha_at(0)).abs() < 1e-15, "{looks:?}");
        let mut wall = Sequential::new(Plan { first: 10, horizon: 60 }, AnalysisConfig::default()).with_counter_looks(looks);
        let again = wall.look(std::slice::from_ref(&input)).remove(0);
        assert_eq!(
            (again.level, again.p_value, again.verdict),
            (first.level, first.p_value, first.verdict)
        );
        assert!(wall.next().is_empty(), "the wall-time design asks no pairs for a counter row");
    }
}
