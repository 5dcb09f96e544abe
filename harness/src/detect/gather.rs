//! Detect's first two phases as one pool of processes ([`Gather`], a [`Plan`]): each scenario
//! alone (once by default) and the shared orders (original, reverse, K shuffles), side by side.
//! The original order goes first, so the longest process starts at once and the isolated runs
//! fill the other cores; the shuffles wait for the isolated runs, so a scenario that hung alone
//! is left out of them, and so is a long one (longer alone than all the others together), which
//! runs in the original and the reverse instead (libtest: in two orders whose predicted seeds run
//! it last and first). A shared order that a scenario ends (crash, hang) continues in a
//! new process at once; when everything has finished, whole shuffles are topped up (up to one
//! per core at a time; for a libtest binary whose shuffles are predicted, the seeds that show the
//! most unseen pairs) until every ordered pair was seen (bounded).

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use super::coverage::{Missing, PairCoverage};
use super::libtest_shuffle::{ShuffleTrust, best_seed, predict};
use super::pipeline::{DetectConfig, GroupRuns};
use super::pool::{Plan, Start, Task};
use super::probe::{Observation, Prober, Purpose, split_ran};
use super::schedule::{MAX_COVERAGE_SHUFFLES, Schedule, plan, shuffle_schedule, shuffle_seeds};
use crate::errors::Error;
use crate::model::{EvidenceKind, ScheduleRecord, Status};

/// Phase names, as the progress display shows them.
pub const PHASE_ISOLATED: &str = "isolated";
/// Shared schedules.
pub const PHASE_SHARED: &str = "shared";

/// Tag of an isolated task (shared tasks carry their schedule's index).
const ISOLATED: usize = usize::MAX;
/// Seeds whose order is predicted, per libtest top-up, to choose the one that shows the most
/// unseen pairs.
const PREDICTED_TOPUP_TRIES: usize = 64;

/// Seeds whose libtest order is predicted, at most, to put the long test last (or first).
const BRACKET_TRIES: usize = 4096;

/// One planned shared order and what it ran so far.
struct Order {
    schedule: Schedule,
    executed: Vec<String>,
    started: bool,
    finished: bool,
    /// Keeps the long test (the original and reverse orders, and its brackets).
    keeps_long: bool,
}

impl Order {
    fn new(schedule: Schedule) -> Self {
        let keeps_long = schedule.kind != EvidenceKind::Shuffle;
        Order {
            schedule,
            executed: Vec::new(),
            started: false,
            finished: false,
            keeps_long,
        }
    }
}

/// The plan of the first two phases of one env group.
pub(super) struct Gather<'r> {
    runs: &'r mut GroupRuns,
    orders: Vec<Order>,
    honours: bool,
    seed: u64,
    shuffles: usize,
    topups: usize,
    /// Timed out somewhere: left out of shared processes not started yet.
    hung: BTreeSet<String>,
    coverage: PairCoverage,
    enders_known: bool,
    /// Processes side by side.
    workers: usize,
    /// libtest: whether the shuffled orders were predicted right.
    shuffle: ShuffleTrust,
    /// Isolated runs not back yet.
    isolated_left: usize,
    /// The one scenario that takes longer alone than all the others together (and at least
    /// `long_from`): it runs in the original order and the reverse (or two libtest orders that
    /// put it last and first) instead of every shuffle.
    long: Option<String>,
    long_from: Duration,
    bracketed: bool,
}

impl<'r> Gather<'r> {
    fn new(runs: &'r mut GroupRuns, honours: bool, seed: u64, cfg: &DetectConfig, workers: usize) -> Self {
        let shuffles = cfg.shuffles;
        let coverage = PairCoverage::new(&runs.names);
        let orders = if runs.names.len() > 1 {
            plan(&runs.names, honours, seed, shuffles).into_iter().map(Order::new).collect()
        } else {
            Vec::new()
        };
        Gather {
            runs,
            orders,
            honours,
            seed,
            shuffles,
            topups: 0,
            hung: BTreeSet::new(),
            coverage,
            enders_known: false,
            workers,
            shuffle: ShuffleTrust::default(),
            isolated_left: 0,
            long: None,
            long_from: cfg.long_test,
            bracketed: false,
        }
    }

