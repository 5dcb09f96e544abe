//! `cargo harness detect` and `cargo harness run --tests` on the workspace fixture
//! (tests/fixtures/cargo_ws: crates alpha and beta, a planted victim in each, a crashing and a
//! panicking test in beta, all acting only under HARNESS_FIXTURE_PLANT). The fixture builds
//! offline into target/cargo-ws-fixture, so reruns are incremental.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use quick_junit::{NonSuccessKind, Report, TestCaseStatus};
use serde_json::Value;

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cargo_ws/Cargo.toml")
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("cargo-ws-fixture")
}

/// `cargo-harness harness ARGS` as cargo would run it, the planted bugs on.
fn cargo_harness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-harness"))
        .arg("harness")
        .args(args)
        .env("HARNESS_FIXTURE_PLANT", "1")
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn entry<'a>(entries: &'a [Value], name: &str) -> &'a Value {
    entries
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

fn junit(dir: &Path) -> (String, Report) {
    let xml = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    let report = Report::deserialize_from_str(&xml).unwrap_or_else(|e| panic!("junit.xml does not parse: {e}\n{xml}"));
    (xml, report)
}

const PANIC_TEXT: &str = "planted panic <script>alert(1)</script> ]]> end";

/// Markup from a test's message never reaches the XML unescaped, and reads back intact.
fn assert_escaped(xml: &str) {
    assert!(!xml.contains("<script>"), "raw <script> in junit.xml");
    assert!(!xml.contains("]]>"), "raw ]]> in junit.xml");
    assert!(xml.contains("&lt;script&gt;"));
}

