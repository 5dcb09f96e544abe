//! The failed runs: each with its outcome, message, stdout and stderr (clipped, escaped).

use std::fmt::Write;

use super::super::context::{FailedRun, RunContext};
use super::super::escape::escape as e;
use super::super::markup::badge;

/// The `failures` section.
pub(crate) fn failures(out: &mut String, run: &RunContext) {
    let _ = write!(
        out,
        "<section id=\"failures\"><h2>Failed runs ({})</h2>",
        run.failures.len() + run.failures_omitted
    );
    for f in &run.failures {
        failure(out, f);
    }
    if run.failures_omitted > 0 {
        let _ = write!(
            out,
            "<p class=\"muted\">{} more failed runs are in results.jsonl.</p>",
            run.failures_omitted
        );
    }
    out.push_str("</section>");
}

fn failure(out: &mut String, f: &FailedRun) {
    let _ = write!(
        out,
        "<details class=\"failure\"><summary><span class=\"name\">{}</span> {} <span class=\"muted\">run #{} (repetition {})</span>{}</summary>",
        e(&f.scenario),
        badge(&f.outcome),
        f.run_index,
        f.repetition,
        f.message
            .as_deref()
            .map_or(String::new(), |m| format!(" <span class=\"msg\">{}</span>", e(first_line(m))))
    );
    if let Some(m) = &f.message {
        let _ = write!(out, "<p class=\"label\">message</p><pre>{}</pre>", e(m));
    }
    if !f.process.is_empty() {
        let _ = write!(out, "<p class=\"label\">process</p><p>{}</p>", e(&f.process));
    }
    for (label, text) in [("stdout", &f.stdout), ("stderr", &f.stderr)] {
        if text.is_empty() {
            let _ = write!(out, "<p class=\"label\">{label}: <i>empty</i></p>");
        } else {
            let _ = write!(out, "<p class=\"label\">{label}</p><pre>{}</pre>", e(text));
        }
    }
    out.push_str("</details>");
}

/// The first line of a message, at most 160 characters, for the collapsed summary.
fn first_line(s: &str) -> &str {
    let line = s.lines().next().unwrap_or("");
    match line.char_indices().nth(160) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}
