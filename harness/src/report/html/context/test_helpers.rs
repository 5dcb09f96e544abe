//! Results files built in memory for the context tests.

use crate::model::summarize_runs;
use crate::model::{Better, HostInfo, MetricSample, Outcome, ResultsFile, RunMeta, RunRecord, ScenarioKind, Unit};

fn meta() -> RunMeta {
    RunMeta {
        format_version: 1,
        harness_version: "0".into(),
        binary: "suite".into(),
        command: vec!["suite".into(), "--seed".into(), "7".into()],
        seed: 7,
        order: vec![],
        repeat: 5,
        iterations: 3,
        warmup: 1,
        target_ci: None,
        min_time_s: None,
        test_threads: 1,
        started_at: "2025-01-01T00:00:00Z".into(),
        finished_at: "2025-01-01T00:01:00Z".into(),
        host: HostInfo::default(),
        plan: None,
        counters: None,
        remembered_full_speed: None,
    }
}

/// Run `i` of `name`, with one `latency_ns` metric of `value` when given.
pub(crate) fn record(i: usize, name: &str, kind: ScenarioKind, outcome: Outcome, value: Option<f64>) -> RunRecord {
    RunRecord {
        run_index: i,
        scenario: name.into(),
        kind,
        env: Default::default(),
        repetition: i,
        outcome,
        metrics: value
            .map(|v| {
                vec![MetricSample {
                    name: "latency_ns".into(),
                    unit: Unit::Nanoseconds,
                    better: Better::Lower,
                    value: v,
                    iterations: vec![v * 0.99, v * 1.01],
                    source: None,
                    profile: None,
                    distortion: None,
                    speed_probe_ns: None,
                }]
            })
            .unwrap_or_default(),
        wall_ns: 1,
        started_ms: i as f64,
        env_changes: vec![],
        stdout: String::new(),
        stderr: String::new(),
        process: Default::default(),
        counted_by: None,
    }
}

/// A finished results file of `runs`, summarized.
pub(crate) fn results(runs: Vec<RunRecord>) -> ResultsFile {
    ResultsFile {
        meta: meta(),
        summaries: summarize_runs(&runs),
        runs,
    }
}
