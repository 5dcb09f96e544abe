//! Detect against simulated targets with planted dependencies, compared with a model of the
//! expected verdicts and culprits (suite-like and libtest-like), plus the cost of localization.

use std::path::PathBuf;

use super::pipeline::{DetectConfig, DetectResult, detect};
use super::simulate::{SimScenario, SimTarget};
use super::subject::OrderTarget;
use crate::model::OrderVerdict;

/// name -> (verdict, polluters, state_setters, cleaners)
type Model = Vec<(&'static str, OrderVerdict, Vec<&'static str>, Vec<&'static str>, Vec<&'static str>)>;

fn planted() -> (Vec<SimScenario>, Model) {
    use OrderVerdict::*;
    let s = SimScenario::new;
    let scenarios = vec![
        s("a_pass"),
        s("b_victim_of_late").fails_if("late"),
        s("c_polluter_one").sets("two"),
        s("d_setter").sets("init"),
        s("e_polluter_masked").sets("env"),
        s("f_cleaner").clears("env"),
        s("g_victim_masked").fails_if("env"),
        s("h_crasher").crashes(),
        s("i_flaky").flaky(0.5),
        s("j_always_fails").always_fails(),
        s("k_brittle").fails_unless("init"),
        s("l_measure").measures(1000.0, "knob", 3.0),
        s("m_victim_two").fails_if("two"),
        s("n_env_mutator").sets_env("SIM_VAR"),
        s("r_knob_setter").sets("knob"),
        s("x_polluter_two").sets("two"),
        s("z_polluter_late").sets("late"),
    ];
    let model: Model = vec![
        ("a_pass", Pass, vec![], vec![], vec![]),
        ("b_victim_of_late", Victim, vec!["z_polluter_late"], vec![], vec![]),
        ("c_polluter_one", Pass, vec![], vec![], vec![]),
        ("d_setter", Pass, vec![], vec![], vec![]),
        ("e_polluter_masked", Pass, vec![], vec![], vec![]),
        ("f_cleaner", Pass, vec![], vec![], vec![]),
        ("g_victim_masked", Victim, vec!["e_polluter_masked"], vec![], vec!["f_cleaner"]),
        ("h_crasher", Fail, vec![], vec![], vec![]),
        ("i_flaky", Flaky, vec![], vec![], vec![]),
        ("j_always_fails", Fail, vec![], vec![], vec![]),
        ("k_brittle", Brittle, vec![], vec!["d_setter"], vec![]),
        ("l_measure", Pass, vec![], vec![], vec![]),
        ("m_victim_two", Victim, vec!["c_polluter_one", "x_polluter_two"], vec![], vec![]),
        ("n_env_mutator", Pass, vec![], vec![], vec![]),
        ("r_knob_setter", Pass, vec![], vec![], vec![]),
        ("x_polluter_two", Pass, vec![], vec![], vec![]),
        ("z_polluter_late", Pass, vec![], vec![], vec![]),
    ];
    (scenarios, model)
}

/// One process at a time: a simulated target draws its flakiness from one seeded stream, which
/// processes side by side would consume in any order.
fn run(target: &dyn OrderTarget, seed: u64, shuffles: usize) -> DetectResult {
    run_with(target, seed, shuffles, 1)
}

fn run_with(target: &dyn OrderTarget, seed: u64, shuffles: usize, jobs: usize) -> DetectResult {
    let listed = target.list().unwrap();
    let mut cfg = DetectConfig::new(seed, PathBuf::from("/nonexistent"));
    cfg.shuffles = shuffles;
    cfg.jobs = jobs;
    detect(target, &listed, &cfg, &mut cfg.executor(), &mut crate::events::Reporters::new()).unwrap()
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v
}

fn check_model(result: &DetectResult, model: &Model, what: &str) {
    assert_eq!(result.entries.len(), model.len(), "{what}");
    for (name, verdict, polluters, setters, cleaners) in model {
        let e = result
            .entries
            .iter()
            .find(|e| e.name == *name)
            .unwrap_or_else(|| panic!("{what}: no entry {name}"));
        let ctx = format!("{what}: {name}: {e:#?}");
        assert_eq!(e.verdict, *verdict, "{ctx}");
        assert_eq!(sorted(&e.polluters), *polluters, "{ctx}");
        assert_eq!(sorted(&e.state_setters), *setters, "{ctx}");
        assert_eq!(sorted(&e.cleaners), *cleaners, "{ctx}");
        assert_eq!(e.failure_rate.is_some(), *verdict == OrderVerdict::Flaky, "{ctx}");
    }
}

