use super::*;
use crate::model::{Better, SideStats, Unit};

fn entry(name: String, verdict: CompareVerdict, ratio: f64, mde: f64) -> CompareEntry {
    let side = |c: f64| {
        Some(SideStats {
            center: c,
            low: c * 0.99,
            high: c * 1.01,
        })
    };
    CompareEntry {
        name,
        metric: "wall_time".into(),
        unit: Unit::Nanoseconds,
        better: Better::Lower,
        ratio: Some(ratio),
        low: Some(ratio * 0.98),
        high: Some(ratio * 1.02),
        p_value: Some(0.01),
        p_adjusted: Some(0.02),
        p_mann_whitney: Some(0.03),
        verdict,
        noise_band: Some(0.01),
        mde: Some(mde),
        n_baseline: 10,
        n_candidate: 10,
        pairs: 10,
        runs_needed: None,
        baseline: side(1000.0),
        candidate: side(1000.0 * ratio),
        note: None,
        level: None,
        derived_from: None,
        noise: None,
        source: None,
        explain: None,
        per_call: None,
    }
}

fn run() -> CompareRun {
    CompareRun {
        format_version: 1,
        baseline: "base".into(),
        candidate: "cand".into(),
        design: "result-dirs".into(),
        seed: None,
        alpha: 0.05,
        calibration: None,
        noise_floor: 0.01,
        runs: None,
        iterations: None,
        warmup: None,
        baseline_env: vec![],
        candidate_env: vec![],
        warnings: vec![],
        margin: None,
        sequential: None,
        baseline_commit: None,
        candidate_commit: None,
        build_s: None,
        counters: None,
        counter_margin: None,
        counter_pairs: None,
        counting_s: None,
        null_control: None,
        host: crate::host::collect(),
        command: vec![],
        started_at: String::new(),
        finished_at: String::new(),
    }
}

/// A generated suite: every 50th row regressed, every 70th improved, every 7th inconclusive
/// with a change growing with the index, the rest unchanged; `name_len` pads the names.
fn suite(n: usize, name_len: usize) -> Vec<CompareEntry> {
    (0..n)
        .map(|i| {
            let name = format!("suite/scenario-{i:05}-{}", "x".repeat(name_len));
            let (v, r) = match i {
                _ if i % 50 == 0 => (CompareVerdict::Regressed, 1.05 + i as f64 * 1e-5),
                _ if i % 70 == 0 => (CompareVerdict::Improved, 0.95),
                _ if i % 7 == 0 => (CompareVerdict::Inconclusive, 1.0 + i as f64 * 1e-5),
                _ => (CompareVerdict::Unchanged, 1.0),
            };
            entry(name, v, r, if i % 3 == 0 { 0.2 } else { 0.01 })
        })
        .collect()
}

fn bounded(entries: &[CompareEntry]) -> (String, String) {
    let full = markdown::render(entries, &run(), 0.05);
    let md = render(entries, &run(), 0.05, &full, COMMENT_LIMIT);
    (full, md)
}

#[test]
fn a_2000_scenario_comparison_fits_and_keeps_every_changed_row_first() {
    let entries = suite(2000, 10);
    let (full, md) = bounded(&entries);
    assert!(full.chars().count() > COMMENT_LIMIT, "the fixture must be too long to begin with");
    assert!(md.chars().count() <= COMMENT_LIMIT, "{} chars", md.chars().count());
    for e in entries
        .iter()
        .filter(|e| matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved))
    {
        assert!(md.contains(&format!("`{}`", e.name)), "{} missing", e.name);
    }
    // Inconclusive rows come largest change first: the largest is shown, and the table order
    // puts it before a smaller one that is also shown.
    let biggest = entries.iter().filter(|e| e.verdict == CompareVerdict::Inconclusive).last().unwrap();
    assert!(md.contains(&biggest.name));
    assert!(md.contains("**Left out to fit GitHub's 65536-character limit:**"));
    assert!(md.contains("compare-full.md"));
    assert!(md.contains("### What this cannot catch"));
    assert!(md.find("Left out").unwrap() < md.find("What this cannot catch").unwrap());
}

#[test]
fn very_long_names_are_cut_and_the_comment_still_fits() {
    let entries = suite(1200, 5000);
    let (full, md) = bounded(&entries);
    assert!(full.chars().count() > 10 * COMMENT_LIMIT);
    assert!(md.chars().count() <= COMMENT_LIMIT, "{} chars", md.chars().count());
    assert!(md.contains("regressed, ") && md.contains("1200 scenario × metric rows"));
    assert!(md.contains('…'));
}

#[test]
fn a_comment_that_fits_is_the_whole_table() {
    let entries = suite(40, 10);
    let (full, md) = bounded(&entries);
    assert_eq!(full, md);
}

#[test]
fn details_are_dropped_before_rows() {
    let row = |i: usize| Row {
        line: format!("row {i}"),
        details: vec!["d".repeat(20)],
    };
    let rows: Vec<Row> = (0..5).map(row).collect();
    // 5 lines of 6 chars = 30; room for one 21-char detail beyond that.
    let f = fit_rows(&rows, 55);
    assert_eq!((f.rows, f.with_details), (5, 1));
    let f = fit_rows(&rows, 20);
    assert_eq!((f.rows, f.with_details), (3, 0));
    assert!(f.text.chars().count() <= 20);
}
