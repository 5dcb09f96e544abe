//! The terminal summary: one row per scenario and metric — n, centre +- 95% CI half-width, CV,
//! verdict — written to an injected writer so tests can read it.

use std::io::Write;

use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};
use crate::model::{ResultsFile, Unit};

/// Prints the seed first and the summary table last.
pub struct SummaryReporter<W: Write> {
    out: W,
}

impl<W: Write> SummaryReporter<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> Self {
        SummaryReporter { out }
    }
}

impl<W: Write + Send> Reporter for SummaryReporter<W> {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        let io = |e| Error::Io {
            what: "writing the summary".into(),
            source: e,
        };
        match event {
            RunEvent::Started { meta, total } => writeln!(
                self.out,
                "seed: {}  ({} processes planned; reproduce with --seed {})",
                meta.seed, total, meta.seed
            )
            .map_err(io),
            RunEvent::Finished(Done::Run(results)) => self.out.write_all(summary_table(results).as_bytes()).map_err(io),
            _ => Ok(()),
        }
    }
}

/// A value with its unit, at a precision that suits its size; nanoseconds scale up to us, ms, s.
pub fn format_value(v: f64, unit: &Unit) -> String {
    let (v, symbol) = match unit {
        Unit::Nanoseconds if v.abs() >= 1e9 => (v / 1e9, "s"),
        Unit::Nanoseconds if v.abs() >= 1e6 => (v / 1e6, "ms"),
        Unit::Nanoseconds if v.abs() >= 1e4 => (v / 1e3, "µs"),
        _ => (v, unit.symbol()),
    };
    let digits = if v.abs() >= 100.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else if v.abs() >= 1.0 {
        2
    } else {
        4
    };
    format!("{v:.digits$} {symbol}")
}

/// The scenarios whose calls leak (`leaked_bytes` > 0 in some call), listed on their own so a
/// leak is never just one row among many.
pub fn leak_list(results: &ResultsFile) -> String {
    let leaks: Vec<String> = crate::report::leaks(results)
        .map(|(scenario, p)| format!("  {scenario}: {}\n", p.display("leaked_bytes")))
        .collect();
    if leaks.is_empty() {
        return String::new();
    }
    format!("leaks (leaked_bytes > 0):\n{}", leaks.concat())
}

/// The processes that met a slowed machine (`model/slowed.rs`), one line each way: those left out
/// of their rows (how many, from how many rows, how much slower), and the rows measured mostly on
/// the slowed machine, whose own `unstable` lines give the figures. When that is most of the run's
/// rows the machine is named as the cause, not the code: every number of the run is in doubt.
pub fn slowed_note(results: &ResultsFile) -> String {
    let slowed: Vec<&crate::model::Slowed> = results
        .summaries
        .iter()
        .flat_map(|s| s.metrics.iter().filter(|m| m.metric == "latency_ns"))
        .filter_map(|m| m.slowed.as_ref())
        .collect();
    let rows = results
        .summaries
        .iter()
        .filter(|s| s.metrics.iter().any(|m| m.metric == "latency_ns"))
        .count();
    let left: Vec<_> = slowed.iter().filter(|s| !s.left_out.is_empty()).collect();
    let kept: Vec<_> = slowed.iter().filter(|s| s.flags_row()).collect();
    let mut out = String::new();
    let remembered = results.meta.remembered_full_speed.as_ref();
    let own = crate::model::fastest_probe(&results.runs);
    let judged_by_memory = slowed.iter().any(|s| s.remembered);
    if let (Some(m), true) = (remembered, judged_by_memory) {
        let own = own.map_or_else(|| "too few readings".to_owned(), |o| format!("{:.1} µs at its fastest", o / 1e3));
        out.push_str(&format!(
            "slowed machine: this run never met the machine's full speed: its speed probe read {own}, against {:.1} µs that the run in {} met at {} on this boot; its processes are judged against that ({} to judge a run against itself alone)\n",
            m.probe_ns / 1e3,
            m.by,
            m.confirmed_at,
            crate::run::speed_memory::OFF_HINT,
        ));
    }
    let fastest = if judged_by_memory {
        "its full speed"
    } else {
        "its fastest in this run"
    };
    if !left.is_empty() {
        let n: usize = left.iter().map(|s| s.left_out.len()).sum();
        let of: usize = left.iter().map(|s| s.of).sum();
        let worst = left.iter().map(|s| s.probe_ratio).fold(0.0, f64::max);
        out.push_str(&format!(
            "slowed machine: {n} of {of} processes in {} rows left out, measured while a speed probe read up to {worst:.1}x {fastest} (`slowed` in results.json)\n",
            left.len()
        ));
    }
    if !kept.is_empty() {
        let most = 2 * kept.len() > rows;
        out.push_str(&format!(
            "slowed machine: {} of {rows} rows measured mostly while the machine ran slower than {fastest}; they are unstable{}\n",
            kept.len(),
            if most {
                ": the machine, not the code, moved this run's numbers; re-run on a quiet machine, or compare counts (--counters), which do not depend on its speed"
            } else {
                ""
            }
        ));
    }
    out
}

