//! The counting pairs of `--counters=valgrind`: every countable scenario counted in pairs of
//! processes (baseline, candidate) before any wall-time pair, one process per core.
//!
//! Without a budget that is `--counter-processes` pairs and one look at the whole alpha. With
//! `--budget` the counter rows are judged sequentially like the wall-time rows
//! ([`Sequential`]): after the first `--counter-processes` pairs, only the scenarios whose
//! counter rows are still undecided get more pairs, at looks up to [`HORIZON_FACTOR`] times as
//! many, each spending its share of alpha. Most routines count the same in every process and
//! decide at the first look; a small routine whose counts move with the process (0.3-1.5% for
//! a 9 000-instruction gather) needs more pairs, and those are cheap. The rows' alpha spent is
//! handed on to the wall-time looks, which see the same counts and so re-judge them exactly.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::analyze::{AnalysisConfig, Look};
use super::budget::keep_affordable;
use super::compare::PHASE;
use super::inputs::from_pairs;
use super::interleave::{Interleaver, ScenarioRuns, Slot, push_pair, schedule};
use super::options::RunSettings;
use super::sequential::{Plan, Sequential};
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};
use crate::model::{Listed, RunRecord};

/// The most counting pairs a scenario can get under a budget, as a multiple of the first look's.
const HORIZON_FACTOR: usize = 4;
/// Share of the budget the counting keeps free for the wall-time pilot pair of every scenario.
const WALL_RESERVE: f64 = 0.1;

/// What the counting phase did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Counted {
    /// Counting pairs of the scenario counted most.
    pub pairs: usize,
    /// Seconds the counting took.
    pub seconds: f64,
    /// Each counter row's place in the sequential design: the wall-time looks judge it so.
    pub looks: BTreeMap<(String, String), Look>,
}

/// The processes of one side counted `by` this source (`--allocs` beside `--counters` leaves
/// processes of the other source among them).
fn counted<'r>(v: &'r [RunRecord], by: &str) -> impl Iterator<Item = &'r RunRecord> {
    v.iter().filter(move |r| r.counted_by.as_deref() == Some(by))
}

/// Rounds after which a scenario that counted the same in every process is not counted again.
const EXACT_AFTER: usize = 2;