#[test]
fn suite_like_target_matches_the_model_over_seeds() {
    let mut covered = 0;
    for seed in 1..=6 {
        let (scenarios, model) = planted();
        let target = SimTarget::new(scenarios, true, seed * 7919 + 1);
        let r = run(&target, seed, 12);
        check_model(&r, &model, &format!("suite seed {seed}"));
        // The knob shifts the measurement by +200%, localized to its setter.
        let m = r.entries.iter().find(|e| e.name == "l_measure").unwrap();
        assert_eq!(m.value_shifts.len(), 1, "{m:#?}");
        let s = &m.value_shifts[0];
        assert_eq!(s.culprits, vec!["r_knob_setter"]);
        // (Coverage of the interval itself is checked by a simulation in values.rs.)
        assert!(
            s.low_pct > 150.0 && s.high_pct < 250.0 && s.low_pct < s.shift_pct && s.p_adjusted < 0.05,
            "{s:?}"
        );
        assert!(
            r.entries
                .iter()
                .filter(|e| e.name != "l_measure")
                .all(|e| e.value_shifts.is_empty())
        );
        // Env mutation is a hazard even though nothing failed.
        let h = r.entries.iter().find(|e| e.name == "n_env_mutator").unwrap();
        assert_eq!(h.hazards.len(), 1);
        assert_eq!(h.hazards[0].name, "SIM_VAR");
        // The flaky rate's 95% interval covers the planted 50% (most of the time).
        let f = r
            .entries
            .iter()
            .find(|e| e.name == "i_flaky")
            .unwrap()
            .failure_rate
            .clone()
            .unwrap();
        assert!(f.n >= 20, "{f:?}");
        covered += usize::from(f.low < 0.5 && 0.5 < f.high);
    }
    assert!(covered >= 5, "{covered} of 6 intervals cover the planted rate");
}

#[test]
fn libtest_like_target_matches_the_model_over_seeds() {
    for seed in 1..=6 {
        let (scenarios, model) = planted();
        let target = SimTarget::new(scenarios, false, seed * 104_729);
        let r = run(&target, seed, 12);
        check_model(&r, &model, &format!("libtest seed {seed}"));
        assert!(r.shuffle.trusted(), "{:?}", r.shuffle);
        // A binary whose shuffles are not libtest's: predictions fail, seeds are tried instead.
        let (scenarios, _) = planted();
        let foreign = SimTarget::new(scenarios, false, seed * 104_729).shuffling_unlike_libtest();
        let f = run(&foreign, seed, 12);
        check_model(&f, &model, &format!("foreign shuffle seed {seed}"));
        assert!(!f.shuffle.trusted() && f.shuffle.differed > 0, "{:?}", f.shuffle);
    }
}

#[test]
fn a_crash_does_not_hide_the_verdicts_after_it() {
    // Alphabetically the crasher runs first in the original order; everything after it still
    // gets observed in that schedule through a continuation process.
    let s = SimScenario::new;
    let target = SimTarget::new(
        vec![s("a_crash").crashes(), s("b_ok"), s("c_victim").fails_if("p"), s("d_pol").sets("p")],
        true,
        3,
    );
    let r = run(&target, 9, 0);
    let original = &r.schedules[0];
    assert_eq!(original.order, vec!["a_crash", "b_ok", "c_victim", "d_pol"]);
    let v = r.entries.iter().find(|e| e.name == "c_victim").unwrap();
    assert_eq!((v.verdict, v.polluters.clone()), (OrderVerdict::Victim, vec!["d_pol".to_owned()]));
    assert_eq!(r.entries[0].verdict, OrderVerdict::Fail);
}

#[test]
fn localization_is_logarithmic_in_the_prefix() {
    // One victim among 128 scenarios, its polluter in the middle: bisection over a prefix of
    // about 64 takes about log2(64) = 6 runs plus the confirmation, never all pairs.
    let mut sc: Vec<SimScenario> = (0..127).map(|i| SimScenario::new(format!("t{i:03}"))).collect();
    sc[60] = SimScenario::new("t060").sets("x");
    sc.push(SimScenario::new("t200_victim").fails_if("x"));
    let target = SimTarget::new(sc, true, 1);
    let r = run(&target, 4, 0);
    let v = r.entries.iter().find(|e| e.name == "t200_victim").unwrap();
    assert_eq!(v.polluters, vec!["t060"]);
    assert!(r.counts.localization <= 10, "{} localization runs", r.counts.localization);
}

