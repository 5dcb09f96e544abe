//! `harness compare` on real processes: two copies of one fixture binary (A/A) are mostly
//! `unchanged`, never `regressed` or `improved`; a 3x slowdown injected through `--candidate-env` is `regressed`; result
//! directories compare unpaired; `--fail-on-regression` gates.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_compare");
const HARNESS: &str = env!("CARGO_BIN_EXE_harness");

/// The measuring tests take turns: on a 2-core machine two of them at once would be each other's
/// noise, which is what `compare` exists to see through, not what these tests are about.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("harness-compare-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Two copies of the fixture, as two builds of one commit would be.
fn two_copies(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("base"), dir.join("cand"));
    std::fs::copy(FIXTURE, &a).unwrap();
    std::fs::copy(FIXTURE, &b).unwrap();
    (a, b)
}

fn compare(args: &[&str]) -> (i32, Vec<Value>, String) {
    let out = Command::new(HARNESS)
        .arg("compare")
        // 100 iterations a process: their median shrugs off the preemptions of a busy machine.
        .args(["--iterations", "100", "--warmup", "1", "--seed", "7"])
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let dir = args.iter().position(|a| *a == "--out").map(|i| PathBuf::from(args[i + 1])).unwrap();
    let text = std::fs::read_to_string(dir.join("compare.json"))
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), serde_json::from_str(&text).unwrap(), stdout)
}

fn verdict<'a>(rows: &'a [Value], name: &str, metric: &str) -> &'a str {
    rows.iter()
        .find(|r| r["name"] == name && r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {name} {metric} in {rows:?}"))["verdict"]
        .as_str()
        .unwrap()
}

