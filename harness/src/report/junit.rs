//! `junit.xml` through `quick-junit`, for CI test views: one testcase per scenario of a run or
//! per scenario of a detect. Failures carry the message and the captured output. Victims,
//! brittle and flaky scenarios are failures, as detect's exit status says: the message names the
//! evidence (polluters, state-setters or the failure rate), one `<rerunFailure>` per failing run
//! follows. All escaping is the XML writer's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite};

use super::files::{io_err, write_atomic};
use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};
use crate::model::{DetectEntry, DetectRun, Evidence, OrderVerdict, Outcome, ResultsFile, RunRecord, Verdict};

/// Failing runs listed as `<flakyFailure>` (run) or `<rerunFailure>` (detect) per testcase, at most.
const MAX_RERUNS: usize = 8;

/// The kind of a non-passing outcome: a panic or `Err` is a failure, every other ending an error.
fn kind_of(outcome: &Outcome) -> NonSuccessKind {
    match outcome {
        Outcome::Failed { .. } => NonSuccessKind::Failure,
        _ => NonSuccessKind::Error,
    }
}

/// The report of a `run`: one suite per binary, one testcase per scenario (variant).
pub fn results_junit(results: &ResultsFile) -> Report {
    let mut suite = TestSuite::new(results.meta.binary.as_str());
    for s in &results.summaries {
        let runs: Vec<&RunRecord> = results.runs.iter().filter(|r| r.scenario == s.scenario).collect();
        let failing: Vec<&&RunRecord> = runs.iter().filter(|r| r.outcome.is_failure()).collect();
        let status = match s.verdict {
            Verdict::Skipped => {
                let mut st = TestCaseStatus::skipped();
                st.set_message(s.skip_reason.as_deref().unwrap_or("skipped"));
                st
            }
            Verdict::Failed => match failing.first() {
                Some(r) => {
                    let mut st = TestCaseStatus::non_success(kind_of(&r.outcome));
                    st.set_message(first_line(&r.outcome.message().unwrap_or_default()));
                    st.set_type(r.outcome.status().as_str());
                    st.set_description(run_text(r));
                    st
                }
                None => TestCaseStatus::non_success(NonSuccessKind::Error),
            },
            Verdict::Flaky => TestCaseStatus::Success {
                flaky_runs: failing.iter().take(MAX_RERUNS).map(|r| rerun_of_run(r)).collect(),
            },
            Verdict::Passed | Verdict::Measured | Verdict::Unstable => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(s.scenario.as_str(), status);
        case.set_classname(results.meta.binary.as_str());
        case.set_time(Duration::from_nanos(runs.iter().map(|r| r.wall_ns).sum()));
        case.add_property(Property::new("verdict", s.verdict.as_str()));
        // Each metric's centre and interval, a counter's with its source, for CI dashboards
        // that read junit properties.
        for m in &s.metrics {
            let centre = crate::report::terminal::format_value(m.stats.center_value, &m.unit);
            let ci = match (m.stats.exact, m.stats.rel_half_width) {
                (true, _) => " (exact)".to_owned(),
                (false, Some(w)) => format!(" ± {:.1}%", w * 100.0),
                (false, None) => String::new(),
            };
            let source = m.source.as_ref().map_or(String::new(), |s| format!(" [{s}]"));
            // An allocation row is its count per call: `3 allocs/call`, `varies 0..1`.
            let (centre, ci) = match m.per_call {
                Some(p) => (p.display(&m.metric), String::new()),
                None => (centre, ci),
            };
            case.add_property(Property::new(
                format!("metric.{}", m.metric),
                format!("{centre}{ci}, n={}{source}", m.stats.n),
            ));
        }
        if let Some(r) = failing.first().map(|r| **r).or(runs.first().copied()) {
            set_output(&mut case, r);
        }
        suite.add_test_case(case);
    }
    let mut report = Report::new("harness run");
    report.add_test_suite(suite);
    report
}

/// The report of a `detect`: one suite per binary (package/target when cargo found it), one
/// testcase per scenario.
pub fn detect_junit(entries: &[DetectEntry], run: &DetectRun) -> Report {
    let mut suites: Vec<TestSuite> = Vec::new();
    for e in entries {
        let name = match (&e.package, &e.binary) {
            (Some(p), Some(b)) => format!("{p}/{b}"),
            (None, Some(b)) => b.clone(),
            _ => run.binary.clone(),
        };
        let case = detect_case(e, &name);
        match suites.iter_mut().find(|s| s.name.as_str() == name) {
            Some(s) => {
                s.add_test_case(case);
            }
            None => {
                let mut s = TestSuite::new(name.as_str());
                s.add_test_case(case);
                suites.push(s);
            }
        }
    }
    let mut report = Report::new("harness detect");
    report.add_test_suites(suites);
    report
}

fn detect_case(e: &DetectEntry, suite: &str) -> TestCase {
    let failing: Vec<&Evidence> = e.evidence.iter().filter(|ev| ev.message.is_some()).collect();
    let status = match e.verdict {
        OrderVerdict::Pass => TestCaseStatus::success(),
        OrderVerdict::Fail => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            if let Some(ev) = failing.first() {
                st.set_message(first_line(ev.message.as_deref().unwrap_or_default()));
                st.set_type(ev.outcome.as_str());
            }
            st.set_description(entry_text(e));
            st
        }
        OrderVerdict::Unknown => {
            let mut st = TestCaseStatus::skipped();
            st.set_message("undecided: --budget was spent before the runs that decide it");
            st.set_description(entry_text(e));
            st
        }
        // Detect exits 1 on these, so CI views must count them as failures too (a passing
        // testcase with `<flakyFailure>` shows green). The failing runs stay as reruns.
        OrderVerdict::Victim | OrderVerdict::Brittle | OrderVerdict::Flaky => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let headline = failing
                .first()
                .map_or("", |ev| first_line(ev.message.as_deref().unwrap_or_default()));
            st.set_message(order_message(e, headline));
            if let Some(ev) = failing.first() {
                st.set_type(ev.outcome.as_str());
            }
            st.set_description(entry_text(e));
            for ev in failing.iter().take(MAX_RERUNS) {
                let mut r = TestRerun::new(NonSuccessKind::Failure);
                r.set_message(format!(
                    "{}: {}",
                    e.verdict.as_str(),
                    first_line(ev.message.as_deref().unwrap_or_default())
                ));
                r.set_type(ev.outcome.as_str());
                r.set_description(evidence_line(ev));
                st.add_rerun(r);
            }
            st
        }
    };
    let mut case = TestCase::new(e.name.as_str(), status);
    case.set_classname(suite);
    case.add_property(Property::new("verdict", e.verdict.as_str()));
    for (k, v) in [("package", &e.package), ("binary", &e.binary), ("reproduce", &e.reproduce)] {
        if let Some(v) = v {
            case.add_property(Property::new(k, v.as_str()));
        }
    }
    case
}

