//! What the terminal and the report say about GPUs beyond the metric rows: each GPU's clocks and
//! throttle reasons (by name) at the start and end, a clock lock the run held, and a line per
//! series that discarded throttled samples, a warning when that was most of them.

use crate::model::{GpuState, HostInfo, ResultsFile, throttle_notes};

/// One GPU's state as a line: clocks, throttle reasons by name (with the driver's mask), heat, power.
pub(crate) fn gpu_state_line(g: &GpuState) -> String {
    let n = |v: Option<f64>, unit: &str| v.map_or("?".into(), |v| format!("{v:.0} {unit}"));
    let reasons = match (g.throttle_reasons.as_deref(), g.throttle_reason_names.is_empty()) {
        (None, _) => "?".to_owned(),
        (Some(mask), true) => format!("none ({mask})"),
        (Some(mask), false) => format!("{} ({mask})", g.throttle_reason_names.join(", ")),
    };
    format!(
        "#{} {} (driver {}, CUDA {}): SM {}, memory {}, throttle reasons {reasons}, {}, {}",
        g.index,
        g.name,
        g.driver,
        g.cuda_version.as_deref().unwrap_or("?"),
        n(g.sm_clock_mhz, "MHz"),
        n(g.mem_clock_mhz, "MHz"),
        n(g.temperature_c, "°C"),
        n(g.power_w, "W"),
    )
}

/// The clock lock the run held, if any, as a line.
pub(crate) fn clock_lock_line(h: &HostInfo) -> Option<String> {
    let locks: Vec<String> = h
        .gpu_clock_lock
        .iter()
        .map(|l| format!("#{} at {:.0} MHz ({})", l.gpu, l.sm_clock_mhz, l.mode))
        .collect();
    (!locks.is_empty()).then(|| format!("SM clock locked: {}", locks.join(", ")))
}

/// The terminal's GPU block: empty for a run that saw no GPU and discarded nothing.
pub(crate) fn gpu_block(results: &ResultsFile) -> String {
    let h = &results.meta.host;
    let mut lines = Vec::new();
    for (when, states) in [("gpu at start", &h.gpu_start), ("gpu at end", &h.gpu_end)] {
        lines.extend(states.iter().map(|g| format!("{when}: {}", gpu_state_line(g))));
    }
    lines.extend(clock_lock_line(h));
    lines.extend(throttle_notes(&results.summaries).iter().map(|n| n.text()));
    if lines.is_empty() {
        return String::new();
    }
    format!("\n{}\n", lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, LockedClocks, MetricSample, Outcome, RunMeta, RunRecord, ScenarioKind, Unit, summarize_runs};

    fn count(name: &str, v: f64) -> MetricSample {
        MetricSample {
            name: name.into(),
            unit: Unit::Count,
            better: Better::Neither,
            value: v,
            iterations: vec![],
            source: None,
            profile: None,
            distortion: None,
            speed_probe_ns: None,
        }
    }

    /// Two processes of `name`: cold discarded (6 of 10, 5 of 10), hot (1 of 20, 0 of 20).
    fn runs(name: &str) -> Vec<RunRecord> {
        [(0, 6.0, 1.0), (1, 5.0, 0.0)]
            .map(|(i, cold, hot)| RunRecord {
                run_index: i,
                scenario: name.into(),
                kind: ScenarioKind::Measure,
                env: Default::default(),
                repetition: i,
                outcome: Outcome::Passed,
                metrics: vec![
                    count("cold_samples", 10.0),
                    count("cold_discarded_samples", cold),
                    count("samples", 20.0),
                    count("discarded_samples", hot),
                    MetricSample {
                        unit: Unit::Other("MHz".into()),
                        ..count("sm_clock_threshold_mhz", 1485.0)
                    },
                ],
                wall_ns: 1,
                started_ms: 0.0,
                env_changes: vec![],
                stdout: String::new(),
                stderr: String::new(),
                process: Default::default(),
                counted_by: None,
            })
            .to_vec()
    }

    fn results(runs: Vec<RunRecord>) -> ResultsFile {
        let mut meta = RunMeta::started("s".into(), vec![], 1, 2, 3, 1, String::new(), HostInfo::default());
        meta.host.gpu_start = vec![GpuState {
            name: "NVIDIA H200".into(),
            sm_clock_mhz: Some(345.0),
            throttle_reasons: Some("0x0000000000000001".into()),
            throttle_reason_names: vec!["gpu_idle".into()],
            ..GpuState::default()
        }];
        meta.host.gpu_clock_lock = vec![LockedClocks {
            mode: "max".into(),
            gpu: 0,
            sm_clock_mhz: 1980.0,
        }];
        ResultsFile {
            meta,
            summaries: summarize_runs(&runs),
            runs,
        }
    }

    #[test]
    fn the_terminal_names_the_reasons_the_lock_and_each_series_that_discarded() {
        let text = gpu_block(&results(runs("cuda/x")));
        let lines: Vec<&str> = text.trim().lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with("gpu at start: #0 NVIDIA H200")
                && lines[0].contains("SM 345 MHz, memory ?, throttle reasons gpu_idle (0x0000000000000001)"),
            "{}",
            lines[0]
        );
        assert_eq!(lines[1], "SM clock locked: #0 at 1980 MHz (max)");
        assert_eq!(
            lines[2],
            "warning: mostly throttled: cuda/x: 11 of 20 cold samples (55%) ran below 1485 MHz (--throttle-threshold) and were discarded"
        );
        assert_eq!(
            lines[3],
            "cuda/x: 1 of 40 hot samples (2%) ran below 1485 MHz (--throttle-threshold) and were discarded"
        );
    }

    #[test]
    fn a_run_without_gpus_or_discards_adds_nothing() {
        let mut quiet = runs("q");
        for r in &mut quiet {
            r.metrics.retain(|m| !m.name.contains("discarded"));
        }
        let mut r = results(quiet);
        r.meta.host = HostInfo::default();
        assert_eq!(gpu_block(&r), "");
    }
}
