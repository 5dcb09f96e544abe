//! `--budget`: the sequential comparison run for real. Batches of interleaved pairs go only to
//! the scenarios still undecided ([`Sequential`]), each batch trimmed to what the remaining time
//! affords at the pair cost measured so far, until every scenario is decided or the budget is
//! spent. Without a budget there is one look at `--runs` pairs.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::analyze::{AnalysisConfig, Look, MetricInput};
use super::compare::PHASE;
use super::control::{control_pairs, downgrade, judge};
use super::inputs::from_pairs;
use super::interleave::{Interleaver, ScenarioRuns, Slot, push_pair};
use super::sequential::{DEFAULT_HORIZON, MAX_HORIZON, Plan, Sequential};
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};
use crate::model::Listed;
use crate::model::{CompareEntry, CompareVerdict, NullControl, SequentialRun};

/// What the sequential run did, for compare-run.json and the Markdown.
#[derive(Debug, Clone, Default)]
pub(crate) struct BudgetReport {
    /// Looks taken (batches run).
    pub looks: usize,
    /// Pairs run, over all scenarios.
    pub pairs: usize,
    /// The most pairs of one scenario the looks could reach.
    pub horizon: usize,
    /// Wall time spent running pairs.
    pub spent: Duration,
    /// Scenarios left undecided because the budget ran out, with the pairs each would need.
    pub cut_by_budget: Vec<String>,
    /// Seconds one pair of each scenario took (both processes), as measured.
    pub pair_seconds: BTreeMap<String, f64>,
    /// The A/A null control's judgement, when one ran.
    pub null_control: Option<NullControl>,
}

/// Wall-time pairs of one scenario (its counting processes under valgrind are apart).
fn timed_pairs(sr: &ScenarioRuns) -> usize {
    let timed = |v: &[crate::model::RunRecord]| v.iter().filter(|r| r.counted_by.is_none()).count();
    timed(&sr.baseline).min(timed(&sr.candidate))
}

/// Wall-time pairs of each scenario in `runs`.
fn pair_counts(runs: &BTreeMap<String, ScenarioRuns>) -> BTreeMap<String, usize> {
    runs.iter().map(|(k, v)| (k.clone(), timed_pairs(v))).collect()
}

/// Run `slots` as one phase of the seam.
fn phase(il: &mut Interleaver<'_>, slots: &[Slot], name: &str, events: &mut dyn Reporter) -> Result<(), Error> {
    events.on_event(&RunEvent::PhaseStarted {
        name,
        planned: slots.len(),
    })?;
    il.run_batch(slots, events)?;
    events.on_event(&RunEvent::PhaseFinished { name })
}

/// How a sequential comparison runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SequentialSettings {
    /// Pairs of the first look (`--runs`).
    pub first: usize,
    /// `--budget`; without it there is one look.
    pub budget: Option<Duration>,
    /// Seed of the batch schedules.
    pub seed: u64,
    /// `--null-control` share (0: none).
    pub control_share: f64,
    /// `--resources`: judge peak RSS and CPU times too.
    pub resources: bool,
    /// When measuring began (counting pairs included): the budget counts from here, never
    /// from before a `--base-ref` build.
    pub started: Instant,
    /// Counting pairs ran before the wall-time pairs (`--counters=valgrind`).
    pub counted: bool,
}

/// The fewest pairs a first look may have: a paired interval needs 2 degrees of freedom.
const MIN_FIRST: usize = 3;
/// Share of the budget left after the pilot that the first look may take; the rest is for
/// later looks at the rows still undecided.
const FIRST_SHARE: f64 = 0.5;

/// Slots that bring each scenario from `have` to `want` pairs: round r holds the scenarios
/// still short after r extra pairs, in a fresh random order, each pair's first side a coin.
fn batch(selected: &[Listed], have: &BTreeMap<String, usize>, want: &BTreeMap<String, usize>, rng: &mut ChaCha8Rng) -> Vec<Slot> {
    let extra = |i: usize| {
        let name = &selected[i].name;
        want.get(name)
            .copied()
            .unwrap_or(0)
            .saturating_sub(have.get(name).copied().unwrap_or(0))
    };
    let rounds = (0..selected.len()).map(extra).max().unwrap_or(0);
    let mut slots = Vec::new();
    for r in 0..rounds {
        let mut order: Vec<usize> = (0..selected.len()).filter(|&i| extra(i) > r).collect();
        rand::seq::SliceRandom::shuffle(order.as_mut_slice(), rng);
        for scenario in order {
            let round = have.get(&selected[scenario].name).copied().unwrap_or(0) + r;
            push_pair(&mut slots, round, scenario, rng);
        }
    }
    slots
}

