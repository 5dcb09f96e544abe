use rand::Rng;

use super::super::{RunRecord, summarize_runs};
use crate::stats::testutil::{normal, rng};

/// One passed process of `scenario` whose latency was `value` and whose probe read `probe` at
/// both ends.
fn process(i: usize, scenario: &str, value: f64, probe: Option<f64>) -> RunRecord {
    process_ends(i, scenario, value, probe.map(|p| [p, p]))
}

fn process_ends(i: usize, scenario: &str, value: f64, probe: Option<[f64; 2]>) -> RunRecord {
    serde_json::from_value(serde_json::json!({"run_index": i, "scenario": scenario, "kind": "measure",
        "repetition": i, "outcome": {"status": "passed"}, "wall_ns": 1, "started_ms": 0.0,
        "metrics": [{"name": "latency_ns", "unit": "ns", "better": "lower", "value": value,
            "speed_probe_ns": probe}]}))
    .expect("a record parses")
}

/// A steady row `fast` of 10 processes sets the run's full speed. Row `mixed`: 7 processes at
/// full speed (1 000 ns) and 3 on a 1.8x slower machine (1 800 ns): the three are left out and
/// named, the centre is the full-speed one, and the row is not flagged for it.
#[test]
fn a_minority_of_slowed_processes_is_left_out_and_named() {
    let mut records: Vec<RunRecord> = (0..10)
        .map(|i| process(i, "fast", 50.0 + i as f64, Some(25_000.0 + i as f64)))
        .collect();
    for i in 0..10 {
        let slowed = i % 3 == 1;
        let (value, probe) = if slowed {
            (1_800.0, 45_000.0)
        } else {
            (1_000.0 + i as f64, 25_100.0)
        };
        records.push(process(10 + i, "mixed", value, Some(probe)));
    }
    let summaries = summarize_runs(&records);
    let mixed = &summaries.iter().find(|s| s.scenario == "mixed").expect("row").metrics[0];
    let slowed = mixed.slowed.as_ref().expect("slowed processes named");
    assert_eq!((slowed.processes, slowed.of, slowed.left_out.len()), (3, 10, 3));
    assert!((slowed.probe_ratio - 45_000.0 / 25_000.0).abs() < 0.01, "{slowed:?}");
    assert_eq!(slowed.left_out.iter().map(|(i, _)| *i).collect::<Vec<_>>(), vec![11, 14, 17]);
    assert_eq!((mixed.stats.n, mixed.values.len()), (7, 7));
    assert!(mixed.stats.center_value < 1_010.0, "{}", mixed.stats.center_value);
    assert!(!mixed.stats.unstable, "{:?}", mixed.stats.unstable_reason);
    assert!(slowed.describe().starts_with("3 of 10 processes left out"), "{}", slowed.describe());
    let fast = &summaries.iter().find(|s| s.scenario == "fast").expect("row").metrics[0];
    assert_eq!((fast.slowed.as_ref(), fast.stats.n), (None, 10));
}

/// One slow end reading counts only well past what the code just run can do to it: 1.36x at
/// the end is not a slowed machine, 1.8x is, as are both ends at 1.3x.
#[test]
fn one_slow_end_counts_past_the_one_end_factor() {
    let mut records: Vec<RunRecord> = (0..10).map(|i| process(i, "fast", 50.0, Some(25_000.0))).collect();
    let ends = [
        [25_000.0, 34_000.0],
        [25_000.0, 45_000.0],
        [32_500.0, 32_500.0],
        [25_000.0, 25_000.0],
    ];
    for (i, e) in ends.iter().cycle().take(12).enumerate() {
        records.push(process_ends(10 + i, "row", 1_000.0, Some(*e)));
    }
    let summaries = summarize_runs(&records);
    let slowed = summaries
        .iter()
        .find(|s| s.scenario == "row")
        .and_then(|s| s.metrics[0].slowed.clone())
        .expect("named");
    let out: Vec<usize> = slowed.left_out.iter().map(|(i, _)| (i - 10) % 4).collect();
    assert_eq!((slowed.processes, out.iter().all(|k| *k == 1 || *k == 2)), (6, true), "{slowed:?}");
}

