//! `--budget`: the sequential comparison run for real. Batches of interleaved pairs go only to
//! the scenarios still undecided ([`Sequential`]), each batch trimmed to what the remaining time
//! affords at the pair cost measured so far, until every scenario is decided or the budget is
//! spent. Without a budget there is one look at `--runs` pairs.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::analyze::{AnalysisConfig, MetricInput};
use super::control::{control_pairs, downgrade, judge};
use super::inputs::from_pairs;
use super::interleave::{ProcessConfig, ScenarioRuns, Side, SideTarget, Slot, execute};
use super::sequential::{DEFAULT_HORIZON, Plan, Sequential};
use crate::errors::Error;
use crate::execute::Listed;
use crate::model::{CompareEntry, CompareVerdict, NullControl, SequentialRun};

/// What the sequential run did, for compare-run.json and the Markdown.
#[derive(Debug, Clone, Default)]
pub(crate) struct BudgetReport {
    /// Looks taken (batches run).
    pub looks: usize,
    /// Pairs run, over all scenarios.
    pub pairs: usize,
    /// Wall time spent running pairs.
    pub spent: Duration,
    /// Scenarios left undecided because the budget ran out, with the pairs each would need.
    pub cut_by_budget: Vec<String>,
    /// Seconds one pair of each scenario took (both processes), as measured.
    pub pair_seconds: BTreeMap<String, f64>,
    /// The A/A null control's judgement, when one ran.
    pub null_control: Option<NullControl>,
}

/// Pairs of each scenario in `runs`.
fn pair_counts(runs: &BTreeMap<String, ScenarioRuns>) -> BTreeMap<String, usize> {
    runs.iter().map(|(k, v)| (k.clone(), v.baseline.len().min(v.candidate.len()))).collect()
}

/// Run `slots` and append their records to `runs`, numbering them after the runs already there.
fn run_into(
    runs: &mut BTreeMap<String, ScenarioRuns>,
    sides: (&SideTarget<'_>, &SideTarget<'_>),
    selected: &[Listed],
    slots: &[Slot],
    process: &ProcessConfig,
    label: &str,
) -> Result<(), Error> {
    let offset = runs.values().map(|r| r.baseline.len() + r.candidate.len()).sum::<usize>();
    let total = slots.len();
    let new = execute(sides.0, sides.1, selected, slots, process, |i, _, rec| {
        if (i + 1) % (2 * selected.len()).max(1) == 0 || i + 1 == total {
            eprintln!("compare: {label}: {}/{} processes", i + 1, total);
        }
        if rec.outcome.is_failure() {
            eprintln!("compare: {} {}", rec.scenario, rec.outcome.short());
        }
    })?;
    for (name, mut sr) in new {
        for r in sr.baseline.iter_mut().chain(sr.candidate.iter_mut()) {
            r.run_index += offset;
        }
        let e = runs.entry(name).or_default();
        e.baseline.extend(sr.baseline);
        e.candidate.extend(sr.candidate);
    }
    Ok(())
}

/// Slots that bring each scenario from `have` to `want` pairs: round r holds the scenarios
/// still short after r extra pairs, in a fresh random order, each pair's first side a coin.
fn batch(selected: &[Listed], have: &BTreeMap<String, usize>, want: &BTreeMap<String, usize>, rng: &mut ChaCha8Rng) -> Vec<Slot> {
    let extra = |i: usize| {
        let name = &selected[i].name;
        want.get(name).copied().unwrap_or(0).saturating_sub(have.get(name).copied().unwrap_or(0))
    };
    let rounds = (0..selected.len()).map(extra).max().unwrap_or(0);
    let mut slots = Vec::new();
    for r in 0..rounds {
        let mut order: Vec<usize> = (0..selected.len()).filter(|&i| extra(i) > r).collect();
        rand::seq::SliceRandom::shuffle(order.as_mut_slice(), rng);
        for scenario in order {
            let round = have.get(&selected[scenario].name).copied().unwrap_or(0) + r;
            let first = if rng.random::<bool>() { Side::Baseline } else { Side::Candidate };
            let second = if first == Side::Baseline { Side::Candidate } else { Side::Baseline };
            slots.push(Slot { round, scenario, side: first });
            slots.push(Slot { round, scenario, side: second });
        }
    }
    slots
}

