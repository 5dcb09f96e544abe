//! The process counts of detect's schedule on simulated targets: what a clean binary costs, what
//! a planted victim adds, what a second victim of a known polluter adds, how often a slow test
//! runs, side-by-side processes giving the same verdicts, and `--budget` leaving `unknown`
//! verdicts with the runs that would decide them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::classify::CANDIDATE_ISOLATED;
use super::pipeline::{DetectConfig, DetectResult, detect};
use super::schedule::DEFAULT_SHUFFLES;
use super::settle::BEFORE_LOCALIZATION;
use super::simulate::{SimScenario, SimTarget};
use super::subject::OrderTarget;
use crate::model::{EvidenceKind, OrderVerdict};

fn clean(n: usize) -> Vec<SimScenario> {
    (0..n).map(|i| SimScenario::new(format!("t{i:03}"))).collect()
}

fn config(seed: u64, jobs: usize) -> DetectConfig {
    let mut cfg = DetectConfig::new(seed, PathBuf::from("/nonexistent"));
    cfg.jobs = jobs;
    cfg
}

fn run(target: &dyn OrderTarget, cfg: &DetectConfig) -> DetectResult {
    let listed = target.list().unwrap();
    let mut rec = crate::events::Recorder::default();
    detect(target, &listed, cfg, &mut cfg.executor(), &mut rec).unwrap()
}

fn entry<'r>(r: &'r DetectResult, name: &str) -> &'r crate::model::DetectEntry {
    r.entries.iter().find(|e| e.name == name).unwrap()
}

#[test]
fn a_clean_binary_costs_one_run_alone_per_test_and_the_shared_orders() {
    let k = DEFAULT_SHUFFLES;
    for jobs in [1, 3] {
        // Exact order: original + reverse see every ordered pair, so no shuffle is topped up.
        let r = run(&SimTarget::new(clean(50), true, 1), &config(7, jobs));
        assert!(r.entries.iter().all(|e| e.verdict == OrderVerdict::Pass));
        assert_eq!(
            (r.counts.isolated, r.counts.shared, r.counts.localization, r.counts.total),
            (50, k + 2, 0, 50 + k + 2),
            "jobs {jobs}"
        );
        assert_eq!(r.executions, 50 + (k + 2) * 50);
    }
    // libtest: no reverse; whole shuffles are topped up until every ordered pair was seen (with
    // libtest's permutation predicted, the seeds that show the most unseen pairs: a few suffice).
    let r = run(&SimTarget::new(clean(50), false, 1), &config(7, 1));
    assert_eq!((r.counts.isolated, r.counts.localization), (50, 0));
    assert!(r.counts.shared > k + 1 && r.counts.shared <= k + 1 + 4, "{:?}", r.counts);
    let topped: Vec<usize> = r.schedules[k + 1..].iter().map(|s| s.order.len()).collect();
    assert!(topped.iter().all(|&len| len == 50), "top-ups run whole: {topped:?}");
}

#[test]
fn a_planted_victim_gets_its_extra_runs_alone_and_a_bisection_and_a_second_victim_only_pairs() {
    let mut sc = clean(48);
    sc[30] = SimScenario::new("t030_polluter").sets("x");
    sc.push(SimScenario::new("t100_victim").fails_if("x"));
    let one = run(&SimTarget::new(sc.clone(), true, 1), &config(3, 1));
    let v = entry(&one, "t100_victim");
    assert_eq!(
        (v.verdict, v.polluters.clone()),
        (OrderVerdict::Victim, vec!["t030_polluter".to_owned()])
    );
    // The victim passed its one run alone and failed in a shared order: alone of its kind (no
    // family), it gets runs alone up to CANDIDATE_ISOLATED before localization (two confirming
    // pairs would not make fewer enough); nobody else gets any.
    assert_eq!(one.counts.isolated, 48 + CANDIDATE_ISOLATED);
    assert!(BEFORE_LOCALIZATION < CANDIDATE_ISOLATED);
    let alone: Vec<&str> = v
        .evidence
        .iter()
        .filter(|e| e.kind == EvidenceKind::Isolated)
        .map(|e| e.detail.as_str())
        .collect();
    assert_eq!(alone, ["10 of 10 isolated runs"]);
    assert_eq!(one.counts.shared, DEFAULT_SHUFFLES + 2);
    let first = one.counts.localization;
    // Bisection over a prefix of at most 48 plus two confirming pairs, never all pairs.
    assert!((3..=12).contains(&first), "{first} localization runs");
    // A second victim of the same polluter: the known polluter is confirmed by pair runs first.
    sc.push(SimScenario::new("t101_victim").fails_if("x"));
    let two = run(&SimTarget::new(sc, true, 1), &config(3, 1));
    let w = entry(&two, "t101_victim");
    assert_eq!(w.polluters, vec!["t030_polluter".to_owned()]);
    // Its runs: two pair runs, then one run each of the remaining candidates (a second polluter
    // would show there); no bisection step halves anything.
    let second = two.counts.localization - first;
    let probes: Vec<&str> = w
        .evidence
        .iter()
        .filter(|e| e.kind == EvidenceKind::Localize && e.detail.ends_with("ran before t101_victim"))
        .map(|e| e.detail.as_str())
        .collect();
    assert!(second <= 5, "the second victim took {second} localization runs: {probes:?}");
    for p in &probes {
        let (k, rest) = p.split_once(" of ").unwrap();
        assert!(rest.starts_with(&format!("{k} ")), "a bisection step: {p}");
    }
    let confirms = w.evidence.iter().filter(|e| e.kind == EvidenceKind::Confirm).count();
    // A hinted culprit (known for another victim) is confirmed by one pair run of its own.
    assert_eq!(confirms, super::localize::CONFIRM_RUNS_HINTED, "{:#?}", w.evidence);
}

