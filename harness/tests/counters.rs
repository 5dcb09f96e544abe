//! `--counters` through real processes: what is counted (the routine, per call, its threads) and
//! what is not (set-up, iter_custom, uncounted scenarios), crashes under valgrind, compare's
//! counter rows, and the errors when nothing can count.
//!
//! A `harness = false` target (libtest-mimic): without valgrind the tests that need it show as
//! `ignored (valgrind not installed ...)`; with `HARNESS_REQUIRE_VALGRIND=1` (set by `.ci/run`)
//! they fail instead.

use std::path::Path;
use std::process::{Command, Output};

use harness::model::{CompareEntry, CompareVerdict, ExplainStatus, MetricSummary, Outcome, ResultsFile, Verdict};
use libtest_mimic::{Arguments, Completion, Failed, Trial};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_counters");
#[path = "common/valgrind.rs"]
mod valgrind;

/// A trial that needs valgrind: ignored without it, unless CI requires it.
fn with_valgrind(name: &'static str, test: fn()) -> Trial {
    valgrind::trial(name, test)
}

fn fixture(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(FIXTURE);
    cmd.args(args).arg("--out").arg(dir).arg("--seed").arg("3");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the fixture runs")
}

fn results(dir: &Path) -> ResultsFile {
    serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).expect("results.json")).expect("parses")
}

fn metric<'a>(r: &'a ResultsFile, scenario: &str, name: &str) -> Option<&'a MetricSummary> {
    r.summaries
        .iter()
        .find(|s| s.scenario == scenario)?
        .metrics
        .iter()
        .find(|m| m.metric == name)
}

fn instructions(r: &ResultsFile, scenario: &str) -> f64 {
    metric(r, scenario, "instructions")
        .unwrap_or_else(|| panic!("{scenario} has no instructions"))
        .stats
        .center_value
}

fn counts_the_routine_alone_per_call_with_its_threads() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "count/loop",
        "count/batched",
        "count/threads",
        "count/device",
        "count/check",
        "--counters=valgrind",
        "--repeat",
        "1",
        "--iterations",
        "2",
        "--counter-processes",
        "2",
    ];
    let out = fixture(dir.path(), &args, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let r = results(dir.path());
    let (one, two) = (instructions(&r, "count/loop_100k"), instructions(&r, "count/loop_200k"));
    // Twice the loop is twice the count; the 2M-round set-up of loop_100k (20x its routine) and
    // the 1M-round input building of batched_100k are outside it.
    assert!((two / one - 2.0).abs() < 0.02, "200k/100k = {}", two / one);
    let batched = instructions(&r, "count/batched_100k");
    assert!((batched / one - 1.0).abs() < 0.02, "batched {batched} vs loop {one}");
    // Work on threads the routine starts is counted: two workers of 100k rounds each.
    let threads = instructions(&r, "count/threads_2x100k");
    assert!(threads > 1.9 * one, "threads {threads} vs one loop {one}");
    let m = metric(&r, "count/loop_200k", "instructions").unwrap();
    assert!(
        m.source.as_deref().is_some_and(|s| s.starts_with("valgrind-callgrind 3.")),
        "{:?}",
        m.source
    );
    assert!(
        m.stats.exact || m.stats.cv < 0.001,
        "a pure loop counts the same in every process: {:?}",
        m.values
    );
    assert!(metric(&r, "count/loop_200k", "estimated_cycles").is_some());
    assert!(
        metric(&r, "count/loop_200k", "latency_ns").is_some_and(|l| l.source.is_none()),
        "wall time beside"
    );
    // Counting processes: 2 per countable measurement, marked, their valgrind chatter kept in
    // stderr and never taken for a result; none for the check or the uncounted measurement.
    let counting: Vec<_> = r.runs.iter().filter(|x| x.counted_by.is_some()).collect();
    assert_eq!(
        counting.len(),
        2 * 4,
        "{:?}",
        counting.iter().map(|x| &x.scenario).collect::<Vec<_>>()
    );
    assert!(
        counting
            .iter()
            .all(|x| x.outcome == Outcome::Passed && x.stderr.contains("Callgrind"))
    );
    assert!(counting.iter().all(|x| x.metrics.iter().all(|m| m.source.is_some())), "only counts");
    assert!(metric(&r, "count/device", "instructions").is_none());
    let meta = r.meta.counters.as_ref().expect("meta records the counting");
    assert!(meta.cache.iter().any(|c| c == "--LL=8388608,16,64"), "{:?}", meta.cache);
    assert_eq!((meta.processes, meta.warmup, meta.iterations), (2, 1, 5));
    assert!(meta.uncounted.contains_key("count/device"));
    assert!(stdout.contains("not counted: count/device (stands for a CUDA kernel"), "{stdout}");
    // Every output carries the counts and their source.
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let csv = read("results.csv");
    assert!(csv.lines().next().unwrap().ends_with(",source"), "{csv}");
    assert!(
        csv.lines()
            .any(|l| l.contains(",instructions,") && l.contains("valgrind-callgrind 3.")),
        "{csv}"
    );
    let junit = read("junit.xml");
    assert!(
        junit.contains("name=\"metric.instructions\"") && junit.contains("[valgrind-callgrind 3."),
        "{junit}"
    );
    let html = read("index.html");
    assert!(html.contains("instructions (valgrind-callgrind 3.") && html.contains("<dt>counters</dt>"));
    assert!(
        html.contains("count/device (stands for a CUDA kernel"),
        "the report says what was not counted"
    );
}

