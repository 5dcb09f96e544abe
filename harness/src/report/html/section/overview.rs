//! The run overview: outcome chips, verdict counts, the run's facts, how to reproduce it, the
//! execution order and the hazards table.

use std::fmt::Write;

use super::super::context::RunContext;
use super::super::escape::escape as e;
use super::super::markup::{chip, class_of, reproduce, verdict_badge};
use crate::model::Status;

/// The `overview` section.
pub(crate) fn overview(out: &mut String, run: &RunContext) {
    let _ = write!(out, "<section id=\"overview\" class=\"band\"><h2>Run</h2>");
    if run.partial {
        let _ = write!(
            out,
            "<p class=\"warn\">This run did not finish: runs recovered from results.jsonl, summaries recomputed.</p>"
        );
    }
    chips(out, run);
    out.push_str("<p class=\"verdicts\">Scenarios: ");
    for (v, n) in &run.verdict_counts {
        let _ = write!(out, "{} {n} &nbsp; ", verdict_badge(*v));
    }
    out.push_str("</p>");
    facts(out, run);
    let m = &run.meta;
    reproduce(out, "Reproduce (same seed, same order):", &m.command);
    let _ = write!(
        out,
        "<details><summary>Execution order ({} scenarios)</summary><ol class=\"order\">",
        m.order.len()
    );
    for name in &m.order {
        let _ = write!(out, "<li>{}</li>", e(name));
    }
    out.push_str("</ol></details>");
    if !run.hazards.is_empty() {
        hazards(out, run);
    }
    out.push_str("</section>");
}

/// Runs by status (the four main ones always shown), scenarios, processes and hazards.
fn chips(out: &mut String, run: &RunContext) {
    out.push_str("<div class=\"chips\">");
    let count = |s: Status| run.status_counts.iter().find(|(t, _)| *t == s).map_or(0, |c| c.1);
    for s in Status::ALL {
        let n = count(s);
        let always = matches!(s, Status::Passed | Status::Failed | Status::Crashed | Status::TimedOut);
        if n > 0 || always {
            chip(out, n, &s.as_str().replace('_', " "), &class_of(s.as_str()));
        }
    }
    let _ = write!(
        out,
        "<div class=\"chip c-info\"><b>{}</b><span>scenarios</span></div><div class=\"chip c-info\"><b>{}</b><span>processes</span></div>",
        run.scenarios, run.processes
    );
    chip(out, run.hazards.len(), "hazards", "hazard");
    out.push_str("</div>");
}

/// Seed, binary, repetitions, time and harness version.
fn facts(out: &mut String, run: &RunContext) {
    let m = &run.meta;
    out.push_str("<dl class=\"facts\">");
    let _ = write!(out, "<dt>seed</dt><dd><code>{}</code></dd>", m.seed);
    let _ = write!(out, "<dt>binary</dt><dd><code>{}</code></dd>", e(&m.binary));
    let _ = write!(
        out,
        "<dt>repeat</dt><dd>{} processes per measurement, {} iterations + {} warm-up each{}</dd>",
        m.repeat,
        m.iterations,
        m.warmup,
        m.target_ci.map_or(String::new(), |t| format!(", until CI within ±{t}%"))
    );
    if let Some(c) = &m.counters {
        let how = if c.processes > 0 {
            format!(
                "{} per measurement, {} warm-up + {} counted calls each; caches {}; estimated_cycles = {}",
                crate::report::counting_processes(c.processes),
                c.warmup,
                c.iterations,
                c.cache.join(" "),
                c.cycles_model.as_deref().unwrap_or("-")
            )
        } else {
            "counted in the measuring processes".to_owned()
        };
        let uncounted: Vec<String> = c.uncounted.iter().map(|(n, r)| format!("{n} ({r})")).collect();
        let _ = write!(out, "<dt>counters</dt><dd>{}: {}</dd>", e(&c.source), e(&how));
        if !uncounted.is_empty() {
            let _ = write!(out, "<dt>not counted</dt><dd>{}</dd>", e(&uncounted.join("; ")));
        }
    }
    let _ = write!(
        out,
        "<dt>time</dt><dd>{} → {}</dd>",
        e(&m.started_at),
        e(if m.finished_at.is_empty() { "(unfinished)" } else { &m.finished_at })
    );
    let _ = write!(
        out,
        "<dt>harness</dt><dd>{} (results format {})</dd></dl>",
        e(&m.harness_version),
        m.format_version
    );
}

/// Process-wide state a scenario changed.
fn hazards(out: &mut String, run: &RunContext) {
    out.push_str(
        "<details open><summary>Hazards: process-wide state a scenario changed (harmful when scenarios share a process)</summary>\
         <table class=\"sortable\"><thead><tr><th>scenario</th><th>variable</th><th>before</th><th>after</th><th>runs</th></tr></thead><tbody>",
    );
    let value = |v: Option<&str>| v.map_or("<i>unset</i>".into(), |v| format!("<code>{}</code>", e(v)));
    for h in &run.hazards {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td data-v=\"{}\">{}</td></tr>",
            e(&h.scenario),
            e(&h.name),
            value(h.before.as_deref()),
            value(h.after.as_deref()),
            h.runs,
            h.runs
        );
    }
    out.push_str("</tbody></table></details>");
}