/// The summary table as text.
pub fn summary_table(results: &ResultsFile) -> String {
    let mut rows: Vec<[String; 6]> = vec![["scenario", "metric", "n", "centre ± 95% CI", "CV", "verdict"].map(String::from)];
    for s in &results.summaries {
        let n = s.counts.total().to_string();
        if s.metrics.is_empty() {
            let detail = match (&s.skip_reason, s.counts.failures()) {
                (Some(reason), 0) => format!("({reason})"),
                (_, f) if f > 0 => format!("{f}/{} runs failed", s.counts.total()),
                _ => String::new(),
            };
            rows.push([s.scenario.clone(), "-".into(), n, detail, String::new(), s.verdict.as_str().into()]);
        }
        for m in &s.metrics {
            let st = &m.stats;
            let centre = format_value(st.center_value, &m.unit);
            let ci = match (m.per_call, st.exact, st.rel_half_width) {
                // An allocation row is its count per call (`3 allocs/call`, `varies 2..5`).
                (Some(p), ..) => p.display(&m.metric),
                (None, true, _) => format!("{centre} (exact)"),
                (None, false, Some(w)) => format!("{centre} ± {:.1}%", w * 100.0),
                (None, false, None) => centre,
            };
            let cv = if st.exact { "0".into() } else { format!("{:.1}%", st.cv * 100.0) };
            rows.push([
                s.scenario.clone(),
                m.metric.clone(),
                st.n.to_string(),
                ci,
                cv,
                s.verdict.as_str().into(),
            ]);
        }
    }
    let widths: Vec<usize> = (0..6)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let line: Vec<String> = r.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
            out.push('\n');
        }
    }
    // Why a row is unstable, one line a metric, so the number is never read without it.
    for s in &results.summaries {
        for m in s.metrics.iter().filter(|m| m.stats.unstable) {
            let why = m.stats.unstable_reason.as_deref().unwrap_or("severe outliers or autocorrelation");
            out.push_str(&format!("unstable {} {}: {why}\n", s.scenario, m.metric));
        }
    }
    out.push_str(&leak_list(results));
    out.push_str(&slowed_note(results));
    let totals = results.summaries.iter().fold(crate::model::OutcomeCounts::default(), |mut acc, s| {
        acc.passed += s.counts.passed;
        acc.failed += s.counts.failed;
        acc.skipped += s.counts.skipped;
        acc.crashed += s.counts.crashed;
        acc.timed_out += s.counts.timed_out;
        acc.no_result += s.counts.no_result;
        acc.protocol_garbage += s.counts.protocol_garbage;
        acc
    });
    out.push_str(&format!(
        "\n{} runs: {} passed, {} failed, {} crashed, {} timed out, {} no result, {} garbage, {} skipped; seed {}\n",
        totals.total(),
        totals.passed,
        totals.failed,
        totals.crashed,
        totals.timed_out,
        totals.no_result,
        totals.protocol_garbage,
        totals.skipped,
        results.meta.seed
    ));
    out.push_str(&counter_notes(results));
    out.push_str(&failure_notes(results));
    out.push_str(&super::gpu_notes::gpu_block(results));
    out
}