/// The one-line failure message of an order-dependent entry: the verdict, its evidence
/// (polluters, state-setters or the failure rate) and the failing run's headline.
fn order_message(e: &DetectEntry, headline: &str) -> String {
    let evidence = match e.verdict {
        OrderVerdict::Victim => format!("fails after {}", names(&e.polluters)),
        OrderVerdict::Brittle => format!("passes only after {}", names(&e.state_setters)),
        _ => match &e.failure_rate {
            Some(r) => format!("failed {} of {} runs ({:.0}%)", r.k, r.n, r.estimate * 100.0),
            None => "fails intermittently".to_owned(),
        },
    };
    if headline.is_empty() {
        format!("{}: {evidence}", e.verdict.as_str())
    } else {
        format!("{}: {evidence}: {headline}", e.verdict.as_str())
    }
}

fn names(list: &[String]) -> String {
    if list.is_empty() {
        "a culprit not named".to_owned()
    } else {
        list.join(", ")
    }
}

/// The evidence of an entry as text: culprits, the reproduce line, every failing run's message.
fn entry_text(e: &DetectEntry) -> String {
    let mut t = format!("verdict: {}\n", e.verdict.as_str());
    for (label, list) in [
        ("polluters", &e.polluters),
        ("state-setters", &e.state_setters),
        ("cleaners", &e.cleaners),
    ] {
        if !list.is_empty() {
            t.push_str(&format!("{label}: {}\n", list.join(", ")));
        }
    }
    if let Some(why) = &e.cleaners_stopped {
        t.push_str(&format!("cleaners: at least the above ({why})\n"));
    }
    if let Some(r) = &e.reproduce {
        t.push_str(&format!("reproduce: {r}\n"));
    }
    for w in &e.would_decide {
        t.push_str(&format!("would decide: {} {:?} run(s): {}\n", w.runs, w.kind, w.detail));
    }
    for ev in e.evidence.iter().filter(|ev| ev.message.is_some()).take(MAX_RERUNS) {
        t.push_str(&format!("\n{}\n{}\n", evidence_line(ev), ev.message.as_deref().unwrap_or_default()));
    }
    t
}

