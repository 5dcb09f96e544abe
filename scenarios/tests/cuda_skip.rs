//! Without a CUDA driver every `cuda/` scenario is reported skipped with the probe's reason: a real
//! run of the suite binary, read back from its results.json.

use std::collections::BTreeSet;
use std::process::Command;

use engine::cuda::{Availability, probe};
use harness::model::Outcome;

const SUITE: &str = env!("CARGO_BIN_EXE_scenarios");

#[test]
fn cuda_scenarios_are_skipped_with_the_reason_when_there_is_no_driver() {
    let reason = match probe() {
        Availability::Unavailable(reason) => reason.to_string(),
        Availability::Available(info) => {
            // Not this test's case: on a GPU machine the scenarios run (see docs/gpu.md).
            eprintln!(
                "CUDA is available here ({}); the no-driver skip path cannot be exercised",
                info.name
            );
            return;
        }
    };
    assert!(reason.starts_with("no CUDA"), "{reason}");

    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(SUITE)
        .args([
            "cuda/",
            "--repeat",
            "1",
            "--iterations",
            "1",
            "--warmup",
            "0",
            "--seed",
            "1",
            "--include-ignored",
            "--out",
        ])
        .arg(dir.path().join("out"))
        .output()
        .expect("suite binary runs");
    let results = harness::report::read_results(&dir.path().join("out"))
        .unwrap_or_else(|e| panic!("{e}; stderr: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(out.status.success(), "a run of only skipped scenarios exits 0: {out:?}");

    let listed: BTreeSet<String> = String::from_utf8(
        Command::new(SUITE)
            .args(["--list", "--format", "terse", "cuda/"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .lines()
    .map(|l| l.strip_suffix(": test").expect("terse line").to_owned())
    .collect();
    assert!(listed.len() >= 10, "cuda scenarios listed: {listed:?}");
    let ran: BTreeSet<String> = results.runs.iter().map(|r| r.scenario.clone()).collect();
    assert_eq!(ran, listed, "every cuda scenario, env-matrix variants included, ran once");
    for run in &results.runs {
        match &run.outcome {
            Outcome::Skipped { reason: r } => assert_eq!(r, &reason, "{}", run.scenario),
            other => panic!("{} should be skipped without a driver, got {other:?}", run.scenario),
        }
        assert!(run.metrics.is_empty(), "{} reported metrics while skipped", run.scenario);
    }
}
