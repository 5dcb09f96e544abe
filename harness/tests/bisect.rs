//! `harness bisect` end to end on a git repository the test makes: 8 commits of a tiny suite
//! crate that depends on harness by path. `fixture/late` appears at commit 1, commit 2 triples
//! the work of `fixture/tripled` (a large effect, so the wall-time search stays cheap), commit 3
//! does not compile and 4 repairs it, commit 5 adds 10% to `fixture/scaled`, commit 6 makes
//! `fixture/boxed` allocate twice a call instead of once. From commit 1 the
//! same suite is also a `[[bench]]` target, `walk` (as a criterion user's bench is), for
//! `--bench`.
//!
//! Builds are shared: the commits build into one target directory kept under
//! `CARGO_TARGET_TMPDIR` (harness and its dependencies compile once, at opt-level 0 to keep CI
//! cheap; each commit rebuilds only the tiny crate), and the commit ids are the same on every run
//! until the harness binary changes (its size and mtime are in the first commit), so a second
//! `cargo test` builds no commit at all.
//!
//! A `harness = false` target (libtest-mimic): without valgrind the counters test shows as
//! `ignored (valgrind not installed ...)`; with `HARNESS_REQUIRE_VALGRIND=1` (set by `.ci/run`)
//! it fails instead. The trials run one at a time, so no build disturbs a wall-time step.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use libtest_mimic::{Arguments, Trial};
use serde_json::Value;

const HARNESS: &str = env!("CARGO_BIN_EXE_harness");
#[path = "common/valgrind.rs"]
mod valgrind;

fn work() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bisect-fixture")
}

fn repo() -> PathBuf {
    work().join("repo")
}

const MAIN: &str = r#"use std::hint::black_box;

use harness::Scenario;

/// `n` rounds of a dependent chain the optimiser cannot fold.
#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        acc = black_box(acc.wrapping_add(i ^ (acc >> 3)));
    }
    acc
}

const STEADY: u64 = 40_000;
const SCALED: u64 = 100_000;
const TRIPLED: u64 = 40_000;
const BOXES: u64 = 1;

harness::scenarios!(|| vec![
    Scenario::measure("fixture/steady", |b| b.iter(|| spin(black_box(STEADY)))),
    Scenario::measure("fixture/scaled", |b| b.iter(|| spin(black_box(SCALED)))),
    Scenario::measure("fixture/tripled", |b| b.iter(|| spin(black_box(TRIPLED)))),
    Scenario::measure("fixture/boxed", |b| b.iter(|| (0..black_box(BOXES)).map(|i| black_box(Box::new(i))).count())),
    // LATE
]);

fn main() -> std::process::ExitCode {
    harness::main()
}
"#;

const LATE: &str = r#"Scenario::measure("fixture/late", |b| b.iter(|| spin(black_box(1_000)))),"#;

/// The manifest; from commit 1 on, with the bench target (its source includes src/main.rs).
fn manifest(harness_dir: &Path, bench: bool) -> String {
    let bench = if bench {
        "\n[[bench]]\nname = \"walk\"\nharness = false\n"
    } else {
        ""
    };
    format!(
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nharness = {{ path = {:?} }}\n{bench}\n[workspace]\n",
        harness_dir.display().to_string()
    )
}

/// Each commit: its subject and the edit of src/main.rs it makes (replace this with that).
const COMMITS: [(&str, &str, &str); 8] = [
    ("tiny suite", "", ""),
    ("add fixture/late", "// LATE", LATE),
    ("triple fixture/tripled", "TRIPLED: u64 = 40_000", "TRIPLED: u64 = 120_000"),
    ("break the build", "fn main()", "fn main() -> missing_type"),
    ("repair the build", "fn main() -> missing_type", "fn main()"),
    ("scale fixture/scaled by 10%", "SCALED: u64 = 100_000", "SCALED: u64 = 110_000"),
    (
        "comment the scenarios, box twice a call",
        "const BOXES: u64 = 1;\n\nharness::scenarios!",
        "const BOXES: u64 = 2;\n\n// The suite.\nharness::scenarios!",
    ),
    ("name the constants", "/// `n` rounds", "/// Work: `n` rounds"),
];

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=fixture",
            "-c",
            "user.email=fixture@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The fixture repository, made afresh (same commits as long as the harness binary is the same);
