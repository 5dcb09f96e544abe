//! How a person sees an explanation: compare.md's lines under a row, the terminal's.

use crate::model::{ExplainEntry, ExplainStatus};

/// One entry as `explain::checksum +1,200 (60% of the change)`, `new`/`gone` marked. Names are
/// the scenario's own (symbols): `escape` makes them safe where they are shown.
fn describe(e: &ExplainEntry, total_change: f64, escape: fn(&str) -> String) -> String {
    let mark = match e.status {
        Some(ExplainStatus::New) => " (new)",
        Some(ExplainStatus::Gone) => " (gone)",
        _ => "",
    };
    let share = if total_change != 0.0 {
        format!(", {:.0}% of the change", 100.0 * e.delta / total_change)
    } else {
        String::new()
    };
    format!("{}{mark} {:+.0} instr/call{share}", escape(&e.function), e.delta)
}

fn listed(explain: &[ExplainEntry], top: usize) -> (impl Iterator<Item = &ExplainEntry>, f64) {
    let total: f64 = explain.iter().map(|e| e.delta).sum();
    (explain.iter().filter(|e| e.status != Some(ExplainStatus::Other)).take(top), total)
}

/// compare.md's lines under a changed row: the top `top` functions, one bullet each.
pub fn markdown_lines(explain: &[ExplainEntry], top: usize) -> Vec<String> {
    let (entries, total) = listed(explain, top);
    entries.map(|e| format!("  - `{}`", describe(e, total, md_code))).collect()
}

/// The terminal's lines under a changed row (top 3).
pub fn terminal_lines(explain: &[ExplainEntry], top: usize) -> Vec<String> {
    let (entries, total) = listed(explain, top);
    entries.map(|e| format!("    {}", describe(e, total, printable))).collect()
}

/// A name as the terminal shows it: control characters (an escape sequence in a symbol would
/// drive the terminal) written out as escapes.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A name inside a markdown code span: backticks would end it, HTML is inert there.
fn md_code(s: &str) -> String {
    s.replace('`', "'").replace(['\n', '\r'], " ")
}

/// compare.md's section right after the table: each explained row, its top 5 functions.
pub fn markdown_section(entries: &[crate::model::CompareEntry]) -> String {
    let rows: Vec<_> = entries.iter().filter_map(|e| Some((e, e.explain.as_ref()?))).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut md = String::from("\n### Where the instructions changed (self cost per call, top 5)\n\n");
    for (e, explain) in rows {
        md += &format!("- `{}` {}\n", md_code(&e.name), md_code(&e.metric));
        for line in markdown_lines(explain, 5) {
            md += &line;
            md.push('\n');
        }
    }
    md
}
