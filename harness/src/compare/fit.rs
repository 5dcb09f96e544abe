//! A `compare.md` that always fits a GitHub comment (65,536 characters): when the whole comparison
//! is longer, the comment keeps what a reviewer must see (regressed and improved rows, then the
//! inconclusive rows with the largest estimated change), counts the rest, states what it left out,
//! and points at `compare-full.md`, which holds every row.

use std::fmt::Write;

use super::markdown;
use crate::model::{CompareEntry, CompareRun, CompareVerdict};

/// GitHub refuses a comment body longer than this many characters.
pub(crate) const COMMENT_LIMIT: usize = 65_536;
/// GitHub's limit on a step's job summary (`GITHUB_STEP_SUMMARY`), in bytes.
pub(crate) const STEP_SUMMARY_LIMIT: usize = 1024 * 1024;
/// Names longer than this are cut in the bounded comment (compare-full.md keeps them whole).
const MAX_NAME: usize = 120;
/// Room kept for the "left out" statement, written after the rows are chosen.
const LEFT_OUT_RESERVE: usize = 600;

/// One row of a size-bounded table: its line, and detail lines under it (other reports add
/// per-row detail such as top functions) that are dropped before any row is.
pub(crate) struct Row {
    pub line: String,
    pub details: Vec<String>,
}

/// What [`fit_rows`] kept: the text, how many rows (a prefix of the input) and how many of those
/// kept their details.
pub(crate) struct Fitted {
    pub text: String,
    pub rows: usize,
    pub with_details: usize,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Takes rows in order while they fit in `budget` characters: first every row's line, then the
/// details of the kept rows, in order, while they fit. Rows come first because a missing row
/// hides a verdict, a missing detail only an explanation.
pub(crate) fn fit_rows(rows: &[Row], budget: usize) -> Fitted {
    let mut used = 0;
    let mut kept = 0;
    for r in rows {
        let n = chars(&r.line) + 1;
        if used + n > budget {
            break;
        }
        used += n;
        kept += 1;
    }
    let mut detailed = vec![false; kept];
    for (i, r) in rows[..kept].iter().enumerate() {
        let n: usize = r.details.iter().map(|d| chars(d) + 1).sum();
        if !r.details.is_empty() && used + n <= budget {
            used += n;
            detailed[i] = true;
        }
    }
    let mut text = String::new();
    for (r, d) in rows[..kept].iter().zip(&detailed) {
        text += &r.line;
        text.push('\n');
        if *d {
            for l in &r.details {
                text += l;
                text.push('\n');
            }
        }
    }
    Fitted {
        text,
        rows: kept,
        with_details: detailed.iter().filter(|d| **d).count(),
    }
}

fn size_of_change(e: &CompareEntry) -> f64 {
    e.ratio.filter(|r| *r > 0.0).map_or(0.0, |r| r.ln().abs())
}

/// compare.md: `full` itself when it fits in `limit` characters, else the bounded comment.
pub(crate) fn render(entries: &[CompareEntry], run: &CompareRun, mde_report: f64, full: &str, limit: usize) -> String {
    if chars(full) <= limit {
        return full.to_owned();
    }
    let count = |v| entries.iter().filter(|e| e.verdict == v).count();
    let (reg, imp, unch, inc) = (
        count(CompareVerdict::Regressed),
        count(CompareVerdict::Improved),
        count(CompareVerdict::Unchanged),
        count(CompareVerdict::Inconclusive),
    );
    let mut head = String::from("## Performance comparison\n\n");
    let _ = writeln!(
        head,
        "**{reg} regressed, {imp} improved, {unch} unchanged, {inc} inconclusive** of {} scenario × metric rows.\n",
        entries.len()
    );
    for w in run.warnings.iter().take(5) {
        let w: String = w.chars().take(400).collect();
        let _ = writeln!(head, "> ⚠️ {}\n", markdown::escape(&w));
    }
    head += "The whole table is too long for one comment: this one shows the changed rows, then the inconclusive \
             rows with the largest estimated change. Every row is in `compare-full.md` beside this file and in the \
             HTML report.\n\n";
    head += markdown::TABLE_HEAD;

    let mut decided: Vec<&CompareEntry> = entries
        .iter()
        .filter(|e| matches!(e.verdict, CompareVerdict::Regressed | CompareVerdict::Improved))
        .collect();
    let mut open: Vec<&CompareEntry> = entries.iter().filter(|e| e.verdict == CompareVerdict::Inconclusive).collect();
    let by_size = |a: &&CompareEntry, b: &&CompareEntry| size_of_change(b).total_cmp(&size_of_change(a));
    decided.sort_by(by_size);
    open.sort_by(by_size);
    let rows: Vec<Row> = decided
        .iter()
        .chain(&open)
        .map(|e| Row {
            line: markdown::row(e, MAX_NAME),
            details: Vec::new(),
        })
        .collect();

    let tail = cannot_catch(entries, mde_report);
    let budget = limit.saturating_sub(chars(&head) + chars(&tail) + LEFT_OUT_RESERVE);
    let fitted = fit_rows(&rows, budget);
    let shown_decided = fitted.rows.min(decided.len());
    let shown_open = fitted.rows - shown_decided;
    let mut md = head + &fitted.text;
    let _ = writeln!(
        md,
        "\n**Left out to fit GitHub's {limit}-character limit:** {} of {} regressed/improved rows, {} of {} \
         inconclusive rows, all {unch} unchanged rows (counted above){}. See `compare-full.md`.",
        decided.len() - shown_decided,
        decided.len(),
        open.len() - shown_open,
        open.len(),
        match rows.iter().take(fitted.rows).filter(|r| !r.details.is_empty()).count() - fitted.with_details {
            0 => String::new(),
            n => format!(", the detail lines of {n} rows"),
        }
    );
    md += &tail;
    if chars(&md) > limit {
        // Unreachable by the reserves above; a cut comment still beats one GitHub refuses.
        md = md.chars().take(limit).collect();
    }
    md
}

/// "What this cannot catch", bounded: the count, and the 20 blindest rows.
fn cannot_catch(entries: &[CompareEntry], mde_report: f64) -> String {
    let mut blind: Vec<&CompareEntry> = entries.iter().filter(|e| e.mde.is_none_or(|m| m > mde_report)).collect();
    blind.sort_by(|a, b| b.mde.unwrap_or(f64::INFINITY).total_cmp(&a.mde.unwrap_or(f64::INFINITY)));
    let mut md = String::new();
    let _ = writeln!(
        md,
        "\n### What this cannot catch\n\n{} of {} rows have a minimal detectable effect (80% power, this run count, \
         this verdict rule) larger than {:.0}%: a real change of that size there would most likely pass unseen.{}\n",
        blind.len(),
        entries.len(),
        mde_report * 100.0,
        if blind.len() > 20 { " The 20 least sensitive:" } else { "" }
    );
    for e in blind.iter().take(20) {
        let mde = e.mde.map_or("unknown".to_owned(), |m| format!("{:.1}%", m * 100.0));
        let name: String = e.name.chars().take(MAX_NAME).collect();
        let metric: String = e.metric.chars().take(MAX_NAME).collect();
        let _ = writeln!(md, "- {} {}: MDE {mde}", markdown::escape(&name), markdown::escape(&metric));
    }
    md
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;