/// The sequential comparison of `selected`: first batch `first` pairs; with a budget, more
/// looks up to the horizon. `pairs` runs baseline against candidate, `control` baseline against
/// itself. Returns every run, the inputs and rows of the last look and what was done.
pub(crate) fn run_sequential(
    mut pairs: Interleaver<'_>,
    mut control: Interleaver<'_>,
    selected: &[Listed],
    s: SequentialSettings,
    config: AnalysisConfig,
    counter_looks: BTreeMap<(String, String), Look>,
    events: &mut dyn Reporter,
) -> Result<Finished, Error> {
    let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
    let start = s.started;
    let mut report = BudgetReport::default();
    let plan = match s.budget {
        Some(budget) => first_look(&mut pairs, selected, &s, budget, &mut report, &mut rng, events)?,
        None => Plan::single(s.first),
    };
    let first = plan.first;
    report.horizon = plan.horizon;
    let mut seq = Sequential::new(plan, config).with_counter_looks(counter_looks);
    let mut want: BTreeMap<String, usize> = selected.iter().map(|l| (l.name.clone(), first)).collect();
    loop {
        let slots = batch(selected, &pair_counts(pairs.runs()), &want, &mut rng);
        phase(&mut pairs, &slots, &format!("{PHASE} look {}", report.looks + 1), events)?;
        report.looks += 1;
        report.pairs += slots.len() / 2;
        let control_want: BTreeMap<String, usize> = want.iter().map(|(k, &n)| (k.clone(), control_pairs(n, s.control_share))).collect();
        let slots = batch(selected, &pair_counts(control.runs()), &control_want, &mut rng);
        if !slots.is_empty() {
            phase(&mut control, &slots, "null control (A/A)", events)?;
        }
        measure_pair_seconds(&mut report, pairs.runs());
        let inputs = from_pairs(pairs.runs(), s.resources);
        let entries = seq.look(&inputs);
        report.spent = start.elapsed();
        want = seq.next();
        if let Some(budget) = s.budget {
            afford(
                &mut want,
                &mut seq,
                &mut report,
                pairs.runs(),
                budget.as_secs_f64() - start.elapsed().as_secs_f64(),
                s.control_share,
            );
        }
        if want.is_empty() {
            let control_runs = control.into_runs();
            return Ok(finish(pairs.into_runs(), inputs, entries, report, &control_runs, &seq.config));
        }
    }
}

/// Seconds one wall-time pair of each scenario has taken so far (both processes).
fn measure_pair_seconds(report: &mut BudgetReport, runs: &BTreeMap<String, ScenarioRuns>) {
    for (name, sr) in runs {
        let n = timed_pairs(sr).max(1);
        let timed = sr.baseline.iter().chain(&sr.candidate).filter(|r| r.counted_by.is_none());
        let ns: u64 = timed.map(|r| r.wall_ns).sum();
        report.pair_seconds.insert(name.clone(), ns as f64 / 1e9 / n as f64);
    }
}