/// The sequential comparison of `selected`: first batch `first` pairs; with a budget, more
/// looks up to the horizon. Returns every run, the rows of the last look and what was done.
#[expect(clippy::too_many_arguments, reason = "the two sides, the plan and the process settings are distinct inputs")]
pub(crate) fn run_sequential(
    a: &SideTarget<'_>,
    b: &SideTarget<'_>,
    selected: &[Listed],
    first: usize,
    budget: Option<Duration>,
    seed: u64,
    process: &ProcessConfig,
    config: AnalysisConfig,
    control_share: f64,
) -> Result<Finished, Error> {
    let plan = if budget.is_some() {
        Plan { first, horizon: DEFAULT_HORIZON.max(first) }
    } else {
        Plan::single(first)
    };
    let mut seq = Sequential::new(plan, config);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = Instant::now();
    let mut runs: BTreeMap<String, ScenarioRuns> = BTreeMap::new();
    let mut report = BudgetReport::default();
    let mut want: BTreeMap<String, usize> = selected.iter().map(|l| (l.name.clone(), first)).collect();
    let mut control: BTreeMap<String, ScenarioRuns> = BTreeMap::new();
    loop {
        let slots = batch(selected, &pair_counts(&runs), &want, &mut rng);
        run_into(&mut runs, (a, b), selected, &slots, process, &format!("look {}", report.looks + 1))?;
        report.looks += 1;
        report.pairs += slots.len() / 2;
        // The null control: the baseline against itself, a share of each scenario's pairs.
        let control_want: BTreeMap<String, usize> = want.iter().map(|(k, &n)| (k.clone(), control_pairs(n, control_share))).collect();
        let slots = batch(selected, &pair_counts(&control), &control_want, &mut rng);
        run_into(&mut control, (a, a), selected, &slots, process, "null control")?;
        for (name, sr) in &runs {
            let n = sr.baseline.len().min(sr.candidate.len()).max(1);
            let ns: u64 = sr.baseline.iter().chain(&sr.candidate).map(|r| r.wall_ns).sum();
            report.pair_seconds.insert(name.clone(), ns as f64 / 1e9 / n as f64);
        }
        let inputs = from_pairs(&runs);
        let entries = seq.look(&inputs);
        report.spent = start.elapsed();
        want = seq.next();
        let Some(budget) = budget else { return Ok(finish(runs, inputs, entries, report, &control, &seq.config)) };
        // Afford the cheapest scenarios first; the rest stop at their last look.
        let mut cost: Vec<(f64, String)> = want
            .iter()
            .map(|(name, &n)| {
                let have = runs.get(name).map_or(0, |r| r.baseline.len().min(r.candidate.len()));
                let per_pair = report.pair_seconds.get(name).copied().unwrap_or(0.0) * (1.0 + control_share);
                (n.saturating_sub(have) as f64 * per_pair, name.clone())
            })
            .collect();
        cost.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut left = budget.as_secs_f64() - start.elapsed().as_secs_f64();
        for (c, name) in cost {
            if c <= left {
                left -= c;
            } else {
                want.remove(&name);
                seq.stop(&name);
                report.cut_by_budget.push(name);
            }
        }
        if want.is_empty() {
            return Ok(finish(runs, inputs, entries, report, &control, &seq.config));
        }
    }
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
        let nc = judge(&from_pairs(control), config);
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
    let rest: f64 = need.iter().map(|(name, &n)| n as f64 * r.pair_seconds.get(*name).copied().unwrap_or(0.0)).sum();
    SequentialRun {
        budget_s: budget.map_or(0.0, |b| b.as_secs_f64()),
        spent_s: r.spent.as_secs_f64(),
        looks: r.looks,
        pairs: r.pairs,
        cut_by_budget: r.cut_by_budget.clone(),
        seconds_to_decide_rest: rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ScenarioKind;

    fn listed(name: &str) -> Listed {
        Listed {
            name: name.into(),
            kind: ScenarioKind::Measure,
            ignored: None,
            env: BTreeMap::new(),
            timeout: None,
        }
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
        let rounds = |s: usize| slots.iter().filter(|x| x.scenario == s && x.side == Side::Baseline).map(|x| x.round).collect::<Vec<_>>();
        assert_eq!(rounds(0), vec![10, 11, 12, 13, 14]);
        assert_eq!(rounds(2), vec![10, 11]);
        assert!(rounds(1).is_empty());
    }
}