#[test]
fn a_a_has_no_regression_and_an_injected_slowdown_is_found() {
    let _turn = measuring();
    let dir = temp("aa");
    let (a, b) = two_copies(&dir);
    let out = dir.join("aa-out");
    let (code, rows, md) = compare(&[
        "--baseline",
        a.to_str().unwrap(),
        "--candidate",
        b.to_str().unwrap(),
        "--runs",
        "10",
        "--budget",
        "90s",
        "--fail-on-regression",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!rows.is_empty());
    for r in &rows {
        assert!(
            r["verdict"] != "regressed" && r["verdict"] != "improved",
            "A/A row moved: {r}\n{md}"
        );
        for k in ["name", "metric", "ratio", "low", "high", "p_adjusted", "verdict"] {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
    }
    // The verdict set, not just "no regression": identical builds are shown unchanged within the
    // 5% margin somewhere, not left inconclusive everywhere. How many rows decide depends on the
    // machine (a 2-core CI runner beside other tests: 20-40% per pair); the rates are backed by
    // compare/sequential_sim.rs, not by this run.
    let timed: Vec<&Value> = rows
        .iter()
        .filter(|r| r["better"] != "neither" && r["derived_from"].is_null() && r["metric"] == "latency_ns")
        .collect();
    let unchanged = timed.iter().filter(|r| r["verdict"] == "unchanged").count();
    assert!(unchanged >= 1, "no wall-time row of {} unchanged:\n{md}", timed.len());
    for r in timed.iter().filter(|r| r["verdict"] == "inconclusive") {
        assert!(
            r["runs_needed"].as_u64().is_some_and(|n| n > 0),
            "an undecided row says what would decide it: {r}"
        );
    }
    assert_eq!(code, 0, "{md}");
    assert_eq!(verdict(&rows, "work/scaled", "work_units"), "unchanged");
    assert!(md.contains("| status | scenario |") && md.contains("What this cannot catch"));
    for f in [
        "compare.csv",
        "compare.md",
        "compare-full.md",
        "compare-run.json",
        "baseline/results.json",
        "candidate/results.json",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let run: Value = serde_json::from_str(&std::fs::read_to_string(out.join("compare-run.json")).unwrap()).unwrap();
    assert_eq!((run["design"].as_str(), run["seed"].as_u64()), (Some("interleaved"), Some(7)));
    assert!(run["sequential"]["looks"].as_u64().unwrap() >= 1 && run["margin"] == 0.05, "{run}");
    // The null control ran beside the pairs (by default), and its processes are numbered after
    // theirs in results.jsonl: no run index twice.
    assert!(run["null_control"]["pairs"].as_u64().unwrap() >= 3, "{run}");
    let jsonl = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let indices: Vec<u64> = jsonl
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["run_index"].as_u64().unwrap())
        .collect();
    let unique: std::collections::BTreeSet<u64> = indices.iter().copied().collect();
    assert_eq!(unique.len(), indices.len(), "a run index twice in results.jsonl");

    // The same binary with a 3x slowdown on the candidate side only (large and with 10 pairs, so
    // a 2-core CI machine running other tests beside this one still sees it).
    let slow = dir.join("slow-out");
    let (code, rows, md) = compare(&[
        "--baseline",
        a.to_str().unwrap(),
        "--candidate",
        b.to_str().unwrap(),
        "--candidate-env",
        "FIXTURE_SLOWDOWN=3",
        "--runs",
        "10",
        "--fail-on-regression",
        "--out",
        slow.to_str().unwrap(),
        "work/",
    ]);
    assert_eq!(verdict(&rows, "work/scaled", "latency_ns"), "regressed", "{md}");
    let row = rows.iter().find(|r| r["metric"] == "latency_ns").unwrap();
    let ratio = row["ratio"].as_f64().unwrap();
    // The true ratio is 3; a loaded 2-core machine preempts some processes for milliseconds, so
    // the bound is wide: it catches an inverted or unscaled ratio, not noise.
    assert!((1.5..6.0).contains(&ratio), "ratio {ratio}");
    // A counter has no better direction: it changed, but is never a regression.
    assert_eq!(verdict(&rows, "work/scaled", "work_units"), "inconclusive");
    assert_eq!(code, 1, "--fail-on-regression exits 1");

    // The two sides of the first comparison, read back as result directories: unpaired design.
    let dirs = dir.join("dirs-out");
    let (_, rows, md) = compare(&[
        "--baseline",
        out.join("baseline").to_str().unwrap(),
        "--candidate",
        slow.join("candidate").to_str().unwrap(),
        "--out",
        dirs.to_str().unwrap(),
    ]);
    assert_eq!(verdict(&rows, "work/scaled", "latency_ns"), "regressed", "{md}");
    assert!(md.contains("blocked design"));
    assert!(rows.iter().all(|r| r["pairs"] == 0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_inputs_name_the_flag() {
    let dir = temp("bad");
    let out = Command::new(HARNESS)
        .args(["compare", "--baseline", "/nonexistent/x", "--candidate", FIXTURE, "--out"])
        .arg(dir.join("o"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--baseline"));
    let out = Command::new(HARNESS)
        .args([
            "compare",
            "--baseline",
            FIXTURE,
            "--candidate",
            FIXTURE,
            "--candidate-env",
            "NOEQUALS",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--candidate-env"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn calibrate_writes_bands_that_compare_uses() {
    let _turn = measuring();
    let dir = temp("cal");
    let (a, b) = two_copies(&dir);
    let cal = dir.join("cal");
    let out = Command::new(HARNESS)
        .args([
            "calibrate",
            "--binary",
            a.to_str().unwrap(),
            "--sessions",
            "2",
            "--runs",
            "4",
            "--iterations",
            "5",
            "--warmup",
            "1",
        ])
        .args(["--seed", "3", "--out", cal.to_str().unwrap(), "sum/"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(cal.join("calibration.json")).unwrap();
    let mut rows: Vec<Value> = serde_json::from_str(&text).unwrap();
    // n is the fewest pairs a session used: 4, or 3 where one pair's two processes met different
    // machine speeds and was left out (compare/inputs.rs leaves a split pair out only while 3
    // steady ones remain, so never fewer).
    assert!(
        rows.iter()
            .all(|r| r["sessions"] == 2 && (r["n"] == 4 || r["n"] == 3) && r["noise_band"].as_f64().unwrap() >= 0.02),
        "{text}"
    );
    // A hand-made band of 50% for one row: compare must report it as that row's band.
    rows[0]["noise_band"] = 0.5.into();
    let (name, metric) = (
        rows[0]["name"].as_str().unwrap().to_owned(),
        rows[0]["metric"].as_str().unwrap().to_owned(),
    );
    std::fs::write(cal.join("edited.json"), serde_json::to_string(&rows).unwrap()).unwrap();
    let o = dir.join("o");
    let (_, rows, _) = compare(&[
        "--baseline",
        a.to_str().unwrap(),
        "--candidate",
        b.to_str().unwrap(),
        "--runs",
        "3",
        "--calibration",
        cal.join("edited.json").to_str().unwrap(),
        "--out",
        o.to_str().unwrap(),
        "sum/",
    ]);
    let row = rows
        .iter()
        .find(|r| r["name"] == name.as_str() && r["metric"] == metric.as_str())
        .unwrap();
    assert!(row["noise_band"].as_f64().unwrap() >= 0.5, "{row}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_budget_too_small_for_three_pairs_is_refused_with_the_budget_that_would_hold() {
    let _turn = measuring();
    let dir = temp("tiny-budget");
    let (a, b) = two_copies(&dir);
    // 2000 iterations of ~20 us make each process take >= 40 ms, so the pilot pair of the three
    // measurements takes >= 0.1 s on any machine: 0.2 s cannot hold two more rounds.
    let out = Command::new(HARNESS)
        .args([
            "compare",
            "--iterations",
            "2000",
            "--warmup",
            "0",
            "--seed",
            "7",
            "--budget",
            "0.2s",
            "--baseline",
        ])
        .arg(&a)
        .arg("--candidate")
        .arg(&b)
        .arg("--out")
        .arg(dir.join("o"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("'--budget'") && stderr.contains("cannot hold 3 pairs"), "{stderr}");
    assert!(stderr.contains("would, or select fewer scenarios"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