/// Under a budget, the looks sized to it: a pilot pair of every scenario measures what a pair
/// costs, then the first look takes up to half of what is left, between [`MIN_FIRST`] and
/// `--runs` pairs, and the horizon is the pairs of every scenario the rest would hold, between
/// [`DEFAULT_HORIZON`] and [`MAX_HORIZON`]. The horizon depends on the pilot's time only, never
/// on its values, so the alpha spent at each look is fixed before any look is analysed. A budget
/// that cannot hold [`MIN_FIRST`] pairs of every scenario is refused, naming the budget that
/// would, instead of being overrun; after counting pairs (whose rows decide) the wall-time rows
/// keep their pilot pair instead.
fn first_look(
    pairs: &mut Interleaver<'_>,
    selected: &[Listed],
    s: &SequentialSettings,
    budget: Duration,
    report: &mut BudgetReport,
    rng: &mut ChaCha8Rng,
    events: &mut dyn Reporter,
) -> Result<Plan, Error> {
    let one: BTreeMap<String, usize> = selected.iter().map(|l| (l.name.clone(), 1)).collect();
    let slots = batch(selected, &pair_counts(pairs.runs()), &one, rng);
    phase(pairs, &slots, &format!("{PHASE} pilot"), events)?;
    report.pairs += slots.len() / 2;
    measure_pair_seconds(report, pairs.runs());
    let round: f64 = report.pair_seconds.values().sum::<f64>() * (1.0 + s.control_share);
    let spent = s.started.elapsed().as_secs_f64();
    let left = budget.as_secs_f64() - spent;
    if left < (MIN_FIRST - 1) as f64 * round && s.counted {
        // The counter rows, counted first, decide; the wall-time rows stay at their pilot pair
        // (inconclusive) rather than overrunning the budget or throwing the counts away.
        eprintln!(
            "compare: the budget left after counting ({left:.0} s) cannot hold {MIN_FIRST} wall-time pairs \
             ({round:.1} s a round): wall-time rows stay at their pilot pair"
        );
        return Ok(Plan {
            first: 1,
            horizon: DEFAULT_HORIZON,
        });
    }
    if left < (MIN_FIRST - 1) as f64 * round {
        let would = (spent + (MIN_FIRST - 1) as f64 * round) * 1.2;
        return Err(Error::InvalidFlag {
            flag: "--budget",
            value: format!("{}s", budget.as_secs()),
            reason: format!(
                "cannot hold {MIN_FIRST} pairs of each of the {} scenarios: measuring so far took {spent:.0} s and one more \
                 pair of each takes {round:.1} s (a --base-ref build is not counted); --budget {}m would, or select fewer scenarios",
                selected.len(),
                (would / 60.0).ceil()
            ),
        });
    }
    Ok(sized_plan(left / round.max(1e-9), s.first))
}

/// The looks when the time left holds `rounds` more pairs of every scenario.
fn sized_plan(rounds: f64, runs: usize) -> Plan {
    let first = (1 + (FIRST_SHARE * rounds) as usize).clamp(MIN_FIRST, runs.max(MIN_FIRST));
    Plan {
        first,
        horizon: (rounds as usize).clamp(DEFAULT_HORIZON, MAX_HORIZON).max(first),
    }
}

/// Keep in `want` the scenarios the time `left` affords at their measured pair cost (with the
/// control's share), cheapest first; the rest stop at their last look.
fn afford(
    want: &mut BTreeMap<String, usize>,
    seq: &mut Sequential,
    report: &mut BudgetReport,
    runs: &BTreeMap<String, ScenarioRuns>,
    left: f64,
    control_share: f64,
) {
    let have = pair_counts(runs);
    let cut = keep_affordable(want, seq, left, |name, n| {
        let per_pair = report.pair_seconds.get(name).copied().unwrap_or(0.0) * (1.0 + control_share);
        n.saturating_sub(have.get(name).copied().unwrap_or(0)) as f64 * per_pair
    });
    report.cut_by_budget.extend(cut);
}

/// Keep in `want` (scenario -> pairs wanted) the scenarios whose `cost(name, pairs)` seconds
/// fit in `left`, cheapest first; the others are stopped at their last look in `seq` and
/// returned.
pub(crate) fn keep_affordable(
    want: &mut BTreeMap<String, usize>,
    seq: &mut Sequential,
    mut left: f64,
    cost: impl Fn(&str, usize) -> f64,
) -> Vec<String> {
    let mut order: Vec<(f64, String)> = want.iter().map(|(name, &n)| (cost(name, n), name.clone())).collect();
    order.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut cut = Vec::new();
    for (c, name) in order {
        if c <= left {
            left -= c;
        } else {
            want.remove(&name);
            seq.stop(&name);
            cut.push(name);
        }
    }
    cut
}

type Finished = (BTreeMap<String, ScenarioRuns>, Vec<MetricInput>, Vec<CompareEntry>, BudgetReport);

/// Judge the null control and downgrade the verdicts when it moved.
fn finish(
    runs: BTreeMap<String, ScenarioRuns>,
    inputs: Vec<MetricInput>,
    mut entries: Vec<CompareEntry>,
    mut report: BudgetReport,
    control: &BTreeMap<String, ScenarioRuns>,
    config: &AnalysisConfig,
) -> Finished {
    if !control.is_empty() {
        let nc = judge(&from_pairs(control, false), config);
        downgrade(&mut entries, &nc);
        report.null_control = Some(nc);
    }
    (runs, inputs, entries, report)
}

