//! More processes for a measurement that met a slowed machine (`model/slowed.rs`) in so many of
//! its processes that too few ran at full speed to stand for it. The machine's speed changes
//! over seconds, and a bench binary's 30 processes a row can all fall in one slowed stretch
//! (bytecount's 1 050 processes took 3 s, and every one of the last 420 met the slowed machine:
//! docs/criterion-agreement-2026-12-07b/bytecount-dropin-probes.csv). Such a row gets rounds of
//! more processes, later in the run, until enough ran at full speed or the cap is met; else it
//! stays `unstable`.

use std::time::Duration;

use super::{ended_early, repeats, timed_runs};
use crate::model::{Listed, Outcome, RunRecord, ScenarioKind, full_speed, full_speed_stands, is_slowed};
use crate::plan::{self, CountedPlan};

/// Processes left out for a slowed machine do not count toward `max_repeat`, up to as many again:
/// a row has at most `max_repeat` that stand for it and `2 * max_repeat` in all. `remembered`:
/// the full speed an earlier run on this boot met (`speed_memory.rs`).
pub(super) fn more_at_full_speed(
    selected: &[Listed],
    records: &[RunRecord],
    remembered: Option<f64>,
    max_repeat: usize,
    timeout: Option<Duration>,
    counted: CountedPlan,
) -> Vec<plan::Job> {
    let Some((fastest, _)) = full_speed(records, remembered) else {
        return Vec::new();
    };
    let mut jobs = Vec::new();
    for l in selected.iter().filter(|l| l.kind == ScenarioKind::Measure) {
        let mine = timed_runs(records, &l.name);
        if ended_early(&mine) {
            continue;
        }
        let probes: Vec<[f64; 2]> = mine
            .iter()
            .filter(|r| r.outcome == Outcome::Passed)
            .filter_map(|r| r.speed_probe())
            .collect();
        let slow = probes.iter().filter(|p| is_slowed(**p, fastest)).count();
        let fast = probes.len() - slow;
        if slow == 0 || full_speed_stands(fast, slow) {
            continue;
        }
        let cap = (max_repeat + slow).min(2 * max_repeat);
        let n = mine.len();
        if n >= cap {
            continue;
        }
        let add = (n / 2).max(2).min(cap - n);
        jobs.extend(repeats(l, records, add, timeout, counted));
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str) -> Listed {
        Listed {
            name: name.to_owned(),
            kind: ScenarioKind::Measure,
            ignored: None,
            env: Default::default(),
            timeout: None,
            uncounted: None,
        }
    }

    fn process(i: usize, scenario: &str, probe: f64) -> RunRecord {
        serde_json::from_value(serde_json::json!({"run_index": i, "scenario": scenario, "kind": "measure",
            "repetition": i, "outcome": {"status": "passed"}, "wall_ns": 1, "started_ms": 0.0,
            "metrics": [{"name": "latency_ns", "unit": "ns", "better": "lower", "value": 1.0,
                "speed_probe_ns": [probe, probe]}]}))
        .expect("a record parses")
    }

    /// Rows of 30 (cap 30): `steady` all at full speed, `stands` with 6 at full speed, `short` with
    /// 3. Only `short` gets more, 15 a round until 60 in all.
    #[test]
    fn a_row_short_of_full_speed_processes_gets_more_up_to_twice_the_cap() {
        let mut records = Vec::new();
        for (row, fast) in [("steady", 30), ("stands", 6), ("short", 3)] {
            for p in 0..30 {
                let probe = if p < fast { 25_000.0 } else { 45_000.0 };
                records.push(process(records.len(), row, probe));
            }
        }
        let selected: Vec<Listed> = ["steady", "stands", "short"].map(listed).to_vec();
        let more = |records: &[RunRecord]| more_at_full_speed(&selected, records, None, 30, None, CountedPlan::Off);
        let jobs = more(&records);
        assert_eq!(jobs.len(), 15);
        assert!(jobs.iter().all(|j| j.scenario == "short"));
        assert_eq!(jobs.iter().map(|j| j.repetition).min(), Some(90), "numbered after the row's own");
        // Still slowed: 15 more, to 60; then none.
        records.extend((0..15).map(|i| process(100 + i, "short", 45_000.0)));
        assert_eq!(more(&records).len(), 15);
        records.extend((0..15).map(|i| process(200 + i, "short", 45_000.0)));
        assert!(more(&records).is_empty(), "60 processes is the cap");
        // Two more at full speed (5 in all) and the row stands.
        let mut met: Vec<RunRecord> = records[..90].to_vec();
        met.extend((0..2).map(|i| process(300 + i, "short", 25_000.0)));
        assert!(more(&met).is_empty());
    }
}