#[test]
fn a_test_longer_than_all_others_together_runs_in_two_shared_orders_and_its_victim_is_found() {
    let scenarios = || {
        let mut sc = clean(20);
        sc[15] = SimScenario::new("t015_long").takes(Duration::from_millis(60)).sets("x");
        sc[3] = SimScenario::new("t003_victim").fails_if("x");
        sc
    };
    let mut cfg = config(5, 1);
    cfg.long_test = Duration::from_millis(50);
    for honours in [true, false] {
        let r = run(&SimTarget::new(scenarios(), honours, 1), &cfg);
        let in_orders = r.schedules.iter().filter(|s| s.order.iter().any(|n| n == "t015_long")).count();
        // Exact order: the original and its reverse. libtest: the original (name order) and two
        // orders whose seeds were chosen to run it last and first.
        assert_eq!(in_orders, if honours { 2 } else { 3 }, "honours {honours}: {:#?}", r.schedules);
        assert!(r.schedules.len() > in_orders, "the shuffles ran without it");
        let v = entry(&r, "t003_victim");
        assert_eq!(
            (v.verdict, v.polluters.clone()),
            (OrderVerdict::Victim, vec!["t015_long".to_owned()])
        );
        let alone = entry(&r, "t015_long")
            .evidence
            .iter()
            .find(|e| e.kind == EvidenceKind::Isolated)
            .unwrap()
            .detail
            .clone();
        assert_eq!(alone, "1 of 1 isolated runs");
    }
    // A slow test that is not longer than the others together runs in every shared order.
    let mut sc = clean(20);
    sc[5] = SimScenario::new("t005_slow").takes(Duration::from_millis(1));
    let r = run(&SimTarget::new(sc, true, 1), &config(5, 1));
    let runs_of = |name: &str| r.schedules.iter().filter(|s| s.order.iter().any(|n| n == name)).count();
    assert_eq!(runs_of("t005_slow"), DEFAULT_SHUFFLES + 2);
}

#[test]
fn side_by_side_processes_reach_the_same_verdicts() {
    let s = SimScenario::new;
    let scenarios = || {
        vec![
            s("a_crash").crashes(),
            s("b_victim").fails_if("p"),
            s("c_brittle").fails_unless("i"),
            s("d_pol").sets("p"),
            s("e_init").sets("i"),
            s("f_fails").always_fails(),
            s("g_ok"),
        ]
    };
    let one = run(&SimTarget::new(scenarios(), false, 2), &config(11, 1));
    let four = run(&SimTarget::new(scenarios(), false, 2), &config(11, 4));
    let verdicts = |r: &DetectResult| -> Vec<(String, OrderVerdict, Vec<String>, Vec<String>)> {
        r.entries
            .iter()
            .map(|e| (e.name.clone(), e.verdict, e.polluters.clone(), e.state_setters.clone()))
            .collect()
    };
    assert_eq!(verdicts(&one), verdicts(&four));
    assert_eq!(entry(&four, "b_victim").polluters, ["d_pol"]);
    assert_eq!(entry(&four, "c_brittle").state_setters, ["e_init"]);
    // The same runs alone; top-up shuffles go one per worker at a time, so their number may differ.
    assert_eq!(one.counts.isolated, four.counts.isolated);
}

#[test]
fn a_spent_budget_leaves_every_verdict_unknown_with_the_runs_that_would_decide_it() {
    let mut cfg = config(1, 1);
    cfg.deadline = Some(Instant::now());
    let r = run(&SimTarget::new(clean(5), true, 1), &cfg);
    assert_eq!(r.counts.total, 0);
    for e in &r.entries {
        assert_eq!(e.verdict, OrderVerdict::Unknown);
        let kinds: Vec<EvidenceKind> = e.would_decide.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [EvidenceKind::Isolated, EvidenceKind::Order], "{e:#?}");
    }
}

#[test]
fn a_budget_spent_mid_way_keeps_what_ran_and_says_what_is_left() {
    // One process at a time: the isolated runs (the slow test's takes 0.5 s), then the original
    // order (another 0.5 s) spends the 0.75 s budget; the rest of the orders never start.
    let s = SimScenario::new;
    let sc = vec![
        s("a_pol").sets("x"),
        s("b_victim").fails_if("x"),
        s("c_slow").takes(Duration::from_millis(500)),
    ];
    let mut cfg = config(1, 1);
    cfg.budget = Some(Duration::from_millis(750));
    let r = run(&SimTarget::new(sc, true, 1), &cfg);
    assert_eq!(
        (r.counts.isolated, r.counts.shared, r.counts.localization),
        (3, 1, 0),
        "{:?}",
        r.counts
    );
    let v = entry(&r, "b_victim");
    assert_eq!(v.verdict, OrderVerdict::Unknown);
    // It failed after a_pol in the original order: more runs alone would tell flaky from
    // order-dependent, and shared orders would show it after c_slow.
    assert!(
        v.would_decide
            .iter()
            .any(|w| w.kind == EvidenceKind::Isolated && w.runs == CANDIDATE_ISOLATED - 1),
        "{v:#?}"
    );
    assert!(v.evidence.iter().any(|e| e.outcome == "failed"), "{v:#?}");
    // a_pol ran first in the only order: c_slow and b_victim never ran before it.
    let p = entry(&r, "a_pol");
    assert_eq!(p.verdict, OrderVerdict::Unknown);
    assert!(
        p.would_decide
            .iter()
            .any(|w| w.kind == EvidenceKind::Shuffle && w.detail.contains("the 2 scenarios")),
        "{p:#?}"
    );
}
