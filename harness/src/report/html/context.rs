//! `ReportContext`: the plain data a report shows, built from the results files and kept apart
//! from rendering so it can be tested without parsing HTML.

use std::collections::BTreeMap;
use std::path::Path;

use super::inputs::{CompareEntry, CompareRun, DetectEntry, DetectRun, read_json, read_text};
use crate::errors::Error;
use crate::model::{Better, HostInfo, ResultsFile, RunMeta, ScenarioKind, Status, Unit, Verdict};
use crate::stats::Summary;

/// Failed runs listed with their output; the rest are counted (they are all in results.jsonl).
pub(crate) const MAX_FAILED_RUNS: usize = 200;
/// Bytes of stdout or stderr shown per failed run.
pub(crate) const MAX_OUTPUT_BYTES: usize = 16 * 1024;

/// Everything one report shows; each section is present when its files were.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReportContext {
    pub run: Option<RunContext>,
    pub detect: Option<DetectContext>,
    pub compare: Option<CompareContext>,
}

/// The `run` section, from `results.json` (and `results.jsonl` for a cut-short run).
#[derive(Debug, Clone)]
pub(crate) struct RunContext {
    pub meta: RunMeta,
    /// True when the run did not finish (summaries recomputed from results.jsonl).
    pub partial: bool,
    pub scenarios: usize,
    pub processes: usize,
    /// Runs by status, every status with a non-zero count, in `Status::ALL` order.
    pub status_counts: Vec<(Status, usize)>,
    /// Scenarios by verdict.
    pub verdict_counts: Vec<(Verdict, usize)>,
    pub hazards: Vec<HazardRow>,
    pub rows: Vec<SummaryRow>,
    pub cards: Vec<MeasurementCard>,
    pub failures: Vec<FailedRun>,
    /// Failed runs beyond [`MAX_FAILED_RUNS`], not listed.
    pub failures_omitted: usize,
}

/// An environment or cwd change one run made (a hazard when scenarios share a process).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HazardRow {
    pub scenario: String,
    pub name: String,
    pub before: Option<String>,
    pub after: Option<String>,
    /// How many runs made this same change.
    pub runs: usize,
}

/// One row of the summary table: a scenario x metric, or a scenario without metrics.
#[derive(Debug, Clone)]
pub(crate) struct SummaryRow {
    pub scenario: String,
    pub kind: ScenarioKind,
    pub metric: Option<String>,
    pub unit: Option<Unit>,
    pub n: usize,
    pub centre: Option<f64>,
    pub rel_half_width: Option<f64>,
    pub cv: Option<f64>,
    pub exact: bool,
    pub verdict: Verdict,
    /// Failure count or skip reason, for rows without metrics.
    pub detail: String,
    /// Anchor of the measurement card, if there is one.
    pub card_id: Option<String>,
}