#[test]
fn a_victims_evidence_keeps_the_tail_of_a_long_order() {
    // 127 scenarios before the victim in the original order: its evidence keeps the last
    // ORDER_TAIL names of each run and counts the rest, and the schedule keeps the whole order.
    let mut sc: Vec<SimScenario> = (0..127).map(|i| SimScenario::new(format!("t{i:03}"))).collect();
    sc[5] = SimScenario::new("t005").sets("x");
    sc.push(SimScenario::new("t200_victim").fails_if("x"));
    let target = SimTarget::new(sc, true, 1);
    let r = run(&target, 4, 0);
    assert_eq!(r.schedules[0].order.len(), 128);
    let v = r.entries.iter().find(|e| e.name == "t200_victim").unwrap();
    assert_eq!(v.polluters, vec!["t005"]);
    let original = v.evidence.iter().find(|e| e.kind == crate::model::EvidenceKind::Order).unwrap();
    assert_eq!(original.order.len(), crate::model::Evidence::ORDER_TAIL);
    assert_eq!(original.order_skipped + original.order.len(), 128);
    assert_eq!(original.order.last().map(String::as_str), Some("t200_victim"));
    assert!(v.evidence.iter().all(|e| e.order.len() <= crate::model::Evidence::ORDER_TAIL));
    assert!(v.evidence.iter().any(|e| e.order_skipped > 0));
}

#[test]
fn flaky_scenarios_are_rarely_called_order_dependent() {
    // A 50% flaky scenario among polluters: over 40 seeds it must be `flaky` at least 38 times
    // (misreading needs 10 isolated runs alike, p = 0.002, and then two confirming pairs).
    let mut flaky = 0;
    for seed in 0..40u64 {
        let s = SimScenario::new;
        let target = SimTarget::new(
            vec![s("a").sets("x"), s("b"), s("c_flaky").flaky(0.5), s("d").sets("y")],
            true,
            seed * 31 + 7,
        );
        let r = run(&target, seed, 6);
        flaky += usize::from(r.entries[2].verdict == OrderVerdict::Flaky);
    }
    assert!(flaky >= 38, "{flaky} of 40");
}

#[test]
fn run_detect_reports_every_process_phase_and_finding_on_the_seam() {
    let (scenarios, model) = planted();
    let target: Box<dyn OrderTarget> = Box::new(SimTarget::new(scenarios, true, 5));
    let mut cfg = DetectConfig::new(5, PathBuf::from("/nonexistent"));
    cfg.shuffles = 2;
    let mut rec = crate::events::Recorder::default();
    let found = super::run_detect(&[target], &crate::plan::Selection::default(), &cfg, vec!["x".into()], &mut rec).unwrap();
    let count = |p: &str| rec.seen.iter().filter(|e| e.starts_with(p)).count();
    assert_eq!(rec.seen.first().map(String::as_str), Some("started 0"));
    assert_eq!(rec.seen.last().map(String::as_str), Some("finished"));
    // Every process the counts say was spent was reported, started and finished.
    assert_eq!(count("done "), found.run.runs.total);
    assert_eq!(count("start "), found.run.runs.total);
    assert_eq!(count("finding"), model.len());
    // Isolated runs and shared orders are one pool (both phases start before any process);
    // the extra isolated runs of scenarios that failed somewhere are part of the verdicts: those
    // of flaky and failing ones and the first of candidates before localization, the rest of
    // candidates' after it (as many as its evidence leaves needed).
    let phases: Vec<&str> = rec.seen.iter().filter(|e| e.starts_with("phase ")).map(String::as_str).collect();
    assert_eq!(phases.len(), 5, "{phases:?}");
    assert!(phases[0].starts_with("phase isolated ") && phases[1].starts_with("phase shared ") && phases[2] == "phase verdicts 0");
    assert!(phases[3].starts_with("phase extra_isolated "), "{phases:?}");
    assert!(phases[4].starts_with("phase extra_isolated "), "{phases:?}");
    let first_process = rec.seen.iter().position(|e| e.starts_with("start ")).unwrap();
    let shared_started = rec.seen.iter().position(|e| e.starts_with("phase shared")).unwrap();
    assert!(shared_started < first_process);
    // Every process is attributed to its phase, and detect-run.json counts them per phase.
    assert_eq!(count("in "), found.run.runs.total);
    let per_phase: usize = found.run.phases.iter().map(|p| p.processes).sum();
    assert_eq!(per_phase, found.run.runs.total);
    let phase_names: Vec<&str> = found.run.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(phase_names, ["isolated", "shared", "extra_isolated", "localization"]);
    // One run alone each up front, five for the one measurement (its interval needs them).
    assert_eq!(count("in isolated"), 16 + 5);
    assert!(found.found_anything());
}

/// Records the backtrace settings each process was started with.
struct EnvSpy {
    inner: SimTarget,
    seen: std::sync::Mutex<Vec<(Option<String>, Option<String>)>>,
    /// The scenarios of each process started with `RUST_BACKTRACE` other than 0.
    traced: std::sync::Mutex<Vec<Vec<String>>>,
}