/// the ids of its 8 commits.
fn make_repo() -> Vec<String> {
    let dir = repo();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let harness_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::write(dir.join("Cargo.toml"), manifest(harness_dir, false)).unwrap();
    std::fs::create_dir_all(dir.join("benches")).unwrap();
    // The workspace's lock file: the same dependency versions, nothing to resolve or download.
    std::fs::copy(harness_dir.join("../Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let stamp = std::fs::metadata(HARNESS).unwrap();
    std::fs::write(
        dir.join("harness-under-test.txt"),
        format!("{} {:?}\n", stamp.len(), stamp.modified().unwrap()),
    )
    .unwrap();
    std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let mut source = MAIN.to_owned();
    COMMITS
        .iter()
        .enumerate()
        .map(|(i, &(subject, this, that))| {
            if !this.is_empty() {
                source = source.replace(this, that);
            }
            if i == 1 {
                std::fs::write(dir.join("Cargo.toml"), manifest(harness_dir, true)).unwrap();
                std::fs::write(dir.join("benches/walk.rs"), "include!(\"../src/main.rs\");\n").unwrap();
            }
            std::fs::write(dir.join("src/main.rs"), &source).unwrap();
            git(&dir, &["add", "-A"]);
            git(&dir, &["commit", "-q", "-m", subject]);
            git(&dir, &["rev-parse", "HEAD"])
        })
        .collect()
}

/// `harness SUB --package tiny --seed 7 ARGS --out out/NAME` in the fixture repository, its
/// builds in the shared target directory at opt-level 0.
fn harness(sub: &str, name: &str, args: &[&str]) -> (Output, PathBuf) {
    let out = work().join("out").join(name);
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(HARNESS)
        .current_dir(repo())
        .arg(sub)
        .args(["--package", "tiny", "--seed", "7"])
        .args(args)
        .arg("--out")
        .arg(&out)
        .env("CARGO_TARGET_DIR", work().join("target"))
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "64")
        .output()
        .unwrap();
    (output, out)
}

/// `harness bisect ARGS --out out/NAME` in the fixture repository.
fn bisect(name: &str, args: &[&str]) -> (Output, PathBuf) {
    harness("bisect", name, args)
}

fn json(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("bisect.json")).unwrap()).unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn measured(j: &Value) -> Vec<String> {
    j["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["verdict"] != "skipped")
        .map(|s| s["commit"].as_str().unwrap().to_owned())
        .collect()
}

/// Counters: commit 5 named with certainty in log2(8) steps (the first, commit 3, does not build:
/// skipped and listed); every file written, the reproduce line pinned to commit ids.
fn counters_name_the_commit_in_log2_steps(ids: &[String]) {
    let (o, out) = bisect(
        "counters",
        &[
            "--good",
            &ids[0],
            "--bad",
            "main",
            "--scenario",
            "fixture/scaled",
            "--counters=valgrind",
            "--runs",
            "2",
        ],
    );
    let all = text(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    let j = json(&out);
    assert_eq!(j["first_bad"], ids[5].as_str(), "{all}");
    assert_eq!(j["metric"], "instructions", "{all}");
    assert!(j["confidence"].as_f64().unwrap() > 0.99, "counts barely vary: {j}");
    let steps = j["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "log2(8) steps, one of them the broken commit: {all}");
    assert_eq!(
        (steps[0]["commit"].as_str(), steps[0]["verdict"].as_str()),
        (Some(ids[3].as_str()), Some("skipped"))
    );
    assert_eq!(measured(&j), [ids[4].clone(), ids[5].clone()], "{all}");
    assert!(
        j["commits"][3]["skipped"].as_str().is_some_and(|s| s.contains("does not build")),
        "{j}"
    );
    let moved = j["change"]["ratio"].as_f64().unwrap();
    assert!((1.05..1.15).contains(&moved), "about +10% instructions: {moved}");
    // The step from ids[4] to ids[5] is spin's 10% more rounds. The suite is a debug build, so
    // the range iterator spin calls is a function of its own: both grew.
    let explain = j["explain"]
        .as_array()
        .unwrap_or_else(|| panic!("bisect.json explains the first bad commit: {j}"));
    let grew = |f: &Value| f["delta"].as_f64().unwrap() > 0.0;
    assert!(grew(&explain[0]), "{explain:?}");
    let spin = explain.iter().take(3).find(|e| e["function"].as_str().unwrap().ends_with("::spin"));
    assert!(spin.is_some_and(grew), "spin among the first three: {explain:?}");
    assert_eq!(explain.last().unwrap()["function"], "other");
    let printed = all.split("where the instructions changed").nth(1).unwrap_or_default();
    assert!(
        printed.lines().take(4).any(|l| l.starts_with("    ") && l.contains("::spin +")),
        "the terminal names spin under the conclusion: {all}"
    );
    assert!(
        j["reproduce"].as_array().unwrap().iter().any(|a| a == ids[7].as_str()),
        "main pinned to its commit"
    );
    assert!(all.contains(&format!("first bad commit: {}", &ids[5][..12])), "{all}");
    for f in ["bisect.md", "index.html", "results.jsonl"] {
        assert!(out.join(f).is_file(), "{f}");
    }
}

/// Wall time: commit 2 (3x the work) named at >= 95% by the probabilistic search.
fn wall_time_names_a_large_change(ids: &[String]) {
    let (o, out) = bisect(
        "wall",
        &[
            "--good",
            &ids[0],
            "--bad",
            &ids[7],
            "--scenario",
            "fixture/tripled",
            "--runs",
            "6",
            "--iterations",
            "5",
        ],
    );
    let all = text(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    let j = json(&out);
    assert_eq!(j["first_bad"], ids[2].as_str(), "{all}");
    assert!(j["confidence"].as_f64().unwrap() >= 0.95 && j["method"] == "probabilistic", "{j}");
    assert!(j["runner_up"]["probability"].as_f64().unwrap() < 0.05, "{j}");
    let steps = j["steps"].as_array().unwrap();
    assert!(steps.len() <= 6, "a 3x change needs about log2(8) steps: {all}");
    let measured_steps = steps.iter().filter(|s| s["verdict"] != "skipped");
    assert!(measured_steps.clone().count() >= 3, "{all}");
    assert!(
        measured_steps.clone().all(|s| s["interval"].is_array() && s["value"].is_number()),
        "{j}"
    );
    let md = std::fs::read_to_string(out.join("bisect.md")).unwrap();
    assert!(md.contains(&ids[2][..12]) && md.contains("```sh"), "{md}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.contains("<svg") && html.contains("triple fixture/tripled"),
        "the chart and the subjects"
    );
}

/// No change between the ends: exit 1, "no commit moved it", no step; a second run builds
/// nothing (both ends from the cache). The floor is 25%: the two ends' binaries differ elsewhere,
/// and in these debug builds code layout alone moved `fixture/steady` 12% between the ends, with
/// the speed probe compiled into each 13% apart too (a `.ci/run` on 2026-12-07, at a 10% floor).
fn no_change_exits_1_and_a_second_run_builds_nothing(ids: &[String]) {
    for round in 0..2 {
        let (o, out) = bisect(
            "none",
            &[
                "--good",
                &ids[0],
                "--bad",
                &ids[7],
                "--scenario",
                "fixture/steady",
                "--runs",
                "6",
                "--iterations",
                "5",
                "--noise-floor",
                "25",
            ],
        );
        let all = text(&o);
        assert_eq!(o.status.code(), Some(1), "{all}");
        assert!(all.contains("no commit moved it"), "{all}");
        let j = json(&out);
        assert!(j["first_bad"].is_null() && j["steps"].as_array().unwrap().is_empty(), "{j}");
        if round == 1 {
            assert_eq!(
                (j["builds"]["built"].as_u64(), j["builds"]["cached"].as_u64()),
                (Some(0), Some(2)),
                "{j}"
            );
        }
    }
}

/// Bad input: exit 2 with an error naming the flag, before any output directory exists.
fn bad_input_exits_2(ids: &[String]) {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--good", "no-such-ref", "--bad", "main", "--scenario", "fixture/scaled"],
            "'--good'",
        ),
        (
            &["--good", &ids[7], "--bad", &ids[0], "--scenario", "fixture/scaled"],
            "not an ancestor",
        ),
        (&["--good", &ids[0], "--bad", "main", "--scenario", "fixture/late"], "absent"),
        (&["--good", &ids[0], "--bad", "main", "--scenario", "fixture/nope"], "'--good'"),
    ];
    for (i, (args, expect)) in cases.iter().enumerate() {
        let (o, out) = bisect(&format!("bad{i}"), args);
        let all = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {all}");
        assert!(all.contains(expect), "{args:?}: {all}");
        assert!(!out.exists(), "nothing written for bad input");
    }
}

/// `harness compare ARGS --out out/NAME` in the fixture repository, building as [`bisect`] does.
fn compare(name: &str, args: &[&str]) -> (Output, PathBuf) {
    harness("compare", name, args)
}

/// `--bench`: a bench target is built as `cargo bench` builds it, at the ref and from the working
/// tree, and compared (commit 2 tripled `fixture/tripled`); a bench that does not exist at the
/// ref, or in the working tree, is exit 2 naming the side and listing what exists, before any
/// build or output.
fn bench_targets_compare_and_missing_ones_are_named(ids: &[String]) {
    let (o, out) = compare(
        "bench",
        &["--base-ref", &ids[1], "--bench", "walk", "--runs", "4", "fixture/tripled"],
    );
    let all = text(&o);
    let j: Value = serde_json::from_str(&std::fs::read_to_string(out.join("compare.json")).unwrap()).unwrap();
    let rows: Vec<&Value> = j.as_array().unwrap().iter().filter(|e| e["metric"] == "latency_ns").collect();
    assert_eq!(rows.len(), 1, "{all}");
    assert_eq!(rows[0]["verdict"], "regressed", "{all}");
    let run: Value = serde_json::from_str(&std::fs::read_to_string(out.join("compare-run.json")).unwrap()).unwrap();
    assert_eq!(run["baseline_commit"], ids[1].as_str(), "{all}");

    let (o, out) = compare("bench-absent-at-ref", &["--base-ref", &ids[0], "--bench", "walk"]);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(2), "{all}");
    let short = &ids[0][..12];
    assert!(
        all.contains("'--bench'") && all.contains(&format!("at --base-ref {} ({short})", ids[0])),
        "{all}"
    );
    assert!(all.contains("there are no bench targets of package tiny"), "{all}");
    assert!(!out.exists(), "nothing written for bad input");

    let (o, out) = compare("bench-absent", &["--base-ref", &ids[1], "--bench", "nope"]);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(2), "{all}");
    assert!(
        all.contains("in the working tree") && all.contains("bench targets of package tiny there: walk"),
        "{all}"
    );
    assert!(!out.exists(), "nothing written for bad input");
}

