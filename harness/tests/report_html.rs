//! The HTML report end to end: a real run of `fixture_report` writes index.html, `harness
//! report DIR` re-renders it, scenario text stays text, and malformed files are named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "common/report_fixture.rs"]
mod report_fixture;

fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("harness-report-html-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the fixture suite into `dir/out` and returns that directory.
fn fixture_run(dir: &Path) -> PathBuf {
    let (o, out) = report_fixture::fixture_run(dir);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a check fails, so exit 1\n{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("report: "), "run prints the report path: {stdout}");
    out
}

fn harness_report(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_harness")).arg("report").arg(dir).output().unwrap()
}

#[test]
fn run_writes_a_report_and_report_rerenders_it() {
    let dir = fresh_dir("run");
    let out = fixture_run(&dir);
    let index = out.join("index.html");
    let first = std::fs::read_to_string(&index).expect("run writes index.html");
    std::fs::remove_file(&index).unwrap();

    let o = harness_report(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("index.html"));
    let html = std::fs::read_to_string(&index).unwrap();
    assert_eq!(html.len(), first.len(), "re-rendering the same files gives the same page");

    // Scenario text is text: the hostile name and the hostile stdout are escaped.
    assert!(!html.contains("<script>alert("), "unescaped scenario markup in the page");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the hostile name is shown as text"
    );
    assert!(
        html.contains("&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;"),
        "the hostile stdout is shown as text"
    );
    // Exactly one script element: the report's own.
    assert_eq!(html.matches("<script").count(), 1);

    // Overview: seed, reproduce command, counts; sections present.
    for needle in [
        "id=\"overview\"",
        "id=\"summary\"",
        "id=\"measurements\"",
        "id=\"failures\"",
        "id=\"host\"",
        "--seed 7",
        "stdout before failing: state=42",
        "stderr: about to fail",
        "expected 2, got 3",
        "FIXTURE_MODE",
        "variance split",
    ] {
        assert!(html.contains(needle), "missing {needle:?}");
    }
    // One distribution and one sequence plot per measurement (noisy, with_outlier), 8 dots each.
    assert_eq!(html.matches("<svg").count(), 4);
    assert!(html.matches("<circle").count() >= 4 * 8);
    // The outlier of with_outlier is flagged severe in red.
    assert!(html.contains("1 severe") || html.contains("0 mild, 1 severe"), "outlier counted");
    assert!(html.to_lowercase().contains("fill=\"#c53030\""), "outlier drawn red");
    // Nothing is fetched: no external references (the SVG namespace is a name, not a fetch).
    let fetchable = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for bad in ["http://", "https://", "src=\"", "@import", "url("] {
        assert!(!fetchable.contains(bad), "external reference {bad:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_malformed_results_file_is_named_with_its_line() {
    let dir = fresh_dir("bad");
    std::fs::write(
        dir.join("results.json"),
        "{\n  \"meta\": {\n    \"seed\": \"not a number\"\n  }\n}\n",
    )
    .unwrap();
    let o = harness_report(&dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("results.json") && err.contains("line "), "{err}");
    assert!(!dir.join("index.html").exists());

    std::fs::remove_file(dir.join("results.json")).unwrap();
    std::fs::write(
        dir.join("detect.json"),
        "[{\"name\": \"a\", \"verdict\": \"pass\"},\n {\"name\": 5}]",
    )
    .unwrap();
    let o = harness_report(&dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("detect.json") && err.contains("line 2"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_empty_directory_is_a_usage_error() {
    let dir = fresh_dir("empty");
    let o = harness_report(&dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no results.json"));
    let _ = std::fs::remove_dir_all(&dir);
}

const DETECT: &str = include_str!("fixtures/report/detect.json");

const DETECT_RUN: &str = include_str!("fixtures/report/detect-run.json");

const COMPARE: &str = include_str!("fixtures/report/compare.json");

const COMPARE_RUN: &str = include_str!("fixtures/report/compare-run.json");

#[test]
fn detect_and_compare_files_render_their_sections() {
    let dir = fresh_dir("dc");
    std::fs::write(dir.join("detect.json"), DETECT).unwrap();
    std::fs::write(dir.join("detect-run.json"), DETECT_RUN).unwrap();
    std::fs::write(dir.join("compare.json"), COMPARE).unwrap();
    std::fs::write(dir.join("compare-run.json"), COMPARE_RUN).unwrap();
    std::fs::write(
        dir.join("compare.md"),
        "| scenario | change |\n|---|---|\n| matmul | +3.1% <b>x</b> |\n",
    )
    .unwrap();
    let o = harness_report(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for needle in [
        "id=\"detect\"",
        "id=\"compare\"",
        "id=\"host\"",
        "Who affects whom",
        "30.0% [12.0%, 55.0%] (6/20)",
        "+12.5%",
        "passes alone",
        "19 total",
        "+3.10% [+1.20%, +5.00%]",
        "b-regressed",
        "b-improved",
        "b-inconclusive",
        "PR comment (compare.md)",
        "| matmul | +3.1% &lt;b&gt;x&lt;/b&gt; |",
        "harness compare --seed 9",
    ] {
        assert!(html.contains(needle), "missing {needle:?}");
    }
    assert!(!html.contains("<img"), "hostile polluter name escaped");
    assert!(!html.contains("softmax</title>"), "hostile compare name escaped");
    assert!(!html.contains("id=\"overview\""), "no run section without results.json");
    // The matrix and the forest plot.
    assert_eq!(html.matches("<svg").count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