/// One scenario x metric with its per-process values, for the plots and the numbers.
#[derive(Debug, Clone)]
pub(crate) struct MeasurementCard {
    pub id: String,
    pub scenario: String,
    pub metric: String,
    pub unit: Unit,
    pub better: Better,
    pub verdict: Verdict,
    pub stats: Summary,
    /// `(run_index, value)` in run order.
    pub values: Vec<(usize, f64)>,
}

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
fn process_line(p: &crate::model::ProcessFacts) -> String {
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

/// The `detect` section.
#[derive(Debug, Clone)]
pub(crate) struct DetectContext {
    pub run: DetectRun,
    pub entries: Vec<DetectEntry>,
    /// `(affected, cause, relation)` edges for the matrix: relation is `polluter`,
    /// `state-setter` or `cleaner`.
    pub edges: Vec<(String, String, &'static str)>,
}

/// The `compare` section.
#[derive(Debug, Clone)]
pub(crate) struct CompareContext {
    pub run: CompareRun,
    pub entries: Vec<CompareEntry>,
    /// `compare.md`, the PR-comment table, when present.
    pub markdown: Option<String>,
}

impl ReportContext {
    /// Reads whichever results files exist in `dir`. Errors name the malformed file and place.
    pub(crate) fn load(dir: &Path) -> Result<Self, Error> {
        let run = if dir.join("results.json").exists() {
            Some(RunContext::build(crate::report::read_results(dir)?))
        } else {
            None
        };
        let detect = match read_json::<Vec<DetectEntry>>(&dir.join("detect.json"))? {
            Some(entries) => {
                let run = read_json::<DetectRun>(&dir.join("detect-run.json"))?.unwrap_or_default();
                Some(DetectContext::build(run, entries))
            }
            None => None,
        };
        let compare = match read_json::<Vec<CompareEntry>>(&dir.join("compare.json"))? {
            Some(entries) => Some(CompareContext {
                run: read_json::<CompareRun>(&dir.join("compare-run.json"))?.unwrap_or_default(),
                entries,
                markdown: read_text(&dir.join("compare.md"))?,
            }),
            None => None,
        };
        if run.is_none() && detect.is_none() && compare.is_none() {
            return Err(Error::NoResults { dir: dir.to_owned() });
        }
        Ok(ReportContext { run, detect, compare })
    }

    /// The host of whichever section has one.
    pub(crate) fn host(&self) -> Option<&HostInfo> {
        self.run
            .as_ref()
            .map(|r| &r.meta.host)
            .or_else(|| self.detect.as_ref().and_then(|d| d.run.host.as_ref()))
            .or_else(|| self.compare.as_ref().and_then(|c| c.run.host.as_ref()))
    }
}

impl RunContext {
    /// Everything the run section shows, from a results file.
    pub(crate) fn build(results: ResultsFile) -> Self {
        let mut status_counts: BTreeMap<Status, usize> = BTreeMap::new();
        for r in &results.runs {
            *status_counts.entry(r.outcome.status()).or_default() += 1;
        }
        let status_counts = Status::ALL.iter().filter_map(|s| status_counts.get(s).map(|&c| (*s, c))).collect();
        let mut verdict_counts: Vec<(Verdict, usize)> = Vec::new();
        for s in &results.summaries {
            match verdict_counts.iter_mut().find(|(v, _)| *v == s.verdict) {
                Some((_, c)) => *c += 1,
                None => verdict_counts.push((s.verdict, 1)),
            }
        }
        verdict_counts.sort_by_key(|(v, _)| verdict_rank(*v));

        let mut rows = Vec::new();
        let mut cards = Vec::new();
        for s in &results.summaries {
            if s.metrics.is_empty() {
                let detail = match (&s.skip_reason, s.counts.failures()) {
                    (_, f) if f > 0 => format!("{f}/{} runs did not pass", s.counts.total()),
                    (Some(reason), _) => reason.clone(),
                    _ => String::new(),
                };
                rows.push(SummaryRow {
                    scenario: s.scenario.clone(),
                    kind: s.kind,
                    metric: None,
                    unit: None,
                    n: s.counts.total(),
                    centre: None,
                    rel_half_width: None,
                    cv: None,
                    exact: false,
                    verdict: s.verdict,
                    detail,
                    card_id: None,
                });
            }
            for m in &s.metrics {
                let id = format!("m{}", cards.len());
                rows.push(SummaryRow {
                    scenario: s.scenario.clone(),
                    kind: s.kind,
                    metric: Some(m.metric.clone()),
                    unit: Some(m.unit.clone()),
                    n: m.stats.n,
                    centre: Some(m.stats.center_value),
                    rel_half_width: m.stats.rel_half_width,
                    cv: Some(m.stats.cv),
                    exact: m.stats.exact,
                    verdict: s.verdict,
                    detail: if s.counts.failures() > 0 {
                        format!("{}/{} runs did not pass", s.counts.failures(), s.counts.total())
                    } else {
                        String::new()
                    },
                    card_id: Some(id.clone()),
                });
                cards.push(MeasurementCard {
                    id,
                    scenario: s.scenario.clone(),
                    metric: m.metric.clone(),
                    unit: m.unit.clone(),
                    better: m.better,
                    verdict: s.verdict,
                    stats: m.stats.clone(),
                    values: m.values.clone(),
                });
            }
        }

        let mut hazards: Vec<HazardRow> = Vec::new();
        for r in &results.runs {
            for c in &r.env_changes {
                match hazards
                    .iter_mut()
                    .find(|h| h.scenario == r.scenario && h.name == c.name && h.before == c.before && h.after == c.after)
                {
                    Some(h) => h.runs += 1,
                    None => hazards.push(HazardRow {
                        scenario: r.scenario.clone(),
                        name: c.name.clone(),
                        before: c.before.clone(),
                        after: c.after.clone(),
                        runs: 1,
                    }),
                }
            }
        }

        let failed: Vec<_> = results.runs.iter().filter(|r| r.outcome.is_failure()).collect();
        let failures_omitted = failed.len().saturating_sub(MAX_FAILED_RUNS);
        let failures = failed
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

        RunContext {
            partial: results.meta.finished_at.is_empty(),
            scenarios: results.summaries.len(),
            processes: results.runs.len(),
            meta: results.meta,
            status_counts,
            verdict_counts,
            hazards,
            rows,
            cards,
            failures,
            failures_omitted,
        }
    }
}

impl DetectContext {
    /// The detect section, with the matrix edges drawn from every entry's culprits.
    pub(crate) fn build(run: DetectRun, entries: Vec<DetectEntry>) -> Self {
        let mut edges = Vec::new();
        for e in &entries {
            for (list, relation) in [
                (&e.polluters, "polluter"),
                (&e.state_setters, "state-setter"),
                (&e.cleaners, "cleaner"),
            ] {
                for cause in list {
                    edges.push((e.name.clone(), cause.clone(), relation));
                }
            }
        }
        DetectContext { run, entries, edges }
    }
}

/// Problems first in the overview.
pub(crate) fn verdict_rank(v: Verdict) -> u8 {
    match v {
        Verdict::Failed => 0,
        Verdict::Flaky => 1,
        Verdict::Unstable => 2,
        Verdict::Passed => 3,
        Verdict::Measured => 4,
        Verdict::Skipped => 5,
    }
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
    use super::*;
    use crate::model::{EnvChange, MetricSample, Outcome, RunRecord};
    use crate::run::summarize_runs;

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
            test_threads: 1,
            started_at: "2025-01-01T00:00:00Z".into(),
            finished_at: "2025-01-01T00:01:00Z".into(),
            host: HostInfo::default(),
        }
    }

    fn record(i: usize, name: &str, kind: ScenarioKind, outcome: Outcome, value: Option<f64>) -> RunRecord {
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
                    }]
                })
                .unwrap_or_default(),
            wall_ns: 1,
            started_ms: i as f64,
            env_changes: vec![],
            stdout: String::new(),
            stderr: String::new(),
            process: Default::default(),
        }
    }

    fn results(runs: Vec<RunRecord>) -> ResultsFile {
        ResultsFile {
            meta: meta(),
            summaries: summarize_runs(&runs),
            runs,
        }
    }

    #[test]
    fn counts_rows_cards_and_failures_follow_the_runs() {
        let mut runs = vec![
            record(0, "ok", ScenarioKind::Check, Outcome::Passed, None),
            record(1, "bad", ScenarioKind::Check, Outcome::Failed { message: "boom".into() }, None),
            record(2, "bad", ScenarioKind::Check, Outcome::TimedOut { after_s: 1.0 }, None),
        ];
        for (i, v) in [100.0, 101.0, 99.0, 100.5, 99.5].into_iter().enumerate() {
            runs.push(record(3 + i, "m", ScenarioKind::Measure, Outcome::Passed, Some(v)));
        }
        runs[1].stdout = "printed before failing".into();
        let ctx = RunContext::build(results(runs));
        assert_eq!(ctx.scenarios, 3);
        assert_eq!(ctx.processes, 8);
        assert_eq!(
            ctx.status_counts,
            vec![(Status::Passed, 6), (Status::Failed, 1), (Status::TimedOut, 1)]
        );
        assert_eq!(ctx.verdict_counts[0], (Verdict::Failed, 1));
        assert_eq!(ctx.rows.len(), 3);
        let bad = ctx.rows.iter().find(|r| r.scenario == "bad").unwrap();
        assert_eq!(bad.detail, "2/2 runs did not pass");
        assert_eq!(ctx.cards.len(), 1);
        assert_eq!(ctx.cards[0].values.iter().map(|v| v.0).collect::<Vec<_>>(), vec![3, 4, 5, 6, 7]);
        assert_eq!(ctx.rows.iter().find(|r| r.scenario == "m").unwrap().card_id.as_deref(), Some("m0"));
        assert_eq!(ctx.failures.len(), 2);
        assert_eq!(ctx.failures[0].message.as_deref(), Some("boom"));
        assert_eq!(ctx.failures[0].stdout, "printed before failing");
        assert_eq!(ctx.failures[1].outcome, "timed out after 1.0 s");
        assert!(!ctx.partial);
    }

    #[test]
    fn identical_env_changes_are_merged_with_a_count() {
        let mut runs = vec![
            record(0, "setter", ScenarioKind::Check, Outcome::Passed, None),
            record(1, "setter", ScenarioKind::Check, Outcome::Passed, None),
        ];
        let change = EnvChange {
            name: "MODE".into(),
            before: None,
            after: Some("fast".into()),
        };
        runs[0].env_changes = vec![change.clone()];
        runs[1].env_changes = vec![change];
        let ctx = RunContext::build(results(runs));
        assert_eq!(ctx.hazards.len(), 1);
        assert_eq!(ctx.hazards[0].runs, 2);
        assert_eq!(ctx.hazards[0].after.as_deref(), Some("fast"));
    }

    #[test]
    fn failures_beyond_the_cap_are_counted_not_listed() {
        let runs = (0..MAX_FAILED_RUNS + 5)
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
        let ctx = RunContext::build(results(runs));
        assert_eq!(ctx.failures.len(), MAX_FAILED_RUNS);
        assert_eq!(ctx.failures_omitted, 5);
    }

    #[test]
    fn long_output_is_clipped_at_a_char_boundary() {
        let s = "é".repeat(MAX_OUTPUT_BYTES);
        let c = clip(&s);
        assert!(c.len() < s.len());
        assert!(c.contains("more bytes in results.jsonl"));
    }

    #[test]
    fn detect_edges_come_from_every_relation() {
        let entries: Vec<DetectEntry> = serde_json::from_str(
            r#"[{"name":"v","verdict":"victim","polluters":["p"],"cleaners":["c"],"failure_rate":null,"evidence":[]},
                {"name":"b","verdict":"brittle","state_setters":["s"]},
                {"name":"ok","verdict":"pass"}]"#,
        )
        .unwrap();
        let d = DetectContext::build(DetectRun::default(), entries);
        assert_eq!(
            d.edges,
            vec![
                ("v".to_string(), "p".to_string(), "polluter"),
                ("v".to_string(), "c".to_string(), "cleaner"),
                ("b".to_string(), "s".to_string(), "state-setter")
            ]
        );
    }

    #[test]
    fn load_names_the_malformed_file_and_place() {
        let dir = std::env::temp_dir().join(format!("harness-ctx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("compare.json"), "[\n  {\"name\": \"x\",\n   \"metric\": 3\n").unwrap();
        let err = ReportContext::load(&dir).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(err.contains("compare.json") && err.contains("line 3"), "{err}");
    }

    #[test]
    fn load_of_an_empty_dir_says_nothing_is_there() {
        let dir = std::env::temp_dir().join(format!("harness-ctx-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = ReportContext::load(&dir).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(err, Error::NoResults { .. }), "{err}");
    }
}
