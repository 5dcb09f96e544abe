//! Benchmark of the HTML report at scale: 1000 measurement scenarios x 30 runs, synthesized
//! into a temp run directory, then `write_html` timed. Run in release:
//! `cargo run --release -p harness --example render_scale`.

use std::time::Instant;

use harness::model::{Better, HostInfo, MetricSample, Outcome, ResultsFile, RunMeta, RunRecord, ScenarioKind, Unit};

const SCENARIOS: usize = 1000;
const RUNS: usize = 30;

fn main() {
    let dir = std::env::temp_dir().join(format!("harness-render-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut runs = Vec::with_capacity(SCENARIOS * RUNS);
    // A fixed LCG keeps the synthetic values identical across runs of the benchmark.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut noise = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    for r in 0..RUNS {
        for s in 0..SCENARIOS {
            let base = 1000.0 * (1.0 + s as f64 / 100.0);
            let value = base * (1.0 + 0.05 * noise()) * if (s + r) % 97 == 0 { 3.0 } else { 1.0 };
            let failed = s % 50 == 0 && r % 10 == 0;
            runs.push(RunRecord {
                run_index: runs.len(),
                scenario: format!("suite::module_{:02}::scenario_{s:04}", s % 37),
                kind: ScenarioKind::Measure,
                env: Default::default(),
                repetition: r,
                outcome: if failed {
                    Outcome::Failed {
                        message: "assertion failed".into(),
                    }
                } else {
                    Outcome::Passed
                },
                metrics: if failed {
                    Vec::new()
                } else {
                    vec![MetricSample {
                        name: "latency_ns".into(),
                        unit: Unit::Nanoseconds,
                        better: Better::Lower,
                        value,
                        iterations: (0..20).map(|i| value * (1.0 + 0.01 * noise() + 0.0001 * i as f64)).collect(),
                        source: None,
                        profile: None,
                        distortion: None,
                        speed_probe_ns: None,
                    }]
                },
                wall_ns: 5_000_000,
                started_ms: runs.len() as f64,
                env_changes: Vec::new(),
                stdout: if failed { "some output\n".repeat(20) } else { String::new() },
                stderr: String::new(),
                process: Default::default(),
                counted_by: None,
            });
        }
    }
    let t = Instant::now();
    let summaries = harness::model::summarize_runs(&runs);
    let summarize_s = t.elapsed().as_secs_f64();
    let results = ResultsFile {
        meta: RunMeta {
            format_version: harness::model::FORMAT_VERSION,
            harness_version: env!("CARGO_PKG_VERSION").into(),
            binary: "synthetic".into(),
            command: vec!["synthetic".into(), "--seed".into(), "1".into()],
            seed: 1,
            order: summaries.iter().map(|s| s.scenario.clone()).collect(),
            repeat: RUNS,
            iterations: 20,
            warmup: 3,
            target_ci: None,
            min_time_s: None,
            test_threads: 1,
            started_at: "2025-01-01T00:00:00Z".into(),
            finished_at: "2025-01-01T01:00:00Z".into(),
            host: HostInfo::default(),
            plan: None,
            counters: None,
            remembered_full_speed: None,
        },
        summaries,
        runs,
    };
    harness::report::write_json(&dir.join("results.json"), &results).unwrap();
    let t = Instant::now();
    let path = harness::report::write_html(&dir).unwrap();
    let render_s = t.elapsed().as_secs_f64();
    let size = std::fs::metadata(&path).unwrap().len();
    println!(
        "{SCENARIOS} scenarios x {RUNS} runs: write_html {render_s:.3} s (reading results.json included), index.html {:.1} MB; \
         (summarize_runs {summarize_s:.3} s, not part of rendering)",
        size as f64 / 1e6
    );
    println!("page: {}", path.display());
}
