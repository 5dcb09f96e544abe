//! The HTML report in a real browser: headless Chromium loads a report with every section,
//! its script runs without errors, the charts are in the DOM, and a screenshot is taken.
//!
//! A `harness = false` target (libtest-mimic), so a missing Chromium shows in cargo's summary as
//! `ignored (chromium not installed ...)` instead of a pass. With `HARNESS_REQUIRE_CHROMIUM=1`
//! (set by `.ci/run`) a missing Chromium fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

#[path = "common/report_fixture.rs"]
mod report_fixture;

fn chromium() -> Option<PathBuf> {
    let fixed = Path::new("/usr/bin/chromium");
    if fixed.exists() {
        return Some(fixed.to_owned());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("chromium")).find(|p| p.exists())
}

/// Runs chromium headless with `extra` arguments on `page`; returns (stdout, stderr).
fn headless(chromium: &Path, profile: &Path, extra: &[&str], page: &Path) -> (String, String) {
    let _ = std::fs::remove_dir_all(profile);
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1400,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    // Read both pipes on threads so a chatty browser cannot block on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (out_t.join().unwrap(), err_t.join().unwrap())
}

/// A run directory of the fixture suite with the detect and compare fixtures beside it, so the
/// page has every section.
fn full_report(dir: &Path) -> PathBuf {
    let (o, out) = report_fixture::fixture_run(dir);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report");
    for f in ["detect.json", "detect-run.json", "compare.json", "compare-run.json", "compare.md"] {
        std::fs::copy(fixtures.join(f), out.join(f)).unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_harness"))
        .arg("report")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out.join("index.html")
}

/// Console messages the page produced (chromium logs them as `CONSOLE(line)` at --v=0),
/// and errors such as a blocked fetch ("Refused to ...") or an uncaught exception.
fn page_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught") || l.contains("Refused to") || l.contains("Failed to load"))
        .collect()
}

/// Set by CI: a missing Chromium is then a failure, not a skip.
const REQUIRE_VAR: &str = "HARNESS_REQUIRE_CHROMIUM";

fn main() -> std::process::ExitCode {
    let trial = Trial::ignorable_test("report_renders_in_headless_chromium", || match chromium() {
        Some(chromium) => {
            report_renders_in_headless_chromium(&chromium);
            Ok(Completion::Completed)
        }
        None if std::env::var_os(REQUIRE_VAR).is_some_and(|v| v == "1") => Err(Failed::from(format!(
            "{REQUIRE_VAR}=1 but chromium is not installed (apt-get install chromium)"
        ))),
        None => Ok(Completion::ignored_with(format!(
            "chromium not installed; apt-get install chromium, {REQUIRE_VAR}=1 makes this a failure"
        ))),
    });
    libtest_mimic::run(&Arguments::from_args(), vec![trial]).exit_code()
}

fn report_renders_in_headless_chromium(chromium: &Path) {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report_browser");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let page = full_report(&work);

    let (dom, stderr) = headless(chromium, &work.join("profile-dom"), &["--dump-dom"], &page);
    let body = dom
        .find("<body")
        .map(|i| &dom[i..dom[i..].find('>').map_or(dom.len(), |j| i + j)])
        .unwrap_or("");
    assert!(
        body.contains("data-ready=\"1\""),
        "the report's script did not finish: {body:?}\n{stderr}"
    );
    assert!(!body.contains("data-js-error"), "the report's script raised: {body}");
    assert_eq!(page_errors(&stderr), Vec::<&str>::new(), "console or load errors");
    // Two plots per measurement (2 measurements), the detect matrix and the compare forest plot.
    assert!(body.contains("data-svg-count=\"6\""), "{body}");
    assert_eq!(dom.matches("<svg").count(), 6);
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the hostile name is text in the DOM"
    );
    assert!(!dom.contains("<script>alert("), "no injected script element");

    let shot = work.join("report.png");
    let (_, stderr) = headless(
        chromium,
        &work.join("profile-shot"),
        &[&format!("--screenshot={}", shot.display())],
        &page,
    );
    let png = std::fs::read(&shot).unwrap_or_else(|e| panic!("no screenshot at {}: {e}\n{stderr}", shot.display()));
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    // A blank 1400x2000 page compresses to a few kB; a rendered report is far larger.
    assert!(png.len() > 50_000, "screenshot looks blank: {} bytes", png.len());
    println!("screenshot: {}", shot.display());
}
