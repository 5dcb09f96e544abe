//! Cost of `detect` against a random-order strategy, on a simulated suite of 100 tests with 5
//! planted dependencies (a victim whose polluter sorts after it, a victim with two polluters,
//! a victim behind a cleaner, a plain victim, a brittle test with its state-setter).
//!
//! detect: R isolated runs up front (R=1 is the default, R=3 the old one, `--isolated 3`),
//! original + reverse + K shuffles, extra runs alone for what failed somewhere, bisection +
//! pair confirmation (a polluter already found is confirmed by pairs, not bisected again).
//! Random: whole-suite shuffles, one process each, until every planted culprit is pinned by
//! prefix logic (culprit in every flipping prefix, in no non-flipping one). It is given an
//! oracle's grouping of runs per culprit and ignores runs masked by a cleaner, so its count is
//! a lower bound. Run: `cargo run --release -p harness --example detect_cost`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use harness::detect::{DetectConfig, OrderTarget, SimScenario, SimTarget, detect};
use harness::plan::SeededOrder;

const N: usize = 100;

/// (victim or brittle, culprit, cleaner, brittle?)
fn planted() -> Vec<(&'static str, &'static str, Option<&'static str>, bool)> {
    vec![
        ("t010_victim_late", "t090_polluter_late", None, false),
        ("t030_victim_two", "t020_polluter_a", None, false),
        ("t030_victim_two", "t070_polluter_b", None, false),
        ("t050_victim_masked", "t040_polluter_m", Some("t045_cleaner"), false),
        ("t060_victim", "t015_polluter", None, false),
        ("t080_brittle", "t025_setter", None, true),
    ]
}

fn suite(seed: u64) -> SimTarget {
    let mut all: Vec<SimScenario> = Vec::new();
    let planted = planted();
    for i in 0..N {
        let id = format!("t{i:03}");
        let named = |n: &str| n.starts_with(&id);
        let scenario = if let Some((v, _, _, brittle)) = planted.iter().find(|r| named(r.0)) {
            let flag = format!("f_{v}");
            if *brittle {
                SimScenario::new(*v).fails_unless(&flag)
            } else {
                SimScenario::new(*v).fails_if(&flag)
            }
        } else if let Some((v, c, _, _)) = planted.iter().find(|r| named(r.1)) {
            SimScenario::new(*c).sets(&format!("f_{v}"))
        } else if let Some((v, _, Some(cl), _)) = planted.iter().find(|r| r.2.is_some_and(named)) {
            SimScenario::new(*cl).clears(&format!("f_{v}"))
        } else {
            SimScenario::new(id)
        };
        all.push(scenario);
    }
    SimTarget::new(all, true, seed)
}

fn main() {
    let seeds = 20u64;
    for (isolated, shuffles) in [(3, 6), (1, 6)] {
        compare(seeds, isolated, shuffles);
    }
}

fn compare(seeds: u64, isolated: usize, shuffles: usize) {
    let (mut mine_proc, mut mine_exec, mut mine_iso, mut mine_shared, mut mine_loc, mut mine_recall) = (0, 0, 0, 0, 0, 0usize);
    let (mut rnd_proc, mut rnd_fail) = (0usize, 0usize);
    let relations = planted().len();
    for seed in 0..seeds {
        let target = suite(seed + 1);
        let listed = target.list().unwrap();
        assert_eq!(listed.len(), N, "suite size");
        let mut cfg = DetectConfig::new(seed, PathBuf::from("/nonexistent"));
        cfg.jobs = 1; // the simulated target's flakiness comes from one seeded stream
        cfg.isolated = isolated;
        cfg.shuffles = shuffles;
        let r = detect(&target, &listed, &cfg, &mut cfg.executor(), &mut harness::events::Reporters::new()).unwrap();
        mine_proc += r.counts.total;
        mine_exec += r.executions;
        mine_iso += r.counts.isolated;
        mine_shared += r.counts.shared;
        mine_loc += r.counts.localization;
        for (v, c, _, brittle) in planted() {
            let e = r.entries.iter().find(|e| e.name == v).unwrap();
            let culprits = if brittle { &e.state_setters } else { &e.polluters };
            mine_recall += usize::from(culprits.iter().any(|x| x == c));
        }
        // Random-order strategy.
        let names: Vec<String> = listed.iter().map(|l| l.name.clone()).collect();
        let mut order = SeededOrder::new(seed * 7 + 3);
        let mut runs: Vec<Vec<String>> = Vec::new();
        let mut done = false;
        while runs.len() < 2000 && !done {
            let mut o = names.clone();
            order.shuffle(&mut o);
            runs.push(o);
            done = planted()
                .iter()
                .all(|(v, c, cl, brittle)| pinned(&runs, v, c, *cl, *brittle, &planted()));
        }
        rnd_proc += runs.len();
        rnd_fail += usize::from(!done);
    }
    let avg = |x: usize| x as f64 / seeds as f64;
    println!("suite: {N} tests, {relations} planted culprit relations (5 dependent tests), {seeds} seeds");
    println!(
        "detect (R={isolated}, K={shuffles}): {:.1} processes ({:.1} isolated, {:.1} shared, {:.1} localization), {:.0} test executions, recall {}/{}",
        avg(mine_proc),
        avg(mine_iso),
        avg(mine_shared),
        avg(mine_loc),
        avg(mine_exec),
        mine_recall,
        relations * seeds as usize
    );
    println!(
        "random orders:      {:.1} processes, {:.0} test executions to pin every culprit (lower bound; {} of {seeds} seeds hit the 2000-run cap)",
        avg(rnd_proc),
        avg(rnd_proc * N),
        rnd_fail
    );
}

/// Whether the runs so far pin `culprit` as the cause of `target`'s flips by prefix logic.
fn pinned(
    runs: &[Vec<String>],
    target: &str,
    culprit: &str,
    cleaner: Option<&str>,
    brittle: bool,
    all: &[(&str, &str, Option<&str>, bool)],
) -> bool {
    let others: Vec<&str> = all.iter().filter(|r| r.0 == target && r.1 != culprit).map(|r| r.1).collect();
    let mut cand: Option<BTreeSet<&String>> = None;
    let mut innocent: BTreeSet<&String> = BTreeSet::new();
    for run in runs {
        let at = run.iter().position(|x| x == target).unwrap();
        let prefix = &run[..at];
        let before = |n: &str| prefix.iter().position(|x| x == n);
        let active = |c: &str| match (before(c), cleaner.and_then(before)) {
            (Some(p), Some(k)) => k < p,
            (Some(_), None) => true,
            _ => false,
        };
        let flipped = active(culprit) || others.iter().any(|o| active(o));
        let _ = brittle;
        // Oracle grouping: only flips this culprit explains, only runs no cleaner masked.
        if flipped && active(culprit) && !others.iter().any(|o| active(o)) {
            let set: BTreeSet<&String> = prefix.iter().collect();
            cand = Some(match cand {
                None => set,
                Some(c) => c.intersection(&set).copied().collect(),
            });
        } else if !flipped && before(culprit).is_none() {
            innocent.extend(prefix.iter());
        }
    }
    cand.is_some_and(|c| {
        let left: Vec<&&String> = c.iter().filter(|x| !innocent.contains(**x)).collect();
        left.len() == 1 && left[0].as_str() == culprit
    })
}
