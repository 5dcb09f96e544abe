//! The `cuda/` scenarios through a real run of the suite binary, read back from its results.json:
//! without a CUDA driver every one is reported skipped with the probe's reason; with a GPU every
//! one (the deliberate race excepted) runs and passes, and none is skipped.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use engine::cuda::{Availability, probe};
use harness::model::{Outcome, ResultsFile};

const SUITE: &str = env!("CARGO_BIN_EXE_scenarios");
/// The deliberate cross-stream race: ignored by default, and expected to fail on a GPU.
const RACE: &str = "cuda/race/legacy_readback_after_nonblocking_fill";

/// Names `--list --format terse cuda/` prints (ignored ones included).
fn listed() -> BTreeSet<String> {
    let out = Command::new(SUITE).args(["--list", "--format", "terse", "cuda/"]).output().unwrap();
    let listed: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.strip_suffix(": test").expect("terse line").to_owned())
        .collect();
    assert!(listed.len() >= 10, "cuda scenarios listed: {listed:?}");
    listed
}

/// One process per scenario of `cuda/`, two iterations each, with `extra` arguments.
fn run_cuda(dir: &Path, extra: &[&str]) -> (Output, ResultsFile) {
    let out = Command::new(SUITE)
        .args(["cuda/", "--repeat", "1", "--iterations", "2", "--warmup", "1", "--seed", "1"])
        .args(extra)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .expect("suite binary runs");
    let results =
        harness::report::read_results(&dir.join("out")).unwrap_or_else(|e| panic!("{e}; stderr: {}", String::from_utf8_lossy(&out.stderr)));
    (out, results)
}

#[test]
fn cuda_scenarios_pass_on_a_gpu_and_are_skipped_with_the_reason_without_one() {
    let dir = tempfile::tempdir().unwrap();
    match probe() {
        Availability::Unavailable(reason) => without_driver(dir.path(), &reason.to_string()),
        Availability::Available(info) => {
            eprintln!("CUDA is available ({}): running the cuda/ scenarios for real", info.name);
            with_gpu(dir.path());
        }
    }
}

fn without_driver(dir: &Path, reason: &str) {
    assert!(reason.starts_with("no CUDA"), "{reason}");
    let (out, results) = run_cuda(dir, &["--include-ignored"]);
    assert!(out.status.success(), "a run of only skipped scenarios exits 0: {out:?}");
    let ran: BTreeSet<String> = results.runs.iter().map(|r| r.scenario.clone()).collect();
    assert_eq!(ran, listed(), "every cuda scenario, env-matrix variants included, ran once");
    for run in &results.runs {
        match &run.outcome {
            Outcome::Skipped { reason: r } => assert_eq!(r, reason, "{}", run.scenario),
            other => panic!("{} should be skipped without a driver, got {other:?}", run.scenario),
        }
        assert!(run.metrics.is_empty(), "{} reported metrics while skipped", run.scenario);
    }
}

fn with_gpu(dir: &Path) {
    let (out, results) = run_cuda(dir, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected: BTreeSet<String> = listed().into_iter().filter(|n| !n.starts_with(RACE)).collect();
    let ran: BTreeSet<String> = results.runs.iter().map(|r| r.scenario.clone()).collect();
    assert_eq!(
        ran, expected,
        "every cuda scenario but the deliberate race ran once; stderr: {stderr}"
    );
    for run in &results.runs {
        assert_eq!(run.outcome, Outcome::Passed, "{} on a GPU; stderr: {stderr}", run.scenario);
        let is_measure = results
            .summaries
            .iter()
            .any(|s| s.scenario == run.scenario && !s.metrics.is_empty());
        let is_check = run.scenario.starts_with("cuda/race/") || run.scenario.starts_with("cuda/test_stream/");
        assert!(is_measure || is_check, "{} passed but reported no metric", run.scenario);
    }
    assert!(out.status.success(), "every scenario passed, so the run exits 0: {stderr}");
}