/// Four of six processes slowed: too few at full speed to stand for the row, so every process is
/// kept and the row is `unstable` with the reason.
#[test]
fn a_majority_of_slowed_processes_is_kept_and_flagged() {
    let mut records: Vec<RunRecord> = (0..10).map(|i| process(i, "fast", 50.0, Some(25_000.0))).collect();
    for i in 0..6 {
        let probe = if i < 4 { 42_000.0 } else { 25_000.0 };
        records.push(process(10 + i, "mostly_slow", 1_000.0 + i as f64, Some(probe)));
    }
    let summaries = summarize_runs(&records);
    let row = &summaries.iter().find(|s| s.scenario == "mostly_slow").expect("row").metrics[0];
    let slowed = row.slowed.as_ref().expect("named");
    assert_eq!((slowed.processes, slowed.of, slowed.left_out.len(), row.stats.n), (4, 6, 0, 6));
    assert!(row.stats.unstable);
    let why = row.stats.unstable_reason.as_deref().unwrap_or("");
    assert!(
        why.contains("the machine ran slower while measured") && why.contains("4 of 6"),
        "{why}"
    );
    assert_eq!(
        summaries.iter().find(|s| s.scenario == "mostly_slow").map(|s| s.verdict),
        Some(super::super::Verdict::Unstable)
    );
}

/// Without probes (counted metrics, old results, `iter_timed`) nothing changes; fewer than three
/// probes in the run set no full speed.
#[test]
fn rows_without_probes_are_untouched() {
    let records: Vec<RunRecord> = (0..5).map(|i| process(i, "a", 1_000.0 * (1 + i % 2) as f64, None)).collect();
    let row = &summarize_runs(&records)[0].metrics[0];
    assert_eq!((row.slowed.as_ref(), row.stats.n), (None, 5));
    let two: Vec<RunRecord> = (0..2).map(|i| process(i, "a", 1_000.0, Some(25_000.0 * (1 + i) as f64))).collect();
    assert_eq!(super::fastest_probe(&two), None);
}

/// Eight of thirty processes at full speed, twenty-two slowed: eight stand for the row (at least
/// `MIN_FULL_SPEED`), so the slowed are left out and the row keeps the full-speed number; it is
/// `unstable` all the same, since the machine ran slowed for most of it.
#[test]
fn enough_full_speed_processes_stand_for_the_row_though_a_minority() {
    let mut records: Vec<RunRecord> = (0..10).map(|i| process(i, "fast", 50.0, Some(25_000.0))).collect();
    for i in 0..30 {
        let (value, probe) = if i % 4 == 0 {
            (1_000.0 + i as f64, 25_000.0)
        } else {
            (1_750.0, 44_000.0)
        };
        records.push(process(10 + i, "row", value, Some(probe)));
    }
    let summaries = summarize_runs(&records);
    let row = &summaries.iter().find(|s| s.scenario == "row").expect("row").metrics[0];
    let slowed = row.slowed.as_ref().expect("named");
    assert_eq!((slowed.processes, slowed.of, slowed.left_out.len(), row.stats.n), (22, 30, 22, 8));
    assert!(row.stats.center_value < 1_030.0, "{}", row.stats.center_value);
    let why = row.stats.unstable_reason.as_deref().unwrap_or("");
    assert!(
        row.stats.unstable && why.contains("measured mostly on a slowed machine: 22 of 30"),
        "{why}"
    );
    assert!(why.ends_with("its 8 processes at full speed"), "{why}");
}

type SimRng = rand_chacha::ChaCha8Rng;

fn noisy(r: &mut SimRng, x: f64) -> f64 {
    x * (0.05 * normal(r)).exp()
}

/// `rows` rows of 30 processes, each on a machine slowed 1.7x (probe and code alike) with
/// probability `p_slow`; values and probes with 5% lognormal noise, full speed 1 000 ns.
fn mixed_run(r: &mut SimRng, rows: usize, p_slow: f64) -> Vec<RunRecord> {
    let mut out = Vec::new();
    for row in 0..rows {
        for p in 0..30 {
            let factor = if r.random_bool(p_slow) { 1.7 } else { 1.0 };
            let probe = noisy(r, 25_000.0 * factor);
            out.push(process(
                row * 30 + p,
                &format!("row{row:03}"),
                noisy(r, 1_000.0 * factor),
                Some(probe),
            ));
        }
    }
    out
}

