//! `cargo bench` and `cargo test --benches` on a downstream crate whose harness suite is a
//! `[[bench]] harness = false` target (tests/fixtures/bench_suite: one check, one measurement).
//!
//! Cold, this builds harness and its dependencies once more, into `<target>/tmp/fixture-bench`
//! (about 50 s of CPU); later runs are incremental. The fixture resolves offline from the
//! registry cache the workspace build filled, with the workspace's Cargo.lock copied in.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench_suite")
}

/// `cargo ARGS` in the fixture, as a user would type it there.
fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(args)
        .current_dir(fixture())
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixture-bench"))
        // When nextest runs this test, its variables must not reach the fixture's processes.
        .env_remove("NEXTEST")
        .env_remove("NEXTEST_RUN_ID");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The libtest line for `name`, as libtest-mimic pads it: `test NAME<spaces> ... RESULT`.
fn test_line<'a>(stdout: &'a str, name: &str) -> Option<&'a str> {
    stdout.lines().find(|l| {
        l.strip_prefix("test ")
            .is_some_and(|r| r.split(" ... ").next().map(str::trim) == Some(name))
    })
}

#[test]
fn cargo_bench_measures_and_cargo_test_smoke_tests_a_bench_target() {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(&lock, fixture().join("Cargo.lock")).unwrap();

    // `cargo test --benches`: cargo runs the bench binary without `--bench`; every scenario
    // runs once, libtest-style.
    let o = cargo(&["test", "--benches", "--offline"], &[]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        test_line(&stdout, "fixture/check").is_some_and(|l| l.ends_with("... ok")),
        "{stdout}"
    );
    assert!(test_line(&stdout, "fixture/sum").is_some_and(|l| l.ends_with("... ok")), "{stdout}");
    assert!(stdout.contains("test result: ok. 2 passed; 0 failed;"), "{stdout}");

    // A failing scenario: libtest's FAILED line, the message, and libtest's exit status 101.
    let o = cargo(&["test", "--benches", "--offline"], &[("BENCH_FIXTURE_FAIL", "1")]);
    let (stdout, stderr) = text(&o);
    assert_ne!(o.status.code(), Some(0), "{stdout}");
    assert!(
        test_line(&stdout, "fixture/check").is_some_and(|l| l.ends_with("... FAILED")),
        "{stdout}"
    );
    assert!(
        stdout.contains("planted failure") && stdout.contains("test result: FAILED. 1 passed; 1 failed;"),
        "{stdout}"
    );
    // cargo says only "test failed"; the binary it ran (named in its `Running` line) exits 101.
    let binary = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Running benches/suite.rs (")?.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no Running line: {stderr}"));
    let direct = Command::new(binary)
        .current_dir(fixture())
        .env("CARGO_MANIFEST_DIR", fixture())
        .env("BENCH_FIXTURE_FAIL", "1")
        .env_remove("NEXTEST")
        .env_remove("NEXTEST_RUN_ID")
        .output()
        .unwrap();
    assert_eq!(direct.status.code(), Some(101), "libtest's failure status: {:?}", text(&direct));

    // `cargo bench -- ARGS`: cargo adds `--bench`, which selects the measurement, and the
    // arguments after `--` reach the harness. The dev profile reuses the build above.
    let out = tempfile::tempdir().unwrap();
    let out_arg = out.path().to_str().unwrap();
    let args = [
        "bench",
        "--offline",
        "--profile",
        "dev",
        "--",
        "--repeat",
        "2",
        "--iterations",
        "3",
        "--out",
        out_arg,
    ];
    let o = cargo(&args, &[]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("results.json")).unwrap()).unwrap();
    assert_eq!(results["meta"]["iterations"], 3);
    let runs = results["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "--repeat 2 of the one measurement, no check: {runs:?}");
    for r in runs {
        assert_eq!(r["scenario"], "fixture/sum");
        assert_eq!(r["outcome"]["status"], "passed", "{r}");
        let latency = r["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "latency_ns").unwrap();
        assert_eq!(latency["iterations"].as_array().unwrap().len(), 3, "--iterations 3: {latency}");
    }
}
