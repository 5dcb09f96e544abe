//! The suites through real processes: the main suite lists every kernel x dtype x threads x size and its
//! checks pass; the failure demos fail (and pass) exactly as documented.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use harness::execute::{SuiteBinary, Target, TargetRequest};
use harness::model::{Outcome, ResultsFile, RunRecord};

const SUITE: &str = env!("CARGO_BIN_EXE_scenarios");
const DEMOS: &str = env!("CARGO_BIN_EXE_failure_demos");

/// Runs `bin` with `args`, quick settings and `--out dir/out`; returns the output and results.json.
fn run(bin: &str, dir: &Path, args: &[&str]) -> (Output, ResultsFile) {
    let out = Command::new(bin)
        .args(args)
        .args(["--iterations", "2", "--warmup", "0", "--repeat", "1", "--seed", "1", "--out"])
        .arg(dir.join("out"))
        .output()
        .expect("suite binary runs");
    let results =
        harness::report::read_results(&dir.join("out")).unwrap_or_else(|e| panic!("{e}; stderr: {}", String::from_utf8_lossy(&out.stderr)));
    (out, results)
}

fn only<'a>(r: &'a ResultsFile, name: &str) -> &'a RunRecord {
    let runs: Vec<&RunRecord> = r.runs.iter().filter(|x| x.scenario == name).collect();
    assert_eq!(
        runs.len(),
        1,
        "runs of {name}: {:?}",
        r.runs.iter().map(|x| &x.scenario).collect::<Vec<_>>()
    );
    runs[0]
}

fn failure_message(run: &RunRecord) -> &str {
    match &run.outcome {
        Outcome::Failed { message } => message,
        other => panic!("{} should have failed, got {other:?}", run.scenario),
    }
}

fn listed(bin: &str) -> Vec<String> {
    let out = Command::new(bin).args(["--list", "--format", "terse"]).output().expect("lists");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.strip_suffix(": test").expect("terse line").to_owned())
        .collect()
}

#[test]
fn lists_one_measurement_per_kernel_dtype_threads_and_size() {
    let names = listed(SUITE);
    let max = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: Vec<usize> = if max == 1 { vec![1] } else { vec![1, max] };
    let mut want = Vec::new();
    for dt in ["f32", "f16", "bf16"] {
        for t in &threads {
            for size in ["1x256x256", "32x512x512", "32x1024x1024"] {
                want.push(format!("matmul/{dt}/threads={t}/{size}"));
            }
            want.push(format!("add/{dt}/threads={t}/len=16777216"));
            want.push(format!("gather/{dt}/threads={t}/2048x1024"));
            want.push(format!("reduce_mean_rows/{dt}/threads={t}/32x151936"));
        }
        for kernel in ["matmul", "add", "gather", "reduce_mean_rows"] {
            want.push(format!("check/{kernel}/{dt}"));
        }
    }
    for t in &threads {
        want.push(format!("peak/fma_f32/threads={t}"));
        want.push(format!("peak/triad/threads={t}"));
    }
    for vocab in ["32000", "151936"] {
        for s in [
            "greedy",
            "top_k",
            "top_k_full_sort",
            "top_p",
            "min_p",
            "temperature",
            "repetition_penalty",
            "chain",
        ] {
            want.push(format!("sampling/{s}/vocab={vocab}"));
        }
    }
    want.extend(
        [
            "kv_cache/alloc_dealloc_pages",
            "kv_cache/grow_sequence",
            "check/sampling/top_k_matches_full_sort",
            "check/kv_cache/no_leak",
        ]
        .map(String::from),
    );
    want.push("check/config/cuda_graph_frozen_from_env[ENGINE_CUDA_GRAPH=0]".into());
    want.push(format!("check/config/threads_frozen_from_env[ENGINE_THREADS={max}]"));
    let missing: Vec<&String> = want.iter().filter(|w| !names.contains(w)).collect();
    assert!(missing.is_empty(), "not listed: {missing:?}");
    assert!(!names.iter().any(|n| n.starts_with("smoke/")), "placeholders removed");
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("warm_state/") || n.starts_with("config_freeze/")),
        "demos are not in the main suite"
    );
}

#[test]
fn every_check_passes() {
    let dir = tempfile::tempdir().unwrap();
    let (out, r) = run(SUITE, dir.path(), &["check/"]);
    let failed: Vec<_> = r
        .runs
        .iter()
        .filter(|x| x.outcome != Outcome::Passed)
        .map(|x| (&x.scenario, &x.outcome))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(out.status.code(), Some(0));
    assert!(r.runs.len() >= 20, "{} checks ran", r.runs.len());
}

#[test]
fn in_process_config_phases_fail_and_env_matrix_phases_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (out, r) = run(DEMOS, dir.path(), &["config_freeze/"]);
    assert_eq!(out.status.code(), Some(1), "a failing check makes the exit status 1");
    let message = failure_message(only(&r, "config_freeze/wrong_in_process_phases"));
    if cfg!(debug_assertions) {
        // The engine's freeze guard fired, naming the variable.
        assert!(
            message.contains("ENGINE_CUDA_GRAPH changed after the runtime config was frozen"),
            "{message}"
        );
    } else {
        // No guard in release: the check's own assertion fails.
        assert!(
            message.contains("measured with the frozen knob") && message.contains("ENGINE_CUDA_GRAPH"),
            "{message}"
        );
    }
    for v in ["0", "1"] {
        let run = only(&r, &format!("config_freeze/right_env_matrix_phases[ENGINE_CUDA_GRAPH={v}]"));
        assert_eq!(run.outcome, Outcome::Passed);
        assert_eq!(run.env.get("ENGINE_CUDA_GRAPH").map(String::as_str), Some(v));
    }
}

#[test]
fn brittle_check_fails_alone_and_passes_after_its_warmer() {
    let dir = tempfile::tempdir().unwrap();
    let brittle = "warm_state/brittle_expects_warm_plan";
    let warmer = "warm_state/plan_cache_warmer";
    let (out, r) = run(DEMOS, dir.path(), &["--exact", brittle]);
    assert_eq!(out.status.code(), Some(1));
    assert!(failure_message(only(&r, brittle)).contains("plan cache is cold"));

    // Both in one process, in each order: what order-dependence detection does.
    let demos = SuiteBinary::new(DEMOS);
    let in_one_process = |names: [&str; 2]| {
        let request = TargetRequest {
            names: names.map(String::from).to_vec(),
            env: BTreeMap::new(),
            iterations: 1,
            warmup: 0,
            timeout: Some(Duration::from_secs(60)),
            scratch: dir.path().to_owned(),
            id: names.join("+").replace('/', "_"),
            gpu: None,
            counters: None,
        };
        let result = demos.run(&request).expect("process runs");
        result.results.into_iter().map(|s| (s.name, s.outcome)).collect::<Vec<_>>()
    };
    let after = in_one_process([warmer, brittle]);
    assert_eq!(after, [(warmer.to_owned(), Outcome::Passed), (brittle.to_owned(), Outcome::Passed)]);
    let before = in_one_process([brittle, warmer]);
    assert!(matches!(&before[0].1, Outcome::Failed { .. }), "{before:?}");
}
