//! The failed runs a report lists, capped in number and clipped in output (all of them stay in
//! results.jsonl).

use crate::model::{ProcessFacts, RunRecord};

/// Failed runs listed with their output; the rest are counted (they are all in results.jsonl).
pub(crate) const MAX_FAILED_RUNS: usize = 200;
/// Bytes of stdout or stderr shown per failed run.
pub(crate) const MAX_OUTPUT_BYTES: usize = 16 * 1024;

/// A run that failed, crashed, timed out or otherwise did not pass.
#[derive(Debug, Clone)]
pub(crate) struct FailedRun {
    pub scenario: String,
    pub run_index: usize,
    pub repetition: usize,
    pub outcome: String,
    pub message: Option<String>,
    /// Exit code or signal, peak RSS and CPU times, when recorded.
    pub process: String,
    pub stdout: String,
    pub stderr: String,
}

/// How the process ended and what it used, as one line (empty when nothing was recorded).
fn process_line(p: &ProcessFacts) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &p.signal {
        parts.push(format!("signal {s}"));
    }
    if let Some(c) = p.exit_code {
        parts.push(format!("exit code {c}"));
    }
    if let Some(b) = p.peak_rss_bytes {
        parts.push(format!("peak RSS {:.1} MiB", b as f64 / 1048576.0));
    }
    if let (Some(u), Some(s)) = (p.cpu_user_ns, p.cpu_system_ns) {
        parts.push(format!("CPU {:.3} s user + {:.3} s system", u as f64 / 1e9, s as f64 / 1e9));
    }
    parts.join(", ")
}

/// The first [`MAX_FAILED_RUNS`] failed runs, and how many more there were.
pub(super) fn failed_runs(runs: &[RunRecord]) -> (Vec<FailedRun>, usize) {
    let failed: Vec<_> = runs.iter().filter(|r| r.outcome.is_failure()).collect();
    let omitted = failed.len().saturating_sub(MAX_FAILED_RUNS);
    let listed = failed
        .into_iter()
        .take(MAX_FAILED_RUNS)
        .map(|r| FailedRun {
            scenario: r.scenario.clone(),
            run_index: r.run_index,
            repetition: r.repetition,
            outcome: r.outcome.short(),
            message: r.outcome.message(),
            process: process_line(&r.process),
            stdout: clip(&r.stdout),
            stderr: clip(&r.stderr),
        })
        .collect();
    (listed, omitted)
}

/// The first [`MAX_OUTPUT_BYTES`] of `s`, cut at a character boundary, with a note when cut.
fn clip(s: &str) -> String {
    if s.len() <= MAX_OUTPUT_BYTES {
        return s.to_owned();
    }
    let mut end = MAX_OUTPUT_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... {} more bytes in results.jsonl]", &s[..end], s.len() - end)
}

#[cfg(test)]
mod tests {
    use super::super::test_helpers::record;
    use super::*;
    use crate::model::{Outcome, ScenarioKind};

    #[test]
    fn failures_beyond_the_cap_are_counted_not_listed() {
        let runs: Vec<RunRecord> = (0..MAX_FAILED_RUNS + 5)
            .map(|i| {
                record(
                    i,
                    "bad",
                    ScenarioKind::Check,
                    Outcome::Crashed {
                        signal: "SIGSEGV".into(),
                        signal_number: 11,
                    },
                    None,
                )
            })
            .collect();
        let (listed, omitted) = failed_runs(&runs);
        assert_eq!(listed.len(), MAX_FAILED_RUNS);
        assert_eq!(omitted, 5);
    }

    #[test]
    fn long_output_is_clipped_at_a_char_boundary() {
        let s = "é".repeat(MAX_OUTPUT_BYTES);
        let c = clip(&s);
        assert!(c.len() < s.len());
        assert!(c.contains("more bytes in results.jsonl"));
    }
}