fn a_crash_under_valgrind_is_a_crashed_result_with_valgrinds_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = fixture(
        dir.path(),
        &[
            "run",
            "count/crash",
            "--counters=valgrind",
            "--repeat",
            "1",
            "--counter-processes",
            "1",
        ],
        &[("FIXTURE_COUNTERS_CRASH", "1")],
    );
    assert_eq!(out.status.code(), Some(1), "a crashed measurement fails the run");
    let r = results(dir.path());
    let counted = r.runs.iter().find(|x| x.counted_by.is_some()).expect("a counting process");
    assert!(
        matches!(&counted.outcome, Outcome::Crashed { signal, .. } if signal == "SIGSEGV"),
        "{:?}",
        counted.outcome
    );
    assert!(
        counted.stderr.contains("Process terminating with default action of signal 11"),
        "valgrind's message is kept: {}",
        counted.stderr
    );
}

fn iter_custom_is_timed_but_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = fixture(
        dir.path(),
        &[
            "run",
            "count/custom",
            "--counters=valgrind",
            "--repeat",
            "2",
            "--counter-processes",
            "1",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let r = results(dir.path());
    let s = r.summaries.iter().find(|s| s.scenario == "count/custom").unwrap();
    // Measured, or unstable when two wall-time processes on a busy machine disagree: a verdict
    // about its wall time, which this test does not control; never failed or skipped.
    assert!(matches!(s.verdict, Verdict::Measured | Verdict::Unstable), "{:?}", s.verdict);
    assert!(metric(&r, "count/custom", "latency_ns").is_some());
    assert!(metric(&r, "count/custom", "instructions").is_none());
    let counted = r.runs.iter().find(|x| x.counted_by.is_some()).unwrap();
    assert!(
        matches!(&counted.outcome, Outcome::Skipped { reason } if reason.contains("iter_custom")),
        "{:?}",
        counted.outcome
    );
}

fn compare_run(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("compare-run.json")).expect("compare-run.json")).expect("JSON")
}

/// `compare` of the fixture against itself with counters, on `extra` (scenarios and flags).
fn compare_fixture(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["compare", "--baseline", FIXTURE, "--candidate", FIXTURE, "--counters=valgrind"];
    args.extend_from_slice(extra);
    fixture(dir, &args, &[])
}

fn compare_rows(dir: &Path) -> Vec<CompareEntry> {
    let text = std::fs::read_to_string(dir.join("compare.json")).expect("compare.json");
    serde_json::from_str(&text).expect("compare.json holds the rows")
}

