//! The `run` pipeline against a fixture suite with known behaviour, through real processes.

#[path = "common/kill_mid_run.rs"]
mod kill_mid_run;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use harness::model::{Outcome, ResultsFile, RunRecord, Verdict};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_outcomes");

fn run_fixture(dir: &Path, args: &[&str], envs: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(FIXTURE);
    cmd.args(args).arg("--out").arg(dir.join("out"));
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().expect("fixture runs")
}

fn results(dir: &Path) -> ResultsFile {
    let text = std::fs::read_to_string(dir.join("out/results.json")).expect("results.json written");
    serde_json::from_str(&text).expect("results.json parses")
}

fn only<'a>(r: &'a ResultsFile, name: &str) -> &'a RunRecord {
    let mut it = r.runs.iter().filter(|x| x.scenario == name);
    let first = it.next().unwrap_or_else(|| panic!("no run of {name}"));
    assert!(it.next().is_none(), "{name} ran more than once");
    first
}

#[test]
fn every_way_a_child_ends_is_a_result_and_the_suite_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_fixture(dir.path(), &["outcomes/", "--seed", "1"], &[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "failures make the exit status 1; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = results(dir.path());
    assert_eq!(only(&r, "outcomes/passes").outcome, Outcome::Passed);
    assert_eq!(
        only(&r, "outcomes/returns_err").outcome,
        Outcome::Failed {
            message: "planted error".into()
        }
    );
    match &only(&r, "outcomes/panics").outcome {
        Outcome::Failed { message } => assert!(
            message.starts_with("planted panic (at ") && message.contains("fixture_outcomes.rs"),
            "{message}"
        ),
        other => panic!("panics: {other:?}"),
    }
    assert_eq!(
        only(&r, "outcomes/aborts").outcome,
        Outcome::Crashed {
            signal: "SIGABRT".into(),
            signal_number: 6
        }
    );
    assert_eq!(
        only(&r, "outcomes/segfaults").outcome,
        Outcome::Crashed {
            signal: "SIGSEGV".into(),
            signal_number: 11
        }
    );
    assert_eq!(only(&r, "outcomes/hangs").outcome, Outcome::TimedOut { after_s: 0.5 });
    let garbage = only(&r, "outcomes/garbage_stdout");
    assert_eq!(garbage.outcome, Outcome::Passed, "stdout is kept, never parsed");
    assert!(garbage.stdout.contains("test result: FAILED"), "stdout kept: {:?}", garbage.stdout);
    assert_eq!(only(&r, "outcomes/exits_silently").outcome, Outcome::NoResult { exit_code: 0 });
    assert!(matches!(
        only(&r, "outcomes/corrupts_result_channel").outcome,
        Outcome::ProtocolGarbage { .. }
    ));
    assert_eq!(
        only(&r, "outcomes/skips").outcome,
        Outcome::Skipped {
            reason: "no CUDA driver".into()
        }
    );
    let panicked = only(&r, "outcomes/panics");
    assert!(panicked.stderr.contains("planted panic"), "stderr kept: {:?}", panicked.stderr);

    let verdict = |n: &str| r.summaries.iter().find(|s| s.scenario == n).unwrap().verdict;
    assert_eq!(verdict("outcomes/passes"), Verdict::Passed);
    assert_eq!(verdict("outcomes/segfaults"), Verdict::Failed);
    assert_eq!(verdict("outcomes/skips"), Verdict::Skipped);
    // Every finished run is also in the crash-safe log, and the CSV has a row per run.
    let jsonl = std::fs::read_to_string(dir.path().join("out/results.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), r.runs.len());
    let csv = std::fs::read_to_string(dir.path().join("out/results.csv")).unwrap();
    assert_eq!(csv.lines().count(), r.runs.len() + 1);
}

fn order_log(seed: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let log = dir.join("order.log");
    let out = run_fixture(
        dir,
        &["order/", "--test-threads", "1", "--repeat", "2", "--seed", seed],
        &[("FIXTURE_ORDER_LOG", &log)],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with(&format!("seed: {seed} ")), "the seed is printed first: {stdout}");
    let r = results(dir);
    assert_eq!(r.meta.seed.to_string(), seed);
    assert!(r.meta.command.ends_with(&["--seed".to_string(), seed.to_string()]));
    let executed: Vec<String> = r.runs.iter().map(|x| x.scenario.clone()).collect();
    let logged: Vec<String> = std::fs::read_to_string(log).unwrap().lines().map(String::from).collect();
    assert_eq!(logged, executed, "the processes ran in the recorded order");
    logged
}

#[test]
fn the_same_seed_gives_the_same_order_and_another_seed_another() {
    let a = order_log("42");
    let b = order_log("42");
    let c = order_log("43");
    assert_eq!(a.len(), 12);
    assert_eq!(a, b);
    assert_ne!(a, c);
    let mut sorted = a.clone();
    sorted.sort();
    assert_ne!(a, sorted, "shuffled, not alphabetical");
}

#[test]
fn env_matrix_variants_each_see_their_own_value() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("env.log");
    let out = run_fixture(dir.path(), &["env/", "--repeat", "3", "--seed", "3"], &[("FIXTURE_ENV_LOG", &log)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = results(dir.path());
    for mode in ["1", "2", "3"] {
        let name = format!("env/sees_own_mode[FIXTURE_MODE={mode}]");
        let runs: Vec<&RunRecord> = r.runs.iter().filter(|x| x.scenario == name).collect();
        assert_eq!(runs.len(), 3, "{name}");
        for run in runs {
            assert_eq!(run.env.get("FIXTURE_MODE").map(String::as_str), Some(mode));
            assert_eq!(
                run.metric("mode").unwrap().value,
                mode.parse::<f64>().unwrap(),
                "{name} saw another variant's env"
            );
        }
    }
    // Nine processes, nine distinct pids, three of each mode.
    let lines: Vec<String> = std::fs::read_to_string(log).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), 9);
    let pids: std::collections::HashSet<&str> = lines.iter().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(pids.len(), 9, "one process per run");
}

/// Seeds of the two-level fixture: each draws its own sequence of levels.
const TWO_LEVEL_SEEDS: u64 = 20;

/// Each process of `measure/two_level` settles at 1.0 or 1.3 with probability 1/2 (drawn from a
/// seed), so the per-process values are exactly the two levels. The geometric centre the harness
/// reports estimates exp(E ln X) = sqrt(1.3). Over 20 seeds of 10 processes the between-process
/// interval must cover it in at least 17 (the exact coverage of the t-interval on logs for this
/// Bernoulli mixture at n = 10 is 0.979, so 17 or more of 20 has probability 0.999), while every
/// interval from one process's iterations alone misses it (they are 1% wide around one level).
#[test]
fn a_between_process_interval_captures_a_two_level_process_where_an_in_process_one_does_not() {
    let truth = 1.3f64.sqrt();
    let (mut covered, mut high_counts) = (0, Vec::new());
    for seed in 0..TWO_LEVEL_SEEDS {
        let dir = tempfile::tempdir().unwrap();
        let counter = dir.path().join("counter");
        let seed_s = seed.to_string();
        let mut cmd = Command::new(FIXTURE);
        cmd.args(["measure/two_level", "--repeat", "10", "--iterations", "30", "--seed", "9", "--out"])
            .arg(dir.path().join("out"))
            .env("FIXTURE_COUNTER", &counter)
            .env("FIXTURE_LEVEL_SEED", &seed_s);
        let out = cmd.output().expect("fixture runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r = results(dir.path());
        let m = &r.summaries[0].metrics[0];
        assert_eq!(m.stats.n, 10);
        let highs = r.runs.iter().filter(|run| run.metric("level").unwrap().value > 1.15).count();
        high_counts.push(highs);
        let ci = m.stats.ci.as_ref();
        if ci.is_some_and(|ci| ci.low < truth && truth < ci.high) {
            covered += 1;
        }
        if (1..10).contains(&highs) {
            let split = m
                .stats
                .variance_split
                .as_ref()
                .expect("within-process values give a variance split");
            assert!(
                split.between_share > 0.9,
                "seed {seed}: the between share says repeat processes, {split:?}"
            );
        }
        // Criterion-style: an interval from one process's iterations alone.
        for run in &r.runs {
            let it = &run.metric("level").unwrap().iterations;
            let ci = harness::stats::t_interval(it, 0.95).unwrap();
            assert!(
                !(ci.low < truth && truth < ci.high),
                "seed {seed}: in-process interval {ci:?} covered {truth}"
            );
        }
    }
    println!("covered sqrt(1.3) in {covered} of {TWO_LEVEL_SEEDS} seeds; high-level processes per seed: {high_counts:?}");
    // The levels are drawn, not alternated: the split of 10 processes varies between seeds.
    let distinct: std::collections::BTreeSet<_> = high_counts.iter().collect();
    assert!(distinct.len() >= 3, "processes at the high level per seed: {high_counts:?}");
    assert!(
        covered >= 17,
        "between-process interval covered sqrt(1.3) in {covered} of {TWO_LEVEL_SEEDS} seeds ({high_counts:?})"
    );
}

#[test]
fn kill_9_mid_run_leaves_every_finished_run_parseable() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir: PathBuf = dir.path().join("out");
    let jsonl = out_dir.join("results.jsonl");
    // Kill the harness without warning once a few runs are on disk.
    kill_mid_run::kill_after_runs(
        Command::new(FIXTURE)
            .args(["slow/", "--repeat", "10", "--test-threads", "1", "--seed", "4", "--out"])
            .arg(&out_dir),
        &jsonl,
        3,
    );
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let runs: Vec<RunRecord> = text.lines().map(|l| serde_json::from_str(l).expect("every line parses")).collect();
    assert!(runs.len() >= 3 && runs.len() < 40, "{} runs", runs.len());
    assert!(runs.iter().all(|r| r.outcome == Outcome::Passed));
    // The metadata written at the start survives too, and the report reader recovers the runs.
    let recovered = harness::report::read_results(&out_dir).expect("a killed run reads back");
    assert_eq!(recovered.meta.seed, 4);
    assert_eq!(recovered.runs.len(), runs.len());
}

#[test]
fn bad_input_gets_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["--no-such-flag"], "--no-such-flag"),
        (&["--repeat", "0"], "'--repeat'"),
        (&["--iterations", "many"], "'--iterations'"),
        (&["--target-ci", "200"], "'--target-ci'"),
        (&["--seed", "x1"], "'--seed'"),
        (&["--min-time", "5", "--partition", "1/2"], "--min-time 5"),
    ];
    for (args, needle) in cases {
        let out = Command::new(FIXTURE)
            .args(args)
            .arg("--out")
            .arg(dir.path().join("o"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: error does not name {needle}: {err}");
    }
    // An output directory that cannot be created.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"").unwrap();
    let out = Command::new(FIXTURE)
        .args(["outcomes/passes", "--out"])
        .arg(blocker.join("sub"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(3),
        "an unwritable --out is an I/O error (README: exit 3): {err}"
    );
    assert!(err.contains("--out") && err.contains("file/sub"), "{err}");
    // A filter that matches nothing.
    let out = Command::new(FIXTURE)
        .args(["no/such/scenario", "--out"])
        .arg(dir.path().join("o2"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/scenario"));
}

#[test]
fn lists_like_libtest_for_nextest() {
    let out = Command::new(FIXTURE).args(["--list", "--format", "terse"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().all(|l| l.ends_with(": test")), "{text}");
    assert!(text.contains("env/sees_own_mode[FIXTURE_MODE=2]: test"));
    let out = Command::new(FIXTURE).args(["--list", "order/"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("\n6 tests, 0 benchmarks\n"));
}

#[test]
fn target_ci_adds_runs_only_where_the_interval_is_too_wide() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_fixture(
        dir.path(),
        &[
            "adaptive/",
            "--repeat",
            "3",
            "--target-ci",
            "5",
            "--max-repeat",
            "12",
            "--seed",
            "5",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = results(dir.path());
    let n = |name: &str| r.runs.iter().filter(|x| x.scenario == name).count();
    assert_eq!(n("adaptive/tight"), 3, "tight enough after the first batch");
    let noisy = r.summaries.iter().find(|s| s.scenario == "adaptive/noisy").unwrap();
    let width = noisy.metrics[0].stats.rel_half_width.unwrap();
    // +-50% uniform noise cannot reach a 5% half-width in 12 runs: it gets the cap.
    assert_eq!(n("adaptive/noisy"), 12, "half-width {width}");
    assert!(width > 0.05);
}

/// `--min-time`: each measurement gets rounds of more processes until the run has lasted it,
/// capped by `--max-repeat`, and the rounds interleave the measurements.
#[test]
fn min_time_spreads_each_measurements_processes_over_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["adaptive/", "--repeat", "2", "--min-time", "1", "--max-repeat", "9", "--seed", "5"];
    let out = run_fixture(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = results(dir.path());
    assert_eq!(r.meta.min_time_s, Some(1.0));
    let indices = |name: &str| {
        r.runs
            .iter()
            .filter(|x| x.scenario == name)
            .map(|x| x.run_index)
            .collect::<Vec<_>>()
    };
    let (tight, noisy) = (indices("adaptive/tight"), indices("adaptive/noisy"));
    // Two of these processes take well under a second: the cap decides.
    assert_eq!((tight.len(), noisy.len()), (9, 9));
    let span = |v: &[usize]| (*v.iter().min().unwrap(), *v.iter().max().unwrap());
    let ((t0, t1), (n0, n1)) = (span(&tight), span(&noisy));
    assert!(t0 < n1 && n0 < t1, "the measurements' processes interleave: {tight:?} {noisy:?}");
    // Without it, outside `cargo bench`, --repeat is the count.
    let dir = tempfile::tempdir().unwrap();
    let out = run_fixture(dir.path(), &["adaptive/", "--repeat", "2", "--seed", "5"], &[]);
    assert!(out.status.success());
    let r = results(dir.path());
    assert_eq!((r.runs.len(), r.meta.min_time_s), (4, None));
}

/// Leaf tests the libtest-binary test below runs in child processes of this very binary.
#[test]
fn leaf_passes() {}

#[test]
fn leaf_fails_when_asked() {
    assert!(std::env::var_os("HARNESS_LEAF_FAIL").is_none(), "asked to fail");
}

#[test]
fn runs_an_ordinary_libtest_binary_one_process_per_test() {
    let dir = tempfile::tempdir().unwrap();
    let me = std::env::current_exe().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_harness"))
        .args(["run", "--test-bin"])
        .arg(&me)
        .args(["leaf_", "--repeat", "2", "--seed", "1", "--out"])
        .arg(dir.path().join("out"))
        .env("HARNESS_LEAF_FAIL", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r = results(dir.path());
    assert_eq!(r.runs.len(), 4);
    for run in &r.runs {
        match run.scenario.as_str() {
            "leaf_passes" => assert_eq!(run.outcome, Outcome::Passed),
            "leaf_fails_when_asked" => {
                assert!(
                    matches!(&run.outcome, Outcome::Failed { message } if message.contains("asked to fail")),
                    "{:?}",
                    run.outcome
                )
            }
            other => panic!("unexpected {other}"),
        }
    }
}

/// The fixture as cargo-nextest runs it (nextest sets `NEXTEST=1`): libtest's CLI and output.
fn as_nextest(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(FIXTURE).args(args).env("NEXTEST", "1").output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn under_nextest_iterations_and_warmup_are_honoured_and_default_to_one_call() {
    let calls = |extra: &[&str]| {
        let args = [&["--exact", "calls/counted"], extra].concat();
        let (code, stdout) = as_nextest(&args);
        assert_eq!(code, Some(0), "{stdout}");
        assert!(
            stdout.contains("test calls/counted ... ") && stdout.contains("1 passed; 0 failed"),
            "{stdout}"
        );
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("calls: "))
            .map(|v| v.trim_end_matches(" count").to_owned())
            .expect("a calls line")
    };
    assert_eq!(calls(&[]), "1", "a smoke test: 1 iteration, no warm-up");
    assert_eq!(calls(&["--iterations", "3", "--warmup", "0"]), "3");
    assert_eq!(calls(&["--iterations", "4", "--warmup", "2"]), "6");
}

#[test]
fn under_nextest_every_filter_selects_like_libtest() {
    let passed = |args: &[&str]| {
        let (code, stdout) = as_nextest(args);
        assert_eq!(code, Some(0), "{args:?}: {stdout}");
        // nextest captures per test, so a child's output may follow `test NAME ... ` directly.
        let ran: Vec<String> = stdout
            .lines()
            .filter(|l| !l.ends_with("... ignored"))
            .filter_map(|l| Some(l.strip_prefix("test ")?.split_once(" ... ")?.0.to_owned()))
            .collect();
        assert!(
            stdout.contains(&format!("test result: ok. {} passed; 0 failed", ran.len())),
            "{stdout}"
        );
        ran
    };
    assert_eq!(
        passed(&["--exact", "order/s1", "order/s2"]),
        ["order/s1", "order/s2"],
        "several filters, any selects"
    );
    assert_eq!(passed(&["--exact", "order/s"]), Vec::<String>::new(), "--exact: whole names only");
    assert_eq!(passed(&["order/", "--skip", "order/s1", "--skip", "order/s4"]).len(), 4);
    assert_eq!(passed(&["calls/", "--ignored"]), ["calls/ignored"]);
    let mut both = passed(&["calls/", "--include-ignored"]);
    both.sort();
    assert_eq!(both, ["calls/counted", "calls/ignored"]);
    let (_, stdout) = as_nextest(&["calls/"]);
    assert!(stdout.contains("test calls/ignored ... ignored"), "{stdout}");
}

#[test]
fn under_nextest_a_failure_exits_like_libtest() {
    let (code, stdout) = as_nextest(&["--exact", "outcomes/returns_err"]);
    assert_eq!(code, Some(101), "{stdout}");
    assert!(
        stdout.contains("test outcomes/returns_err ... FAILED") && stdout.contains("planted error"),
        "{stdout}"
    );
}

/// The full speed a run met is left beside its output directory, for this host and boot; a later
/// run that never met it is judged against it. Here the memory is made 10x faster than this
/// machine by hand, so the second run cannot have met it whatever the machine does.
/// `HARNESS_SPEED_MEMORY=off` judges a run against itself alone.
#[test]
fn a_remembered_full_speed_judges_a_later_run_that_never_met_it() {
    if !Path::new("/proc/sys/kernel/random/boot_id").exists() {
        // Linux (CI included) has it; say so where a person sees it rather than pass silently.
        println!("SKIPPED: no /proc/sys/kernel/random/boot_id, so no speed memory on this host");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, off: bool| -> (String, ResultsFile) {
        let mut cmd = Command::new(FIXTURE);
        cmd.args(["calls/counted", "--repeat", "6", "--seed", "3", "--out"])
            .arg(dir.path().join(name));
        if off {
            cmd.env("HARNESS_SPEED_MEMORY", "off");
        } else {
            cmd.env_remove("HARNESS_SPEED_MEMORY");
        }
        let out = cmd.output().expect("fixture runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(dir.path().join(name).join("results.json")).unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            serde_json::from_str(&text).unwrap(),
        )
    };
    let file = dir.path().join(".harness-full-speed.json");
    let (_, first) = run("first", false);
    // The first run leaves its fastest where 5 processes met it; on a machine that switched
    // speed under its 6 processes it may not have, and then it must leave nothing.
    let fastest = harness::model::fastest_probe(&first.runs).expect("6 probed processes");
    let at_full = first
        .runs
        .iter()
        .filter_map(|r| r.speed_probe())
        .filter(|[s, e]| s.min(*e) <= harness::model::SLOWED_FACTOR * fastest)
        .count();
    match std::fs::read_to_string(&file) {
        Ok(text) => {
            let memory: harness::model::RememberedSpeed = serde_json::from_str(&text).unwrap();
            assert!(at_full >= 5, "{at_full} processes at its fastest, yet it left {memory:?}");
            assert_eq!(Some(&memory.boot_id), first.meta.host.boot_id.as_ref());
            assert!(
                (memory.probe_ns / fastest - 1.0).abs() < 1e-9,
                "{} against {fastest}",
                memory.probe_ns
            );
            assert!(memory.by.ends_with("first"), "{}", memory.by);
        }
        Err(_) => {
            assert!(at_full < 5, "{at_full} processes at its fastest, and no memory left");
            println!("the first run met its fastest in {at_full} of 6 processes: no memory left, as the rule says");
        }
    }

    // A whole number: serde_json's default float parsing may miss the last bit of another.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let planted = harness::model::RememberedSpeed {
        probe_ns: (fastest / 10.0).round(),
        boot_id: first.meta.host.boot_id.clone().expect("a boot id on Linux"),
        cpu: first.meta.host.cpu.clone(),
        confirmed_at: "planted by the test".into(),
        confirmed_unix_s: now,
        by: "first".into(),
    };
    std::fs::write(&file, serde_json::to_string(&planted).unwrap()).unwrap();
    let (stdout, second) = run("second", false);
    assert_eq!(second.meta.remembered_full_speed.as_ref(), Some(&planted));
    let row = &second.summaries[0];
    assert_eq!(row.verdict, Verdict::Unstable, "{row:?}");
    let why = row.metrics[0].stats.unstable_reason.as_deref().unwrap_or("");
    assert!(
        why.contains("6 of 6 processes") && why.contains("an earlier run met on this boot"),
        "{why}"
    );
    assert!(stdout.contains("this run never met the machine's full speed"), "{stdout}");
    let after: harness::model::RememberedSpeed = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(after, planted, "a run that never met the remembered speed leaves it as it was");

    let (stdout, third) = run("third", true);
    assert!(third.meta.remembered_full_speed.is_none());
    assert!(!stdout.contains("never met the machine's full speed"), "{stdout}");
}