impl EnvSpy {
    fn new(scenarios: Vec<SimScenario>) -> Self {
        EnvSpy {
            inner: SimTarget::new(scenarios, true, 3),
            seen: Default::default(),
            traced: Default::default(),
        }
    }

    /// Detect over it with the user's `RUST_BACKTRACE=1`.
    fn detect_with_backtrace(&self) -> DetectResult {
        let listed = self.list().unwrap();
        let mut cfg = DetectConfig::new(3, PathBuf::from("/nonexistent"));
        cfg.shuffles = 2;
        cfg.backtrace = vec![("RUST_BACKTRACE".into(), "1".into())];
        detect(self, &listed, &cfg, &mut cfg.executor(), &mut crate::events::Reporters::new()).unwrap()
    }
}

impl OrderTarget for EnvSpy {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn list(&self) -> Result<Vec<crate::model::Listed>, crate::errors::Error> {
        self.inner.list()
    }
    fn run_seeded(&self, req: &crate::execute::TargetRequest, seed: Option<u64>) -> std::io::Result<crate::execute::ProcessResult> {
        let get = |v: &str| req.env.get(v).cloned();
        self.seen.lock().unwrap().push((get("RUST_BACKTRACE"), get("RUST_LIB_BACKTRACE")));
        if get("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            self.traced.lock().unwrap().push(req.names.clone());
        }
        self.inner.run_seeded(req, seed)
    }
    fn honours_order(&self) -> bool {
        self.inner.honours_order()
    }
    fn kind_name(&self) -> &'static str {
        self.inner.kind_name()
    }
    fn observes_env(&self) -> bool {
        self.inner.observes_env()
    }
}

#[test]
fn every_test_process_runs_without_backtraces() {
    let s = SimScenario::new;
    let spy = EnvSpy::new(vec![s("a").sets("x"), s("b").fails_if("x"), s("c")]);
    let r = run(&spy, 3, 2);
    assert_eq!(r.entries[1].verdict, OrderVerdict::Victim);
    let seen = spy.seen.lock().unwrap();
    assert!(seen.len() >= 5, "{seen:?}");
    let off = (Some("0".to_owned()), Some("0".to_owned()));
    assert!(seen.iter().all(|e| *e == off), "{seen:?}");
}

#[test]
fn a_users_backtrace_reaches_one_final_run_per_finding_only() {
    let s = SimScenario::new;
    let spy = EnvSpy::new(vec![s("a").sets("x"), s("b").fails_if("x"), s("c"), s("d").always_fails()]);
    let r = spy.detect_with_backtrace();
    let verdict = |n: &str| r.entries.iter().find(|e| e.name == n).unwrap();
    assert_eq!(verdict("b").verdict, OrderVerdict::Victim);
    assert_eq!(verdict("d").verdict, OrderVerdict::Fail);
    // Exactly two traced processes: the victim after its polluter, the failing test alone.
    let mut traced = spy.traced.lock().unwrap().clone();
    traced.sort();
    assert_eq!(traced, [vec!["a".to_owned(), "b".to_owned()], vec!["d".to_owned()]]);
    for n in ["b", "d"] {
        let e = verdict(n);
        assert!(e.backtrace.as_deref().is_some_and(|m| !m.is_empty()), "{e:#?}");
    }
    assert!(verdict("a").backtrace.is_none() && verdict("c").backtrace.is_none());
    // Every other process ran with backtraces off; the final runs count as localization.
    let seen = spy.seen.lock().unwrap();
    let off = (Some("0".to_owned()), Some("0".to_owned()));
    assert_eq!(seen.iter().filter(|e| **e != off).count(), 2, "{seen:?}");
    assert_eq!(r.counts.total, seen.len());
}

/// Past `MAX_BACKTRACES` findings the final traced runs stop, and the rest are counted.
#[test]
fn backtrace_runs_stop_at_their_cap_and_count_the_rest() {
    let n = super::backtrace::MAX_BACKTRACES + 5;
    let spy = EnvSpy::new((0..n).map(|i| SimScenario::new(format!("f{i:02}")).always_fails()).collect());
    let r = spy.detect_with_backtrace();
    assert!(r.entries.iter().all(|e| e.verdict == OrderVerdict::Fail));
    assert_eq!(spy.traced.lock().unwrap().len(), super::backtrace::MAX_BACKTRACES);
    assert_eq!(
        r.entries.iter().filter(|e| e.backtrace.is_some()).count(),
        super::backtrace::MAX_BACKTRACES
    );
    assert_eq!(r.backtraces_skipped, 5);
}