/// Every row of `records` is within 5% of full speed or flagged, never quietly slowed; a row
/// whose slowed processes were the majority is flagged whatever its number. Returns the rows
/// flagged and the rows whose every process, kept, would have been over 15% off.
fn full_speed_or_flagged(records: &[RunRecord]) -> (usize, usize) {
    let (mut flagged, mut kept_all_off) = (0, 0);
    for s in &summarize_runs(records) {
        let m = &s.metrics[0];
        flagged += usize::from(m.stats.unstable);
        if let Some(slowed) = m.slowed.as_ref().filter(|s| s.flags_row()) {
            assert!(m.stats.unstable, "{}: {slowed:?} not flagged", s.scenario);
        }
        if m.slowed.as_ref().is_some_and(|s| s.left_out.is_empty()) {
            assert!(m.stats.unstable, "{}: the slowed kept, not flagged", s.scenario);
        } else {
            let off = m.stats.center_value / 1_000.0 - 1.0;
            assert!(off.abs() < 0.05, "{}: {} ({:?})", s.scenario, m.stats.center_value, m.slowed);
        }
        let all: Vec<f64> = m
            .values
            .iter()
            .map(|v| v.1)
            .chain(m.slowed.iter().flat_map(|s| s.left_out.iter().map(|v| v.1)))
            .collect();
        let geo = (all.iter().map(|x| x.ln()).sum::<f64>() / all.len() as f64).exp();
        kept_all_off += usize::from(geo > 1_150.0);
    }
    (flagged, kept_all_off)
}

/// The simulation behind the rule (seeded). Rows of 30 processes, values and probes with 5%
/// lognormal noise.
/// - Steady machine: under 1% of processes are left out.
/// - A machine slowed 1.7x for 40% of the processes: every row is within 5% of full speed, where
///   keeping every process puts it over 15% above in 9 rows of 10; the rows slowed in most of
///   their processes (P = 0.1) are flagged.
/// - Slowed for 85% of them (a run like 2026-12-06e): a row with 5 or more processes at full
///   speed (about half) is within 5%; every row is flagged.
/// - Slowed for 95%: the run's full speed is still found (at the 10th percentile it was not, and
///   every row read 1.7x, `ok`); every row is flagged.
#[test]
fn slowed_sim_leaves_out_the_slowed_machine_and_little_else() {
    let mut r = rng(20_261_206);
    let rows = 100;
    let mut steady = Vec::new();
    for row in 0..rows {
        for p in 0..30 {
            let probe = [noisy(&mut r, 25_000.0), noisy(&mut r, 25_000.0)];
            steady.push(process_ends(
                row * 30 + p,
                &format!("row{row:03}"),
                noisy(&mut r, 1_000.0),
                Some(probe),
            ));
        }
    }
    let left_out: usize = summarize_runs(&steady)
        .iter()
        .filter_map(|s| s.metrics[0].slowed.as_ref())
        .map(|s| s.left_out.len())
        .sum();
    assert!(
        left_out * 100 < rows * 30,
        "{left_out} of {} processes left out on a steady machine",
        rows * 30
    );

    let (flagged, kept_all_off) = full_speed_or_flagged(&mixed_run(&mut r, rows, 0.4));
    assert!(
        kept_all_off * 10 > rows * 9,
        "keeping every process is off by over 15% in only {kept_all_off} of {rows} rows"
    );
    // P(over 15 of 30 slowed) at 0.4 is 0.10.
    assert!((2..25).contains(&flagged), "{flagged} of {rows} rows flagged");
    for p_slow in [0.85, 0.95] {
        let (flagged, _) = full_speed_or_flagged(&mixed_run(&mut r, rows, p_slow));
        assert_eq!(flagged, rows, "slowed {p_slow}");
    }
}