fn compare_calls_two_percent_more_instructions_regressed_and_the_same_build_unchanged() {
    for (scale, want) in [("100", CompareVerdict::Unchanged), ("102", CompareVerdict::Regressed)] {
        let dir = tempfile::tempdir().unwrap();
        let env = format!("FIXTURE_COUNTERS_SCALE={scale}");
        let out = compare_fixture(dir.path(), &["count/scaled/loop", "--runs", "2", "--candidate-env", &env]);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows = compare_rows(dir.path());
        let row = rows.iter().find(|e| e.metric == "instructions").expect("an instructions row");
        assert_eq!(row.verdict, want, "scale {scale}: {row:?}");
        assert!(row.source.is_some());
        let md = std::fs::read_to_string(dir.path().join("compare.md")).unwrap();
        let first = md.lines().find(|l| l.starts_with("| ") && l.contains("count/scaled/loop")).unwrap();
        assert!(first.contains("instructions"), "counter rows come first: {first}");
        let run = compare_run(dir.path());
        // Exact after two pairs (every process counted the same): --counter-processes' third
        // pair would count the same again.
        assert_eq!(run["counter_pairs"], 2, "an exact scenario stops at two pairs: {run}");
        assert!(run["counting_s"].as_f64().is_some_and(|s| s > 0.0), "{run}");
    }
}