/// How the run counted (`--counters`) and which measurements it did not count, with why.
fn counter_notes(results: &ResultsFile) -> String {
    let Some(c) = &results.meta.counters else {
        return String::new();
    };
    let per_process = if c.processes > 0 {
        format!(
            "{} a measurement, {} warm-up + {} counted calls each",
            crate::report::counting_processes(c.processes),
            c.warmup,
            c.iterations
        )
    } else {
        "counted in the measuring processes".to_owned()
    };
    let mut out = format!("counters: {} ({per_process})\n", c.source);
    for (name, reason) in &c.uncounted {
        out.push_str(&format!("not counted: {name} ({reason})\n"));
    }
    out
}

/// Stderr lines shown under a failure that ended its process (crash, timeout, silent exit).
const STDERR_LINES: usize = 6;

/// One note per failing scenario: its first failing run's message, how the process ended, its
/// peak RSS and CPU, and the tail of stderr when the process itself ended badly.
fn failure_notes(results: &ResultsFile) -> String {
    let mut out = String::new();
    for s in results.summaries.iter().filter(|s| s.counts.failures() > 0) {
        let Some(r) = results.runs.iter().find(|r| r.scenario == s.scenario && r.outcome.is_failure()) else {
            continue;
        };
        let p = &r.process;
        let end = match (&p.signal, p.exit_code) {
            (Some(sig), _) => format!("signal {sig}"),
            (None, Some(c)) => format!("exit code {c}"),
            _ => String::new(),
        };
        let used = match (p.peak_rss_bytes, p.cpu_user_ns, p.cpu_system_ns) {
            (Some(rss), Some(u), Some(sy)) => format!(
                ", peak RSS {:.1} MiB, CPU {:.3} s user + {:.3} s system",
                rss as f64 / 1048576.0,
                u as f64 / 1e9,
                sy as f64 / 1e9
            ),
            _ => String::new(),
        };
        let message = r.outcome.message().unwrap_or_default();
        out.push_str(&format!(
            "\n{} {}: {}\n  ({end}{used})\n",
            r.outcome.short(),
            s.scenario,
            crate::model::headline(&message)
        ));
        if !matches!(r.outcome, crate::model::Outcome::Failed { .. }) && !r.stderr.is_empty() {
            let lines: Vec<&str> = r.stderr.lines().collect();
            for l in &lines[lines.len().saturating_sub(STDERR_LINES)..] {
                out.push_str(&format!("  | {l}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_scale_to_readable_units() {
        assert_eq!(format_value(26_459_717.0, &Unit::Nanoseconds), "26.5 ms");
        assert_eq!(format_value(75_090.0, &Unit::Nanoseconds), "75.1 µs");
        assert_eq!(format_value(3796.0, &Unit::Nanoseconds), "3796 ns");
        assert_eq!(format_value(2.5e9, &Unit::Nanoseconds), "2.50 s");
        assert_eq!(format_value(243.4, &Unit::GBytesPerSec), "243 GB/s");
    }

    /// Rows of 6 processes: `a` with one slowed (left out), `b` and `c` with four (kept,
    /// unstable). One line counts the left out, one the rows kept; when those are most of the
    /// rows, the line names the machine as the cause.
    #[test]
    fn the_slowed_machine_gets_a_line_for_what_was_left_out_and_one_for_what_was_not() {
        use crate::model::{Outcome, ScenarioKind};
        use crate::report::html::test_helpers::{record, results};
        let mut runs = Vec::new();
        for (row, slowed) in [("a", 1), ("b", 4), ("c", 4)] {
            for i in 0..6 {
                let mut r = record(runs.len(), row, ScenarioKind::Measure, Outcome::Passed, Some(1_000.0));
                let p = if i < slowed { 50_000.0 } else { 25_000.0 };
                r.metrics[0].speed_probe_ns = Some([p, p]);
                runs.push(r);
            }
        }
        let note = slowed_note(&results(runs));
        let lines: Vec<&str> = note.lines().collect();
        assert_eq!(lines.len(), 2, "{note}");
        assert!(
            lines[0].starts_with("slowed machine: 1 of 6 processes in 1 rows left out") && lines[0].contains("2.0x"),
            "{note}"
        );
        assert!(
            lines[1].starts_with("slowed machine: 2 of 3 rows measured mostly") && lines[1].contains("the machine, not the code"),
            "{note}"
        );
        let quiet: Vec<_> = (0..6)
            .map(|i| record(i, "q", ScenarioKind::Measure, Outcome::Passed, Some(1_000.0)))
            .collect();
        assert_eq!(slowed_note(&results(quiet)), "");
    }
}