/// `--allocs`: commit 6, one more allocation per call, named exactly (1 -> 2 a call, no
/// preload set up: the harness carries its recorder), with `--counters` beside it too.
fn allocs_name_the_commit_that_allocates_once_more(ids: &[String], with_counters: bool) {
    let mut args = vec![
        "--good",
        &ids[0],
        "--bad",
        "main",
        "--scenario",
        "fixture/boxed",
        "--allocs",
        "--runs",
        "2",
    ];
    if with_counters {
        args.push("--counters=valgrind");
    }
    let (o, out) = bisect(if with_counters { "allocs-counters" } else { "allocs" }, &args);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    let j = json(&out);
    assert_eq!(j["first_bad"], ids[6].as_str(), "{all}");
    assert_eq!(j["metric"], "allocations", "{all}");
    assert_eq!(j["change"]["ratio"].as_f64(), Some(2.0), "exactly 1 -> 2 a call: {j}");
    assert!(all.contains(&format!("first bad commit: {}", &ids[6][..12])), "{all}");
}

/// A trial that needs valgrind: ignored without it, unless CI requires it.
fn with_valgrind(name: &'static str, ids: std::sync::Arc<Vec<String>>, f: fn(&[String])) -> Trial {
    valgrind::trial(name, move || f(&ids))
}