/// A candidate whose `checksum` does half again its work and which runs a new `extra_pass`:
/// the instructions row names `checksum` first with most of the change, marks `extra_pass`
/// new, and its entries plus `other` add up to the row's change.
fn compare_explains_a_counted_change_by_function() {
    let dir = tempfile::tempdir().unwrap();
    let env = "FIXTURE_COUNTERS_EXPLAIN=1";
    let out = compare_fixture(dir.path(), &["count/explain", "--runs", "2", "--candidate-env", env]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = compare_rows(dir.path());
    let row = rows.iter().find(|e| e.metric == "instructions").expect("an instructions row");
    assert_eq!(row.verdict, CompareVerdict::Regressed, "{row:?}");
    let explain = row.explain.as_ref().expect("a regressed counter row is explained");
    let change = row.candidate.as_ref().unwrap().center - row.baseline.as_ref().unwrap().center;
    assert_eq!(explain[0].function, "fixture_counters::checksum", "{explain:?}");
    let share = explain[0].delta / change;
    assert!((0.85..0.99).contains(&share), "checksum's share of the change {share}: {explain:?}");
    let extra = explain
        .iter()
        .find(|e| e.function == "fixture_counters::extra_pass")
        .expect("extra_pass listed");
    assert_eq!((extra.baseline, extra.status), (None, Some(ExplainStatus::New)), "{extra:?}");
    assert!(extra.candidate.is_some_and(|c| c > 0.0));
    let last = explain.last().unwrap();
    assert_eq!((last.function.as_str(), last.status), ("other", Some(ExplainStatus::Other)));
    let sum: f64 = explain.iter().map(|e| e.delta).sum();
    assert!(
        (sum - change).abs() <= 1e-6 * change.abs(),
        "entries + other = {sum}, the row changed by {change}"
    );
    let md = std::fs::read_to_string(dir.path().join("compare.md")).unwrap();
    assert!(md.contains("`fixture_counters::checksum +"), "{md}");
    assert!(md.contains("fixture_counters::extra_pass (new)"), "{md}");
    // The terminal: the row, then its top 3 functions right under it.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let under = stdout
        .lines()
        .skip_while(|l| !(l.starts_with("| 🔴 | `count/explain` | instructions |")))
        .nth(1)
        .unwrap_or_default();
    assert!(under.starts_with("    fixture_counters::checksum +"), "{stdout}");
    assert!(
        !stdout.contains("### Where the instructions changed"),
        "top 3 under the row, not md's top 5"
    );
    let cycles = rows.iter().find(|e| e.metric == "estimated_cycles").unwrap();
    assert!(cycles.explain.is_none(), "only instructions rows are explained");
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(html.contains("<title>fixture_counters::checksum: baseline"), "the HTML draws it");
}

/// A stripped copy of the fixture: the comparison still decides, the row says that symbols are
/// missing, and the functions are named by address in their object, which `addr2line` on the
/// unstripped fixture turns back into `checksum`.
fn a_stripped_binary_is_explained_by_address() {
    let dir = tempfile::tempdir().unwrap();
    let stripped = dir.path().join("stripped_fixture");
    let o = Command::new("objcopy").arg("--strip-all").arg(FIXTURE).arg(&stripped).output();
    assert!(
        o.is_ok_and(|o| o.status.success()),
        "objcopy --strip-all (binutils) makes the stripped copy"
    );
    let s = stripped.to_str().unwrap();
    let env = "FIXTURE_COUNTERS_EXPLAIN=1";
    let args = ["compare", "--baseline", s, "--candidate", s, "--counters=valgrind", "count/explain"];
    let out = fixture(dir.path(), &[&args[..], &["--runs", "2", "--candidate-env", env]].concat(), &[]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = compare_rows(dir.path());
    let row = rows.iter().find(|e| e.metric == "instructions").expect("an instructions row");
    assert_eq!(row.verdict, CompareVerdict::Regressed, "{row:?}");
    assert!(row.note.as_deref().is_some_and(|n| n.contains("no symbols")), "{row:?}");
    let explain = row.explain.as_ref().expect("explained by address");
    let first = &explain[0].function;
    let offset = first.strip_prefix("stripped_fixture+0x").unwrap_or_else(|| panic!("{explain:?}"));
    let change = row.candidate.as_ref().unwrap().center - row.baseline.as_ref().unwrap().center;
    assert!((0.85..0.99).contains(&(explain[0].delta / change)), "{explain:?}");
    assert!(
        explain.iter().any(|e| e.status == Some(ExplainStatus::New)),
        "extra_pass's address is new"
    );
    if let Ok(o) = Command::new("addr2line")
        .args(["-f", "-C", "-e", FIXTURE, &format!("0x{offset}")])
        .output()
    {
        let name = String::from_utf8_lossy(&o.stdout);
        assert!(name.starts_with("fixture_counters::checksum"), "{first} is {name}");
    }
}

/// Under a budget the counter rows are judged sequentially: rows that count the same in every
/// process decide at the first look and get no more counting pairs; the wall-time rows follow.
fn under_a_budget_exact_counter_rows_decide_at_the_first_look() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare_fixture(dir.path(), &["count/loop_100k", "count/loop_200k", "--budget", "2m"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{err}");
    let rows = compare_rows(dir.path());
    for r in rows.iter().filter(|r| r.metric == "instructions") {
        assert_eq!(r.verdict, CompareVerdict::Unchanged, "{r:?}");
        // The first of the counting looks at 3, 5, 8 and 12 pairs spends 1.8% of the 5%.
        assert!(
            r.level.is_some_and(|l| l > 0.98 && l < 0.99),
            "the first counting look's level: {r:?}"
        );
    }
    assert!(rows.iter().any(|r| r.metric == "latency_ns"), "wall time beside the counts");
    let run = compare_run(dir.path());
    assert_eq!(run["counter_pairs"], 2, "exact rows: two pairs, none beyond the first look: {run}");
}

/// A scenario that counts the same in every process gets two counting pairs; one whose counts
/// move with the process (std's HashMap seeds its hasher per process) gets all three.
fn exact_scenarios_are_counted_in_two_pairs_and_varying_ones_in_all() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare_fixture(dir.path(), &["count/scaled/loop", "count/scaled/hashmap", "--runs", "2"]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let counted = |name: &str| {
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["scenario"] == name && !r["counted_by"].is_null())
            .count()
    };
    assert_eq!(counted("count/scaled/loop"), 4, "exact: two pairs");
    assert_eq!(counted("count/scaled/hashmap"), 6, "varies: --counter-processes' three pairs");
    assert_eq!(compare_run(dir.path())["counter_pairs"], 3);
}

/// `run` counts a scenario in two processes where they count alike, and in all of
/// --counter-processes' three where they differ (std's HashMap seeds its hasher per process).
fn run_counts_exact_scenarios_in_two_processes_and_varying_ones_in_all() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "count/scaled/loop",
        "count/scaled/hashmap",
        "--counters=valgrind",
        "--repeat",
        "1",
    ];
    let out = fixture(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = results(dir.path());
    let counted = |name: &str| r.runs.iter().filter(|x| x.scenario == name && x.counted_by.is_some()).count();
    assert_eq!(counted("count/scaled/loop"), 2, "exact: two processes");
    assert_eq!(counted("count/scaled/hashmap"), 3, "varies: --counter-processes' three");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 counting processes (up to 3 where their counts differ)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A budget that cannot hold two counting pairs is refused after the first, with the budget
/// that would, instead of being overrun.
fn a_budget_too_small_for_the_counting_pairs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = compare_fixture(dir.path(), &["count/loop_100k", "count/loop_200k", "--budget", "1s"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--budget") && err.contains("counting pairs") && err.contains("would"),
        "{err}"
    );
}

fn detect_judges_values_on_counts() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "detect",
        "count/loop_200k",
        "count/check",
        "--counters=valgrind",
        "--isolated",
        "2",
        "--shuffles",
        "0",
    ];
    let out = fixture(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<harness::model::RunRecord> = std::fs::read_to_string(dir.path().join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every process holding the measurement ran under valgrind and counted; the check alone never.
    for r in &records {
        let counted = r.counted_by.is_some();
        match r.scenario.as_str() {
            "count/loop_200k" => assert!(counted && r.metrics.iter().any(|m| m.name == "instructions"), "{r:?}"),
            _ => assert!(counted || r.kind == harness::model::ScenarioKind::Check, "{r:?}"),
        }
    }
    assert!(
        records.iter().any(|r| r.scenario == "count/check" && r.counted_by.is_none()),
        "the check ran alone, natively"
    );
}

fn without_valgrind_the_error_says_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = fixture(
        dir.path(),
        &["run", "count/loop_100k", "--counters=valgrind"],
        &[("PATH", empty.path().to_str().unwrap())],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("apt-get install valgrind"), "{stderr}");
}

fn perf_without_a_pmu_names_what_would_work() -> Result<Completion, Failed> {
    let dir = tempfile::tempdir().unwrap();
    let out = fixture(dir.path(), &["run", "count/loop_100k", "--counters=perf", "--repeat", "1"], &[]);
    if out.status.success() {
        return Ok(Completion::ignored_with("this machine has a PMU: perf counts here"));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--counters=auto or --counters=valgrind would work"), "{stderr}");
    Ok(Completion::Completed)
}

fn main() -> std::process::ExitCode {
    let trials = vec![
        with_valgrind(
            "counts_the_routine_alone_per_call_with_its_threads",
            counts_the_routine_alone_per_call_with_its_threads,
        ),
        with_valgrind(
            "a_crash_under_valgrind_is_a_crashed_result_with_valgrinds_message",
            a_crash_under_valgrind_is_a_crashed_result_with_valgrinds_message,
        ),
        with_valgrind("iter_custom_is_timed_but_not_counted", iter_custom_is_timed_but_not_counted),
        with_valgrind("detect_judges_values_on_counts", detect_judges_values_on_counts),
        with_valgrind(
            "compare_calls_two_percent_more_instructions_regressed_and_the_same_build_unchanged",
            compare_calls_two_percent_more_instructions_regressed_and_the_same_build_unchanged,
        ),
        with_valgrind(
            "compare_explains_a_counted_change_by_function",
            compare_explains_a_counted_change_by_function,
        ),
        with_valgrind(
            "a_stripped_binary_is_explained_by_address",
            a_stripped_binary_is_explained_by_address,
        ),
        with_valgrind(
            "under_a_budget_exact_counter_rows_decide_at_the_first_look",
            under_a_budget_exact_counter_rows_decide_at_the_first_look,
        ),
        with_valgrind(
            "exact_scenarios_are_counted_in_two_pairs_and_varying_ones_in_all",
            exact_scenarios_are_counted_in_two_pairs_and_varying_ones_in_all,
        ),
        with_valgrind(
            "run_counts_exact_scenarios_in_two_processes_and_varying_ones_in_all",
            run_counts_exact_scenarios_in_two_processes_and_varying_ones_in_all,
        ),
        with_valgrind(
            "a_budget_too_small_for_the_counting_pairs_is_refused",
            a_budget_too_small_for_the_counting_pairs_is_refused,
        ),
        Trial::test("without_valgrind_the_error_says_how_to_install_it", || {
            without_valgrind_the_error_says_how_to_install_it();
            Ok(())
        }),
        Trial::ignorable_test("perf_without_a_pmu_names_what_would_work", perf_without_a_pmu_names_what_would_work),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}