/// The indices in `selected` of the scenarios whose every counter metric took one value in all
/// counting processes of each side (the sides may differ): exact, so more processes add nothing.
fn exact_scenarios(runs: &BTreeMap<String, ScenarioRuns>, selected: &[Listed], by: &str) -> Vec<usize> {
    let constant = |v: &[RunRecord]| crate::counters::counted_alike(counted(v, by));
    selected
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            runs.get(&l.name)
                .is_some_and(|sr| constant(&sr.baseline) && constant(&sr.candidate))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Counting pairs of each scenario so far, and the process seconds one pair has taken.
fn pairs_and_cost(runs: &BTreeMap<String, ScenarioRuns>, by: &str) -> BTreeMap<String, (usize, f64)> {
    runs.iter()
        .map(|(name, sr)| {
            let n = counted(&sr.baseline, by).count().min(counted(&sr.candidate, by).count());
            let ns: u64 = counted(&sr.baseline, by).chain(counted(&sr.candidate, by)).map(|r| r.wall_ns).sum();
            (name.clone(), (n, ns as f64 / 1e9 / n.max(1) as f64))
        })
        .collect()
}

/// Run `slots` (counting processes, `threads` at a time) as one phase of the seam.
fn phase(il: &mut Interleaver<'_>, slots: &[Slot], name: &str, threads: usize, events: &mut dyn Reporter) -> Result<(), Error> {
    events.on_event(&RunEvent::PhaseStarted {
        name,
        planned: slots.len(),
    })?;
    il.run_counting(slots, threads, events)?;
    events.on_event(&RunEvent::PhaseFinished { name })
}

/// The counting pairs of every countable scenario in `selected`, before the wall-time pairs;
/// `None` when the counters need no processes of their own. Their records take the first
/// places of each side's runs, on both sides alike, so pairs stay aligned.
///
/// Under a budget (with when measuring began) the first pairs run a round (one pair of each)
/// at a time: a round that would end past the budget is not started, and a budget that cannot
/// hold two rounds, the fewest an interval needs, is refused with the budget that would. Then
/// the undecided scenarios get more, cheapest first, while the budget lasts.
pub(crate) fn count_pairs(
    il: &mut Interleaver<'_>,
    selected: &[Listed],
    s: &RunSettings,
    config: &AnalysisConfig,
    budget: Option<(Duration, Instant)>,
    events: &mut dyn Reporter,
) -> Result<Option<Counted>, Error> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let countable: Vec<usize> = (0..selected.len()).filter(|&i| selected[i].uncounted.is_none()).collect();
    // `--allocs` beside `--counters`: its pairs first, in processes of their own, all
    // --counter-processes of them (they take a fraction of valgrind's time; exact rows decide
    // at once). Like the other source's, they lead each side's runs on both sides alike.
    if let Some(a) = s.counters.as_ref().and_then(|c| c.allocs.as_deref()) {
        let slots: Vec<Slot> = schedule(countable.len(), s.counter_pairs, s.seed ^ 0xa1_10c5)
            .into_iter()
            .map(|slot| Slot {
                scenario: countable[slot.scenario],
                ..slot
            })
            .collect();
        let name = format!("{PHASE} counters ({})", a.source.label());
        events.on_event(&RunEvent::PhaseStarted {
            name: &name,
            planned: slots.len(),
        })?;
        il.run_allocs_counting(&slots, threads, events)?;
        events.on_event(&RunEvent::PhaseFinished { name: &name })?;
    }
    let Some(c) = s.counters.as_ref().filter(|c| c.source.separate_processes()) else {
        return Ok(None);
    };
    let by = c.source.label();
    let begun = Instant::now();
    let slots: Vec<Slot> = schedule(countable.len(), s.counter_pairs, s.seed ^ 0xc0_47e5)
        .into_iter()
        .map(|slot| Slot {
            scenario: countable[slot.scenario],
            ..slot
        })
        .collect();
    let name = format!("{PHASE} counters ({})", c.source.label());
    events.on_event(&RunEvent::PhaseStarted {
        name: &name,
        planned: slots.len(),
    })?;
    let mut rounds = 0;
    for round in slots.chunk_by(|a, b| a.round == b.round) {
        if let Some((budget, started)) = budget
            && rounds > 0
        {
            let per_round = begun.elapsed().as_secs_f64() / rounds as f64;
            let end = started.elapsed().as_secs_f64() + per_round;
            if end > budget.as_secs_f64() && rounds < 2 {
                return Err(Error::InvalidFlag {
                    flag: "--budget",
                    value: format!("{}s", budget.as_secs()),
                    reason: format!(
                        "cannot hold 2 counting pairs of the {} counted scenarios: one pair of each took {per_round:.0} s under \
                         valgrind; --budget {}m would, or select fewer scenarios",
                        round.len() / 2,
                        ((2.2 * per_round) / 60.0).ceil() + 1.0
                    ),
                });
            }
            if end > budget.as_secs_f64() {
                eprintln!(
                    "compare: counting stopped at {rounds} of {} pairs (--counter-processes): one more takes {per_round:.0} s, \
                     past --budget",
                    s.counter_pairs
                );
                break;
            }
        }
        // A scenario whose counts were identical in every counting process of both sides, for
        // two rounds, is exact: a third process would count the same again, so it gets none.
        let exact = if rounds >= EXACT_AFTER {
            exact_scenarios(il.runs(), selected, &by)
        } else {
            Vec::new()
        };
        let round: Vec<Slot> = round.iter().filter(|slot| !exact.contains(&slot.scenario)).cloned().collect();
        if !round.is_empty() {
            il.run_counting(&round, threads, events)?;
        }
        rounds += 1;
    }
    events.on_event(&RunEvent::PhaseFinished { name: &name })?;
    let mut done = Counted::default();
    if let Some((budget, started)) = budget.filter(|_| rounds == s.counter_pairs) {
        let plan = Plan {
            first: rounds,
            horizon: HORIZON_FACTOR * rounds,
        };
        let mut seq = Sequential::counting(plan, config.clone());
        let mut rng = ChaCha8Rng::seed_from_u64(s.seed ^ 0x0709_u64);
        let mut look = 1;
        loop {
            let inputs: Vec<_> = from_pairs(il.runs(), false).into_iter().filter(|m| m.source.is_some()).collect();
            seq.look(&inputs);
            let mut want = seq.next();
            let have = pairs_and_cost(il.runs(), &by);
            // Each pair at its measured cost, spread over the cores.
            let left = budget.as_secs_f64() * (1.0 - WALL_RESERVE) - started.elapsed().as_secs_f64();
            keep_affordable(&mut want, &mut seq, left, |name, n| {
                let (got, cost) = have.get(name).copied().unwrap_or((0, 0.0));
                n.saturating_sub(got) as f64 * cost / threads as f64
            });
            if want.is_empty() {
                break;
            }
            let mut slots = Vec::new();
            for (i, listed) in selected.iter().enumerate() {
                let Some(&n) = want.get(&listed.name) else { continue };
                let got = have.get(&listed.name).map_or(0, |h| h.0);
                for round in got..n {
                    push_pair(&mut slots, round, i, &mut rng);
                }
            }
            look += 1;
            phase(il, &slots, &format!("{PHASE} counters, look {look}"), threads, events)?;
        }
        done.looks = seq.row_looks();
    }
    done.pairs = pairs_and_cost(il.runs(), &by).values().map(|v| v.0).max().unwrap_or(0);
    done.seconds = begun.elapsed().as_secs_f64();
    Ok(Some(done))
}
