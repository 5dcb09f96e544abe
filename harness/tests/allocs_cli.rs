//! `--allocs` end to end through the CLI of a suite binary (`fixture_allocs`): counting
//! processes of their own started with the preload library, exact counts per call in
//! results.json, the leak list, "not counted" with its reason, and compare's exact `+1 per call`.
//!
//! A `harness = false` target (libtest-mimic), as `counters.rs`: the tests of `--allocs` beside
//! `--counters=valgrind` are ignored without valgrind, and fail then under
//! `HARNESS_REQUIRE_VALGRIND=1` (CI).

#[path = "common/interpose.rs"]
#[allow(dead_code)]
mod common;
#[path = "common/valgrind.rs"]
mod valgrind;

use std::path::Path;
use std::process::{Command, Output};

use harness::model::{CompareEntry, CompareVerdict, PerCall, ResultsFile};
use libtest_mimic::{Arguments, Trial};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_allocs");

fn fixture(args: &[&str], lib: &Path) -> Output {
    let out = Command::new(FIXTURE)
        .args(args)
        .env("HARNESS_INTERPOSE_LIB", lib)
        .output()
        .expect("the fixture runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn results(dir: &Path) -> ResultsFile {
    serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

fn per_call(r: &ResultsFile, scenario: &str, metric: &str) -> PerCall {
    r.summaries
        .iter()
        .find(|s| s.scenario == scenario)
        .and_then(|s| s.metrics.iter().find(|m| m.metric == metric))
        .and_then(|m| m.per_call)
        .unwrap_or_else(|| panic!("{scenario} {metric} has no count per call"))
}

fn exact(r: &ResultsFile, scenario: &str, metric: &str) -> u64 {
    let p = per_call(r, scenario, metric);
    assert!(p.exact, "{scenario} {metric} varies: {p:?}");
    p.min
}

fn run_allocs_counts_each_fixture_exactly_in_processes_of_its_own() {
    let lib = common::interpose_lib();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = fixture(&["run", "alloc/", "--allocs", "--repeat", "1", "--seed", "3", "--out", out], &lib);
    let r = results(dir.path());

    // allocations, deallocations, alloc_bytes are exact; live bytes under the preload are
    // malloc_usable_size, a request rounded up by at most a chunk header and alignment.
    for m in ["allocations", "deallocations", "alloc_bytes", "peak_bytes", "leaked_bytes"] {
        assert_eq!(exact(&r, "alloc/none", m), 0, "{m}");
    }
    assert_eq!(exact(&r, "alloc/zeroed_4k", "allocations"), 1);
    assert_eq!(exact(&r, "alloc/zeroed_4k", "deallocations"), 1);
    assert_eq!(exact(&r, "alloc/zeroed_4k", "alloc_bytes"), 4096);
    assert!((4096..4096 + 32).contains(&exact(&r, "alloc/zeroed_4k", "peak_bytes")));
    assert_eq!(exact(&r, "alloc/zeroed_4k", "leaked_bytes"), 0);
    assert_eq!(exact(&r, "alloc/grown", "allocations"), 6, "one malloc, five growing reallocs");
    assert_eq!(exact(&r, "alloc/grown", "deallocations"), 1);
    assert_eq!(exact(&r, "alloc/leak", "allocations"), 1);
    assert_eq!(exact(&r, "alloc/leak", "alloc_bytes"), 100);
    assert!((100..132).contains(&exact(&r, "alloc/leak", "leaked_bytes")));

    // Equal process medians (0) over calls of 0 and 1 are not exact.
    let third = per_call(&r, "alloc/every_third", "allocations");
    assert_eq!((third.exact, third.min, third.max), (false, 0, 1));
    let summary = r.summaries.iter().find(|s| s.scenario == "alloc/every_third").unwrap();
    let m = summary.metrics.iter().find(|m| m.metric == "allocations").unwrap();
    assert!(!m.stats.exact, "a varying allocation row is never called exact");

    // Bad input: freeing in the window what setup allocated is said, not a clean 0.
    let frees = r.summaries.iter().find(|s| s.scenario == "alloc/frees_setup").unwrap();
    let leaked = frees.metrics.iter().find(|m| m.metric == "leaked_bytes").unwrap();
    let why = leaked.stats.unstable_reason.as_deref().unwrap_or_default();
    assert!(why.contains("did not allocate in their window"), "{why}");

    // iter_custom cannot be counted: it says why and shows no allocation row at all.
    let custom = r.summaries.iter().find(|s| s.scenario == "alloc/custom").unwrap();
    assert!(custom.skip_reason.as_deref().unwrap_or_default().contains("iter_custom"));
    assert!(custom.metrics.iter().all(|m| m.metric == "latency_ns"));

    // Wall time and counts come from different processes: no record carries both.
    for run in &r.runs {
        let timed = run.metrics.iter().any(|m| m.name == "latency_ns");
        let counted = run.metrics.iter().any(|m| m.name == "allocations");
        assert!(!(timed && counted), "run {} both timed and counted", run.run_index);
        // A counting process that could not count (iter_custom) is skipped, with no metric.
        assert_eq!(timed, run.counted_by.is_none(), "run {}", run.run_index);
        if counted {
            assert_eq!(run.counted_by.as_deref(), Some("allocs"));
            assert_eq!(run.metrics[0].source.as_deref(), Some("allocs-preload"));
        }
    }

    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("1 allocs/call") && text.contains("varies 0..1"), "{text}");
    let leaks = text.split("leaks (leaked_bytes > 0):\n").nth(1).expect("a leak list");
    let listed: Vec<&str> = leaks.lines().take_while(|l| l.starts_with("  ")).collect();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(listed[0].starts_with("  alloc/leak: "), "{listed:?}");
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(html.contains("<section id=\"leaks\">") && html.contains("<td>alloc/leak</td>"));
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    // Two counting processes that count alike are exact: the third is never run (run::more_counting).
    assert!(junit.contains("value=\"6 allocs/call, n=2 [allocs-preload]\""), "{junit}");
}

fn run_allocs_without_the_preload_says_why_and_never_reports_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = ["run", "alloc/none", "--allocs", "--repeat", "1", "--seed", "3", "--out", out];
    fixture(&args, Path::new("/nonexistent/libharness_interpose.so"));
    let s = &results(dir.path()).summaries[0];
    let why = s.skip_reason.as_deref().unwrap_or_default();
    assert!(why.starts_with("not counted: preload absent"), "{why}");
    assert!(
        s.metrics.iter().all(|m| m.metric == "latency_ns"),
        "no allocation row without a source"
    );
}