fn evidence_line(ev: &Evidence) -> String {
    let seed = ev.seed.map(|s| format!(" (seed {s})")).unwrap_or_default();
    let earlier = match ev.order_skipped {
        0 => String::new(),
        n => format!("({n} earlier), "),
    };
    format!(
        "{:?} run [{earlier}{}]{seed}: {} - {}",
        ev.kind,
        ev.order.join(", "),
        ev.outcome,
        ev.detail
    )
}

fn rerun_of_run(r: &RunRecord) -> TestRerun {
    let mut rr = TestRerun::new(kind_of(&r.outcome));
    rr.set_message(first_line(&r.outcome.message().unwrap_or_default()));
    rr.set_type(r.outcome.status().as_str());
    rr.set_description(run_text(r));
    rr.set_system_out(r.stdout.as_str());
    rr.set_system_err(r.stderr.as_str());
    rr
}

/// A failing run as text: the full message, exit code or signal.
fn run_text(r: &RunRecord) -> String {
    let mut t = r.outcome.message().unwrap_or_default();
    if let Some(c) = r.process.exit_code {
        t.push_str(&format!("\nexit code: {c}"));
    }
    if let Some(s) = &r.process.signal {
        t.push_str(&format!("\nsignal: {s}"));
    }
    t
}

fn set_output(case: &mut TestCase, r: &RunRecord) {
    if !r.stdout.is_empty() {
        case.set_system_out(r.stdout.as_str());
    }
    if !r.stderr.is_empty() {
        case.set_system_err(r.stderr.as_str());
    }
}

fn first_line(s: &str) -> &str {
    crate::model::headline(s)
}

/// Writes `junit.xml` when a run or a detect finishes.
pub struct JunitWriter {
    path: PathBuf,
}

impl JunitWriter {
    /// Writes to `path`.
    pub fn new(path: PathBuf) -> Self {
        JunitWriter { path }
    }
}

impl Reporter for JunitWriter {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        match event {
            RunEvent::Finished(Done::Run(results)) => write(&self.path, &results_junit(results)),
            RunEvent::Finished(Done::Detect { entries, run }) => write(&self.path, &detect_junit(entries, run)),
            _ => Ok(()),
        }
    }
}

/// Write `report` to `path` through the one atomic writer.
pub(crate) fn write(path: &Path, report: &Report) -> Result<(), Error> {
    let text = report
        .to_string()
        .map_err(|e| io_err(format!("writing {}", path.display()))(std::io::Error::other(e.to_string())))?;
    write_atomic(path, text.as_bytes())
}