    fn shared_task(&self, i: usize) -> Task {
        let s = &self.orders[i].schedule;
        Task {
            names: s.order.clone(),
            seed: s.seed.filter(|_| !self.honours),
            kind: s.kind,
            purpose: Purpose::Shared,
            tag: i,
        }
    }

    /// The first queue: the original order, every isolated run (round-robin over the scenarios,
    /// `reps` each), then the other orders. One at a time (a measurement must run alone), every
    /// isolated run comes first, as it did before shared orders ran side by side.
    fn queue(&self, cfg: &DetectConfig, workers: usize) -> Vec<Task> {
        let reps: Vec<usize> = self.runs.names.iter().map(|n| self.runs.isolated_reps(n, cfg)).collect();
        let most = reps.iter().copied().max().unwrap_or(0);
        let mut isolated = Vec::new();
        for rep in 0..most {
            for (i, name) in self.runs.names.iter().enumerate() {
                if reps[i] > rep {
                    isolated.push(Task {
                        names: vec![name.clone()],
                        seed: None,
                        kind: EvidenceKind::Isolated,
                        purpose: Purpose::Isolated,
                        tag: ISOLATED,
                    });
                }
            }
        }
        let shared: Vec<Task> = (0..self.orders.len()).map(|i| self.shared_task(i)).collect();
        let first = usize::from(workers > 1).min(shared.len());
        shared[..first]
            .iter()
            .cloned()
            .chain(isolated)
            .chain(shared[first..].iter().cloned())
            .collect()
    }

    fn record_shared(&mut self, task: &Task, obs: Vec<Observation>) -> Vec<Task> {
        let (ran, left) = split_ran(obs, &task.names);
        let executed: Vec<String> = ran.iter().map(|o| o.name.clone()).collect();
        if let Some(seed) = task.seed.filter(|_| left.is_empty() && !self.honours) {
            self.shuffle.check(&executed, seed, &executed);
        }
        self.coverage.add(&executed);
        let order = &mut self.orders[task.tag];
        order.executed.extend(executed);
        for mut o in ran {
            if o.outcome.status() == Status::TimedOut {
                self.hung.insert(o.name.clone());
                self.coverage.leave_out(&o.name);
            }
            o.seed = order.schedule.seed;
            if let Some(v) = self.runs.shared.get_mut(&o.name) {
                v.push(o);
            }
        }
        if !left.is_empty() && left.len() < task.names.len() {
            // A scenario ended the process: the rest of the order continues in a new one.
            vec![Task {
                names: left,
                ..task.clone()
            }]
        } else {
            order.finished = true;
            vec![]
        }
    }

    /// Pairs that start with a scenario that ends every process it runs in alone (a crasher)
    /// are not asked for; nor pairs with one that hung.
    fn settle_universe(&mut self) {
        if self.enders_known {
            return;
        }
        self.enders_known = true;
        let enders: Vec<String> = self.runs.names.iter().filter(|n| self.runs.ends_process(n)).cloned().collect();
        self.coverage.exclude_first(&enders);
        for h in &self.hung {
            self.coverage.leave_out(h);
        }
    }

    /// The schedule records, in planned order.
    fn records(&self) -> Vec<ScheduleRecord> {
        self.orders
            .iter()
            .filter(|o| o.started)
            .map(|o| ScheduleRecord {
                kind: o.schedule.kind_name().to_owned(),
                seed: o.schedule.seed,
                order: o.executed.clone(),
                binary: None,
            })
            .collect()
    }
}