fn run_allocs_needs_no_setup_the_binary_carries_its_recorder() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(FIXTURE)
        .args(["run", "alloc/zeroed_4k", "--allocs", "--repeat", "1", "--seed", "3", "--out"])
        .arg(dir.path())
        .env_remove("HARNESS_INTERPOSE_LIB")
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = results(dir.path());
    assert_eq!(exact(&r, "alloc/zeroed_4k", "allocations"), 1);
    assert_eq!(exact(&r, "alloc/zeroed_4k", "alloc_bytes"), 4096);
    let counted = r.runs.iter().filter(|x| x.counted_by.as_deref() == Some("allocs"));
    assert!(
        counted
            .flat_map(|x| &x.metrics)
            .all(|m| m.source.as_deref() == Some("allocs-preload")),
        "counted through the embedded recorder in LD_PRELOAD"
    );
}

fn compare_allocs_decides_exact_rows_exactly() {
    let lib = common::interpose_lib();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = [
        "compare",
        "--baseline",
        FIXTURE,
        "--candidate",
        FIXTURE,
        "--candidate-env",
        "FIXTURE_ALLOCS_EXTRA=1",
        "--allocs",
        "--runs",
        "3",
        "--seed",
        "3",
        "--out",
        out,
        "alloc/none",
        "alloc/zeroed_4k",
        "alloc/every_third",
    ];
    let o = fixture(&args, &lib);
    let terminal = String::from_utf8_lossy(&o.stdout);
    assert!(terminal.contains("| allocations | 0 allocs | 1 alloc |"), "{terminal}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("compare.json")).unwrap()).unwrap();
    let rows: Vec<CompareEntry> = serde_json::from_value(json.get("entries").cloned().unwrap_or(json)).unwrap();
    let row = |name: &str, metric: &str| rows.iter().find(|e| e.name == name && e.metric == metric).unwrap();

    // 0 -> 1: regressed, "+1 per call", no ratio divided by zero, no interval.
    let none = row("alloc/none", "allocations");
    assert_eq!(none.verdict, CompareVerdict::Regressed);
    assert_eq!(none.per_call.as_deref(), Some("+1 per call"));
    assert_eq!((none.ratio, none.low, none.high), (None, None, None));
    assert_eq!(row("alloc/none", "alloc_bytes").per_call.as_deref(), Some("+8 per call"));
    // Identical exact counts: unchanged, with no interval.
    let same = row("alloc/zeroed_4k", "allocations");
    assert_eq!(
        (same.verdict, same.per_call.as_deref()),
        (CompareVerdict::Unchanged, Some("unchanged"))
    );
    assert_eq!((same.low, same.high, same.p_value), (None, None, None));
    // Calls that vary go through the ordinary statistics.
    let varies = row("alloc/every_third", "allocations");
    assert_eq!(varies.per_call, None);
    assert!(varies.note.as_deref().unwrap_or_default().contains("ordinary statistics"));
    let md = std::fs::read_to_string(dir.path().join("compare.md")).unwrap();
    assert!(md.contains("| +1 per call | regressed |"), "{md}");
    // Sides read as counts per call, not `1.00 count`, in compare.md, the terminal and the HTML.
    assert!(md.contains("| allocations | 0 allocs | 1 alloc | +1 per call |"), "{md}");
    assert!(md.contains("| alloc_bytes | 4096 B | 4096 B | unchanged |"), "{md}");
    assert!(!md.contains(" count |"), "{md}");
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(
        html.contains("<td>0 allocs</td>") || html.contains(">0 allocs<"),
        "the HTML's base cell"
    );
}

fn history_finds_an_exact_step_of_one_allocation_per_call_at_its_run() {
    let lib = common::interpose_lib();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    for i in 1..=4 {
        let out = dir.path().join(format!("r{i}"));
        let extra = if i >= 3 { "1" } else { "0" };
        let o = Command::new(FIXTURE)
            .args([
                "run",
                "alloc/none",
                "alloc/zeroed_4k",
                "--allocs",
                "--repeat",
                "1",
                "--seed",
                &i.to_string(),
            ])
            .arg("--out")
            .arg(&out)
            // The last run is stored afterwards (`history add DIR`), the others as they run.
            .args(if i < 4 {
                vec![std::ffi::OsStr::new("--history"), db.as_os_str()]
            } else {
                vec![]
            })
            .env("HARNESS_INTERPOSE_LIB", &lib)
            .env("FIXTURE_ALLOCS_EXTRA", extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if i == 4 {
            let o = Command::new(FIXTURE)
                .arg("history")
                .arg("add")
                .arg(&out)
                .arg("--db")
                .arg(&db)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
    }
    let check = dir.path().join("check");
    let o = Command::new(FIXTURE)
        .args(["history", "check", "--window", "2", "--db"])
        .arg(&db)
        .arg("--out")
        .arg(&check)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "a change in the newest runs: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let changes: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(check.join("changes.json")).unwrap()).unwrap();
    let allocs: Vec<&serde_json::Value> = changes.iter().filter(|c| c["metric"] == "allocations").collect();
    assert_eq!(allocs.len(), 1, "only alloc/none changed, once: {changes:?}");
    assert_eq!(allocs[0]["name"], "alloc/none");
    assert_eq!(allocs[0]["run"], 3);
    assert_eq!(allocs[0]["per_call"], "+1 per call");
    assert!(allocs[0]["ratio"].is_null(), "0 -> 1 has no ratio");
    // Wall-time series go to the ordinary search; every allocation change is alloc/none's.
    let counted = changes.iter().filter(|c| c["source"] == "allocs-preload");
    assert!(counted.clone().all(|c| c["name"] == "alloc/none"), "{changes:?}");
    assert_eq!(
        counted.count(),
        4,
        "allocations, deallocations, alloc_bytes, peak_bytes: {changes:?}"
    );
    // Every allocation series is stored, one per metric and scenario, and drawn.
    let html = std::fs::read_to_string(check.join("index.html")).unwrap();
    for m in ["allocations", "deallocations", "alloc_bytes", "peak_bytes", "leaked_bytes"] {
        assert!(html.contains(m), "{m} series in the history's trends");
    }
}

fn a_double_free_the_allocator_catches_is_the_scenarios_crash() {
    let lib = common::interpose_lib();
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(FIXTURE)
        .args(["run", "bad/double_free", "--allocs", "--repeat", "1", "--seed", "3", "--out"])
        .arg(dir.path())
        .env("HARNESS_INTERPOSE_LIB", &lib)
        .env("FIXTURE_ALLOCS_DOUBLE_FREE", "1")
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0), "a crashed scenario fails the run");
    let r = results(dir.path());
    let s = &r.summaries[0];
    assert_eq!(s.scenario, "bad/double_free");
    assert_eq!(
        s.counts.crashed,
        s.counts.total(),
        "timed and counting processes abort: {:?}",
        s.counts
    );
    assert!(s.counts.total() >= 2, "the counting process ran too: {:?}", s.counts);
    for run in &r.runs {
        assert!(
            matches!(&run.outcome, harness::model::Outcome::Crashed { signal, .. } if signal == "SIGABRT"),
            "{:?}",
            run.outcome
        );
    }
}

/// A trial that needs valgrind: ignored without it, unless CI requires it (as in counters.rs).
fn with_valgrind(name: &'static str, test: fn()) -> Trial {
    valgrind::trial(name, test)
}

fn main() -> std::process::ExitCode {
    let plain = |name: &'static str, test: fn()| Trial::test(name, move || Ok(test()));
    let trials = vec![
        plain(
            "run_allocs_counts_each_fixture_exactly_in_processes_of_its_own",
            run_allocs_counts_each_fixture_exactly_in_processes_of_its_own,
        ),
        plain(
            "run_allocs_without_the_preload_says_why_and_never_reports_zero",
            run_allocs_without_the_preload_says_why_and_never_reports_zero,
        ),
        plain(
            "run_allocs_needs_no_setup_the_binary_carries_its_recorder",
            run_allocs_needs_no_setup_the_binary_carries_its_recorder,
        ),
        plain(
            "compare_allocs_decides_exact_rows_exactly",
            compare_allocs_decides_exact_rows_exactly,
        ),
        plain(
            "history_finds_an_exact_step_of_one_allocation_per_call_at_its_run",
            history_finds_an_exact_step_of_one_allocation_per_call_at_its_run,
        ),
        plain(
            "a_double_free_the_allocator_catches_is_the_scenarios_crash",
            a_double_free_the_allocator_catches_is_the_scenarios_crash,
        ),
        with_valgrind(
            "run_allocs_with_counters_records_both_each_in_processes_of_its_own",
            both::run_records_both_each_in_processes_of_its_own,
        ),
        with_valgrind("compare_allocs_with_counters_decides_both_rows", both::compare_decides_both_rows),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// `--allocs` beside `--counters=valgrind`.
mod both {
    use super::*;

    pub fn run_records_both_each_in_processes_of_its_own() {
        let lib = common::interpose_lib();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        let args = [
            "run",
            "alloc/zeroed_4k",
            "--allocs",
            "--counters=valgrind",
            "--counter-processes",
            "2",
            "--repeat",
            "1",
            "--seed",
            "3",
            "--out",
            out,
        ];
        fixture(&args, &lib);
        let r = results(dir.path());
        assert_eq!(exact(&r, "alloc/zeroed_4k", "allocations"), 1);
        assert_eq!(exact(&r, "alloc/zeroed_4k", "alloc_bytes"), 4096);
        let has = |run: &harness::model::RunRecord, m: &str| run.metrics.iter().any(|x| x.name == m);
        let by = |label: Option<&str>| -> Vec<&harness::model::RunRecord> {
            r.runs
                .iter()
                .filter(|x| match label {
                    None => x.counted_by.is_none(),
                    Some(l) => x.counted_by.as_deref().is_some_and(|b| b.starts_with(l)),
                })
                .collect()
        };
        let (timed, allocs, callgrind) = (by(None), by(Some("allocs")), by(Some("valgrind-callgrind")));
        assert_eq!((timed.len(), allocs.len(), callgrind.len()), (1, 2, 2), "{:#?}", r.runs);
        // Each source in processes of its own: callgrind never counts the allocation windows,
        // the preload never counts valgrind's mallocs, and the timed process counts neither.
        assert!(allocs.iter().all(|x| has(x, "allocations") && !has(x, "instructions")));
        assert!(callgrind.iter().all(|x| has(x, "instructions") && !has(x, "allocations")));
        assert!(
            timed
                .iter()
                .all(|x| has(x, "latency_ns") && !has(x, "instructions") && !has(x, "allocations"))
        );
        let instructions = r.summaries[0].metrics.iter().find(|m| m.metric == "instructions");
        assert!(instructions.is_some_and(|m| m.stats.mean > 0.0), "{:?}", r.summaries[0].metrics);
    }

    pub fn compare_decides_both_rows() {
        let lib = common::interpose_lib();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        let args = [
            "compare",
            "--baseline",
            FIXTURE,
            "--candidate",
            FIXTURE,
            "--candidate-env",
            "FIXTURE_ALLOCS_EXTRA=1",
            "--allocs",
            "--counters=valgrind",
            "--counter-processes",
            "2",
            "--runs",
            "2",
            "--seed",
            "3",
            "--out",
            out,
            "alloc/none",
        ];
        fixture(&args, &lib);
        let text = std::fs::read_to_string(dir.path().join("compare.json")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let rows: Vec<CompareEntry> = serde_json::from_value(json.get("entries").cloned().unwrap_or(json)).unwrap();
        let row = |metric: &str| rows.iter().find(|e| e.name == "alloc/none" && e.metric == metric);
        let allocations = row("allocations").unwrap_or_else(|| panic!("no allocations row: {rows:#?}"));
        assert_eq!(allocations.verdict, CompareVerdict::Regressed);
        assert_eq!(allocations.per_call.as_deref(), Some("+1 per call"));
        // The candidate's extra malloc costs instructions too: callgrind counted it.
        let instructions = row("instructions").unwrap_or_else(|| panic!("no instructions row: {rows:#?}"));
        assert_eq!(instructions.verdict, CompareVerdict::Regressed, "{instructions:#?}");
    }
}