#[test]
fn detect_finds_both_planted_victims_with_package_and_binary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("detect");
    let o = cargo_harness(&[
        "detect",
        "--manifest-path",
        manifest().to_str().unwrap(),
        "--workspace",
        "--offline",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    let term = text(&o);
    assert_eq!(o.status.code(), Some(1), "{term}");
    let entries: Vec<Value> = serde_json::from_slice(&std::fs::read(out.join("detect.json")).unwrap()).unwrap();

    // Both victims, each with its package, binary and culprit.
    let a = entry(&entries, "tests::a_victim");
    assert_eq!(
        (a["verdict"].as_str(), a["package"].as_str(), a["binary"].as_str()),
        (Some("victim"), Some("alpha"), Some("alpha"))
    );
    assert_eq!(a["polluters"], serde_json::json!(["tests::z_polluter"]));
    let b = entry(&entries, "b_victim");
    assert_eq!(
        (b["verdict"].as_str(), b["package"].as_str(), b["binary"].as_str()),
        (Some("victim"), Some("beta"), Some("order"))
    );
    assert_eq!(b["polluters"], serde_json::json!(["a_polluter"]));
    let plain = entry(&entries, "adds");
    assert_eq!((plain["verdict"].as_str(), plain["binary"].as_str()), (Some("pass"), Some("api")));

    // The binaries hold only tests, so they were detected side by side: where the machine has
    // two cores, some process of one binary ran while one of another did (results.jsonl times).
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(binaries_overlap(&out), "binaries ran one after another");
    }

    // Each victim's reproduce line, run as printed, fails with the bug planted and passes without:
    // alpha's culprit sorts after its victim, so its line must carry a shuffle seed.
    assert!(a["reproduce"].as_str().unwrap().contains("--shuffle-seed="), "{a}");
    for v in [a, b] {
        let line = v["reproduce"].as_str().unwrap();
        let planted = Command::new("sh")
            .args(["-c", line])
            .env("HARNESS_FIXTURE_PLANT", "1")
            .output()
            .unwrap();
        assert!(!planted.status.success(), "{line} passed:\n{}", text(&planted));
        let clean = Command::new("sh")
            .args(["-c", line])
            .env_remove("HARNESS_FIXTURE_PLANT")
            .output()
            .unwrap();
        assert!(clean.status.success(), "{line} failed without the planted bug:\n{}", text(&clean));
        assert!(term.contains(line), "terminal lacks {line}:\n{term}");
    }

    // The crash's signal and the panic's message: detect.json, terminal, HTML, junit.
    let messages = |name: &str| -> String {
        entry(&entries, name)["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|ev| ev["message"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(messages("tests::crashes").contains("SIGABRT"), "{}", messages("tests::crashes"));
    assert!(messages("tests::panics_with_markup").contains(PANIC_TEXT));
    assert!(term.contains("killed by SIGABRT"), "{term}");
    assert!(term.contains(PANIC_TEXT), "{term}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("killed by SIGABRT"));
    assert!(html.contains("planted panic &lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; end"));
    assert!(!html.contains(PANIC_TEXT));

    let (xml, report) = junit(&out);
    assert_escaped(&xml);
    assert_eq!(report.tests, entries.len());
    let order_dependent = entries
        .iter()
        .filter(|e| matches!(e["verdict"].as_str(), Some("victim" | "brittle" | "flaky")))
        .count();
    assert!(order_dependent >= 2, "{entries:?}");
    assert_eq!(
        report.failures,
        2 + order_dependent,
        "the crash, the panic and every victim/brittle/flaky test fail, as detect's exit status says"
    );
    assert_eq!(report.test_suites.len(), 4, "one suite per test binary");
    let cases: Vec<_> = report.test_suites.iter().flat_map(|s| &s.test_cases).collect();
    let case = |n: &str| cases.iter().find(|c| c.name.as_str() == n).unwrap();
    match &case("tests::panics_with_markup").status {
        TestCaseStatus::NonSuccess {
            kind: NonSuccessKind::Failure,
            message,
            description,
            ..
        } => {
            assert!(message.as_ref().unwrap().as_str().contains(PANIC_TEXT));
            assert!(description.as_ref().unwrap().as_str().contains("left: 3"));
        }
        s => panic!("{s:?}"),
    }
    match &case("tests::crashes").status {
        TestCaseStatus::NonSuccess { message, .. } => assert!(message.as_ref().unwrap().as_str().contains("SIGABRT")),
        s => panic!("{s:?}"),
    }
    match &case("b_victim").status {
        TestCaseStatus::NonSuccess {
            kind: NonSuccessKind::Failure,
            message,
            description,
            reruns,
            ..
        } => {
            let m = message.as_ref().unwrap().as_str();
            assert!(m.starts_with("victim: fails after a_polluter"), "{m}");
            let d = description.as_ref().unwrap().as_str();
            assert!(d.contains("polluters: a_polluter") && d.contains("state left dirty"), "{d}");
            assert!(!reruns.runs.is_empty());
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn run_tests_runs_every_test_of_every_binary_with_messages_and_resources() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = cargo_harness(&[
        "run",
        "--tests",
        "--manifest-path",
        manifest().to_str().unwrap(),
        "-p",
        "beta",
        "--offline",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let term = text(&o);
    assert_eq!(o.status.code(), Some(1), "{term}");
    let results: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let runs = results["runs"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["scenario"].as_str().unwrap()).collect();
    assert_eq!(runs.len(), 6, "{names:?}");
    let run = |n: &str| {
        runs.iter()
            .find(|r| r["scenario"] == n)
            .unwrap_or_else(|| panic!("{n} not in {names:?}"))
    };
    let crash = run("beta/beta tests::crashes");
    assert_eq!(
        (crash["outcome"]["status"].as_str(), crash["signal"].as_str()),
        (Some("crashed"), Some("SIGABRT"))
    );
    let panic = run("beta/beta tests::panics_with_markup");
    assert!(panic["outcome"]["message"].as_str().unwrap().contains(PANIC_TEXT));
    assert_eq!(panic["exit_code"].as_i64(), Some(101));
    let ok = run("beta/order c_plain");
    assert!(ok["peak_rss_bytes"].as_u64().unwrap() > 0 && ok["cpu_user_ns"].is_u64() && ok["cpu_system_ns"].is_u64());

    assert!(term.contains("SIGABRT") && term.contains(PANIC_TEXT), "{term}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("signal SIGABRT"));
    assert!(html.contains("planted panic &lt;script&gt;"));

    let (xml, report) = junit(&out);
    assert_escaped(&xml);
    assert_eq!(report.tests, 6);
    assert_eq!((report.failures, report.errors), (1, 1), "a panic is a failure, a crash an error");
}

/// Whether two processes of different binaries overlapped in time, from results.jsonl: each
/// record's start (ms since the command began) and wall time, its binary from the test names
/// detect.json files under each binary.
fn binaries_overlap(out: &std::path::Path) -> bool {
    let entries: Vec<Value> = serde_json::from_slice(&std::fs::read(out.join("detect.json")).unwrap()).unwrap();
    let binary_of: std::collections::HashMap<String, String> = entries
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_owned(), format!("{}/{}", e["package"], e["binary"])))
        .collect();
    let spans: Vec<(String, f64, f64)> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|r| {
            let bin = binary_of.get(r["scenario"].as_str()?)?.clone();
            let start = r["started_ms"].as_f64()?;
            Some((bin, start, start + r["wall_ns"].as_f64()? / 1e6))
        })
        .collect();
    spans
        .iter()
        .any(|(b1, s1, e1)| spans.iter().any(|(b2, s2, e2)| b1 != b2 && s1 < e2 && s2 < e1))
}