impl Plan for Gather<'_> {
    /// Every order but the original waits for the isolated runs still out: they say which
    /// scenario hung alone and which one is long, both left out of a shuffle.
    fn adjust(&mut self, task: &mut Task) -> Start {
        if task.tag == ISOLATED {
            return Start::Now;
        }
        let order = &self.orders[task.tag];
        if order.executed.is_empty() && order.schedule.kind != EvidenceKind::Order && self.isolated_left > 0 {
            return Start::Later;
        }
        task.names.retain(|n| !self.hung.contains(n));
        if let Some(long) = &self.long
            && !self.orders[task.tag].keeps_long
        {
            task.names.retain(|n| n != long);
        }
        self.orders[task.tag].started = true;
        if task.names.len() < 2 && self.orders[task.tag].executed.is_empty() {
            self.orders[task.tag].finished = true;
            return Start::Skip;
        }
        if task.names.is_empty() { Start::Skip } else { Start::Now }
    }

    fn done(&mut self, task: Task, observations: Vec<Observation>) -> Vec<Task> {
        if task.tag != ISOLATED {
            return self.record_shared(&task, observations);
        }
        for o in observations.into_iter().filter(|o| o.name == task.names[0]) {
            if o.outcome.status() == Status::TimedOut {
                self.hung.insert(o.name.clone());
            }
            if let Some(v) = self.runs.iso.get_mut(&o.name) {
                v.push(o);
            }
        }
        self.isolated_left = self.isolated_left.saturating_sub(1);
        if self.isolated_left == 0 {
            self.long = long_test(self.runs, self.long_from).filter(|l| !self.hung.contains(l));
        }
        vec![]
    }

    /// Everything planned finished: top up with a shuffle while an ordered pair is unseen.
    fn idle(&mut self) -> Vec<Task> {
        if self.orders.is_empty() || self.topups >= MAX_COVERAGE_SHUFFLES {
            return vec![];
        }
        self.settle_universe();
        if !self.bracketed && !self.honours && self.shuffle.trusted() {
            self.bracketed = true;
            let brackets = self.brackets();
            if !brackets.is_empty() {
                return brackets;
            }
        }
        let mut universe: Vec<String> = self.runs.names.iter().filter(|n| !self.hung.contains(*n)).cloned().collect();
        // Each shuffle shows a given unseen pair with probability 1/2 (1/3 with a crasher
        // between), so about log2(unseen) more are needed: up to one per worker go at once.
        // A top-up runs whole, like the planned orders: each is also another chance for a victim
        // behind a cleaner to show (a shuffle over the unseen pairs alone would not give it).
        let (wanted, long_unseen) = match self.coverage.missing() {
            Missing::Nothing => return vec![],
            Missing::Many { .. } => (self.workers, true),
            Missing::Pairs { count, involved } => (
                (usize::BITS - count.leading_zeros()) as usize,
                self.long.as_ref().is_some_and(|l| involved.contains(l)),
            ),
        };
        // The long test joins a top-up only while one of its own pairs is unseen.
        if let Some(long) = self.long.as_ref().filter(|_| !long_unseen) {
            universe.retain(|n| n != long);
        }
        let names = universe;
        let batch = wanted.clamp(1, self.workers).min(MAX_COVERAGE_SHUFFLES - self.topups);
        let mut seeds = shuffle_seeds(self.seed, batch, self.shuffles + self.topups);
        if !self.honours && self.shuffle.trusted() {
            self.choose_seeds(&names, &mut seeds);
        }
        self.topups += batch;
        let first = self.orders.len();
        for seed in seeds {
            let mut order = Order::new(shuffle_schedule(&names, seed, self.honours));
            order.keeps_long = true; // chosen above
            self.orders.push(order);
        }
        (first..self.orders.len()).map(|i| self.shared_task(i)).collect()
    }
}