fn main() -> std::process::ExitCode {
    let mut args = Arguments::from_args();
    args.test_threads = Some(1);
    let ids = std::sync::Arc::new(make_repo());
    let with = |name: &'static str, f: fn(&[String])| {
        let ids = ids.clone();
        Trial::test(name, move || {
            f(&ids);
            Ok(())
        })
    };
    let trials = vec![
        with("bad_input_exits_2", bad_input_exits_2),
        with(
            "no_change_exits_1_and_a_second_run_builds_nothing",
            no_change_exits_1_and_a_second_run_builds_nothing,
        ),
        with("wall_time_names_a_large_change", wall_time_names_a_large_change),
        with("allocs_name_the_commit_that_allocates_once_more", |ids| {
            allocs_name_the_commit_that_allocates_once_more(ids, false)
        }),
        with(
            "bench_targets_compare_and_missing_ones_are_named",
            bench_targets_compare_and_missing_ones_are_named,
        ),
        with_valgrind(
            "counters_name_the_commit_in_log2_steps",
            ids.clone(),
            counters_name_the_commit_in_log2_steps,
        ),
        with_valgrind("allocs_beside_counters_name_the_commit", ids.clone(), |ids| {
            allocs_name_the_commit_that_allocates_once_more(ids, true)
        }),
    ];
    libtest_mimic::run(&args, trials).exit_code()
}