/// The sequential run for compare-run.json, with the seconds that would decide the rows still
/// inconclusive (their pairs needed beyond those run, at their measured pair cost).
pub(crate) fn summary(r: &BudgetReport, entries: &[CompareEntry], budget: Option<Duration>) -> SequentialRun {
    let mut need: BTreeMap<&str, usize> = BTreeMap::new();
    for e in entries.iter().filter(|e| e.verdict == CompareVerdict::Inconclusive) {
        if let Some(n) = e.runs_needed {
            let more = n.saturating_sub(e.pairs);
            let slot = need.entry(e.name.as_str()).or_default();
            *slot = (*slot).max(more);
        }
    }
    let rest: f64 = need
        .iter()
        .map(|(name, &n)| n as f64 * r.pair_seconds.get(*name).copied().unwrap_or(0.0))
        .sum();
    SequentialRun {
        budget_s: budget.map_or(0.0, |b| b.as_secs_f64()),
        spent_s: r.spent.as_secs_f64(),
        looks: r.looks,
        pairs: r.pairs,
        cut_by_budget: r.cut_by_budget.clone(),
        seconds_to_decide_rest: rest,
        horizon: r.horizon,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::interleave::Side;
    use crate::model::ScenarioKind;

    fn listed(name: &str) -> Listed {
        Listed {
            name: name.into(),
            kind: ScenarioKind::Measure,
            ignored: None,
            env: BTreeMap::new(),
            timeout: None,
            uncounted: None,
        }
    }

    #[test]
    fn the_budget_keeps_the_cheapest_scenarios_and_stops_the_rest() {
        use crate::compare::analyze::AnalysisConfig;
        let mut seq = Sequential::new(Plan { first: 10, horizon: 60 }, AnalysisConfig::default());
        let mut want = BTreeMap::from([("a".to_owned(), 15), ("b".to_owned(), 15), ("c".to_owned(), 15)]);
        let price = BTreeMap::from([("a", 3.0), ("b", 1.0), ("c", 2.0)]);
        let cut = keep_affordable(&mut want, &mut seq, 3.5, |name, n| price[name] * (n - 10) as f64 / 5.0);
        assert_eq!(cut, vec!["a".to_owned()]);
        assert_eq!(want.keys().collect::<Vec<_>>(), ["b", "c"]);
    }

    #[test]
    fn the_horizon_grows_with_the_budget_between_its_bounds() {
        assert_eq!(sized_plan(30.0, 10), Plan { first: 10, horizon: 60 });
        assert_eq!(sized_plan(4.0, 10), Plan { first: 3, horizon: 60 });
        assert_eq!(sized_plan(150.0, 10), Plan { first: 10, horizon: 150 });
        assert_eq!(
            sized_plan(1e6, 10),
            Plan {
                first: 10,
                horizon: MAX_HORIZON
            }
        );
        assert_eq!(sized_plan(1e6, 400), Plan { first: 400, horizon: 400 });
    }

    #[test]
    fn a_batch_tops_up_each_scenario_to_its_target_in_adjacent_pairs() {
        let sel = [listed("a"), listed("b"), listed("c")];
        let have = BTreeMap::from([("a".to_owned(), 10), ("b".to_owned(), 10), ("c".to_owned(), 10)]);
        let want = BTreeMap::from([("a".to_owned(), 15), ("c".to_owned(), 12)]);
        let slots = batch(&sel, &have, &want, &mut ChaCha8Rng::seed_from_u64(3));
        assert_eq!(slots.len(), 2 * (5 + 2));
        for p in slots.chunks(2) {
            assert_eq!((p[0].scenario, p[0].round), (p[1].scenario, p[1].round));
            assert_ne!(p[0].side, p[1].side);
        }
        let rounds = |s: usize| {
            slots
                .iter()
                .filter(|x| x.scenario == s && x.side == Side::Baseline)
                .map(|x| x.round)
                .collect::<Vec<_>>()
        };
        assert_eq!(rounds(0), vec![10, 11, 12, 13, 14]);
        assert_eq!(rounds(2), vec![10, 11]);
        assert!(rounds(1).is_empty());
    }
}