impl Gather<'_> {
    /// libtest, its shuffles predicted: the long test in two whole orders, one that runs it as
    /// late as a seed allows and one as early (what original and reverse do for an exact-order
    /// target), so its pairs need no shuffle of their own.
    fn brackets(&mut self) -> Vec<Task> {
        let Some(long) = self.long.clone() else { return vec![] };
        let names: Vec<String> = self.runs.names.iter().filter(|n| !self.hung.contains(*n)).cloned().collect();
        let tries = (BRACKET_TRIES * 64 / names.len().max(1)).clamp(16, BRACKET_TRIES);
        let at = |order: &[String]| order.iter().position(|n| *n == long).unwrap_or(0);
        let start = shuffle_seeds(self.seed, 1, self.shuffles + MAX_COVERAGE_SHUFFLES)[0];
        let last = best_seed(&names, start, tries, at);
        let first = best_seed(&names, start.wrapping_add(tries as u64), tries, |o| names.len() - at(o));
        let first_index = self.orders.len();
        for (seed, _) in [last, first].into_iter().flatten() {
            let mut order = Order::new(shuffle_schedule(&names, seed, false));
            order.keeps_long = true;
            self.orders.push(order);
        }
        (first_index..self.orders.len()).map(|i| self.shared_task(i)).collect()
    }

    /// libtest, its shuffles predicted: instead of random seeds, each top-up takes the seed (of
    /// [`PREDICTED_TOPUP_TRIES`] from its own) whose order of `names` shows the most pairs still
    /// unseen, the ones earlier top-ups of the batch will show left out.
    fn choose_seeds(&self, names: &[String], seeds: &mut [u64]) {
        let Some(pairs) = self.coverage.listed_pairs() else { return };
        let mut left: Vec<(&str, &str)> = pairs;
        for seed in seeds.iter_mut() {
            let shown = |order: &[String]| {
                let at: HashMap<&str, usize> = order.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
                left.iter().filter(|(a, b)| at.get(a) < at.get(b)).count()
            };
            if let Some((best, _)) = best_seed(names, *seed, PREDICTED_TOPUP_TRIES, shown) {
                *seed = best;
                let order = predict(names, best);
                let at: HashMap<&str, usize> = order.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
                left.retain(|(a, b)| at.get(a) >= at.get(b));
            }
        }
    }
}

/// Phases 1 and 2 of one env group: isolated runs and shared orders side by side. Returns the
/// schedule records; tasks the budget left unstarted are noted in `runs`.
pub(super) fn gather(prober: &mut Prober<'_>, runs: &mut GroupRuns, cfg: &DetectConfig, seed: u64) -> Result<Vec<ScheduleRecord>, Error> {
    let honours = prober.target().honours_order();
    let workers = prober.workers;
    let mut plan = Gather::new(runs, honours, seed, cfg, workers);
    let queue = plan.queue(cfg, workers);
    let isolated = queue.iter().filter(|t| t.tag == ISOLATED).count();
    plan.isolated_left = isolated;
    prober.phase_started(PHASE_ISOLATED, isolated)?;
    prober.phase_started(PHASE_SHARED, queue.len() - isolated)?;
    let left = prober.run_pool(queue, &mut plan)?;
    let records = plan.records();
    let unseen_orders = plan.orders.iter().any(|o| !o.finished);
    let coverage = plan.coverage.clone();
    let hung = plan.hung.clone();
    drop(plan);
    runs.cut = !left.is_empty() || (prober.spent() && unseen_orders);
    runs.unrun = left;
    runs.coverage = Some(coverage);
    runs.hung = hung;
    runs.sort_by_process();
    prober.phase_finished(PHASE_ISOLATED)?;
    prober.phase_finished(PHASE_SHARED)?;
    Ok(records)
}

/// The scenario that took longer alone than all the others together, if it took at least
/// `from`: in every shared order it would be most of the order's time.
fn long_test(runs: &GroupRuns, from: Duration) -> Option<String> {
    let alone = |n: &String| runs.iso[n].iter().map(|o| o.wall).min().unwrap_or_default();
    let total: Duration = runs.names.iter().map(alone).sum();
    let (name, most) = runs.names.iter().map(|n| (n, alone(n))).max_by_key(|(_, t)| *t)?;
    (most >= from && most >= total - most).then(|| name.clone())
}
