//! The HTML differential view of an explanation ([`html_section`]): per explained row an inline
//! SVG bar chart of the top [`HTML_TOP`] functions by |delta| and `other`, growing to the right
//! in red (more instructions: a regression), to the left in green (fewer: an improvement).

use std::fmt::Write;

use crate::model::{ExplainEntry, ExplainStatus};
use crate::report::html::escape as e;

/// Functions drawn per row, before `other`.
pub const HTML_TOP: usize = 20;

const WIDTH: f64 = 780.0;
/// Left column for names; a longer name is cut (its full text is in the bar's tooltip).
const NAME_W: f64 = 360.0;
const NAME_CHARS: usize = 54;
const BARS_X: f64 = NAME_W + 10.0;
const BARS_W: f64 = 290.0;
const ROW_H: f64 = 18.0;
const TOP: f64 = 8.0;
const RED: &str = "#c53030";
const GREEN: &str = "#2f855a";
const GREY: &str = "#8a94a3";

/// The figures of every `(title, explain)` row, under a heading; empty when there is none.
pub fn html_section<'a>(rows: impl IntoIterator<Item = (String, &'a [ExplainEntry])>) -> String {
    let figures: Vec<String> = rows.into_iter().map(|(title, x)| html_view(&title, x)).collect();
    if figures.is_empty() {
        return String::new();
    }
    format!(
        "<h3>Where the instructions changed</h3><p class=\"muted\">Self (exclusive) instructions per call by function, \
         candidate minus baseline, the {HTML_TOP} largest changes and <i>other</i> (every function not drawn, plus the \
         difference between the row's centres and the profiles' sums): the bars add up to the row's change. Red: more \
         instructions, green: fewer, grey: other; a dashed outline marks a function on one side only. Inlined functions \
         count in their caller.</p><div class=\"plots\">{}</div>",
        figures.concat()
    )
}

/// One row's chart: `title` (scenario and metric, from the scenario: escaped) over one bar per
/// drawn entry.
pub fn html_view(title: &str, explain: &[ExplainEntry]) -> String {
    let other = explain.iter().find(|x| x.status == Some(ExplainStatus::Other));
    let functions = explain.iter().filter(|x| x.status != Some(ExplainStatus::Other));
    let drawn: Vec<&ExplainEntry> = functions.clone().take(HTML_TOP).chain(other).collect();
    let total: f64 = explain.iter().map(|x| x.delta).sum();
    let largest = drawn.iter().map(|x| x.delta.abs()).fold(0.0, f64::max);
    let (any_up, any_down) = (drawn.iter().any(|x| x.delta > 0.0), drawn.iter().any(|x| x.delta < 0.0));
    // Zero sits where the bars need room: left edge for growth only, right for shrinkage only.
    let zero = match (any_up, any_down) {
        (true, true) => BARS_X + BARS_W / 2.0,
        (false, true) => BARS_X + BARS_W,
        _ => BARS_X,
    };
    let room = if any_up && any_down { BARS_W / 2.0 } else { BARS_W };
    let scale = if largest > 0.0 { room / largest } else { 0.0 };
    let height = TOP * 2.0 + ROW_H * drawn.len() as f64;
    let mut svg = format!(
        "<svg class=\"explain\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" \
         font-size=\"11\" font-family=\"ui-monospace, monospace\">"
    );
    for (i, x) in drawn.iter().enumerate() {
        let y = TOP + ROW_H * i as f64;
        let w = (x.delta.abs() * scale).max(1.0);
        let left = if x.delta < 0.0 { zero - w } else { zero };
        let fill = match (x.status, x.delta > 0.0) {
            (Some(ExplainStatus::Other), _) => GREY,
            (_, true) => RED,
            _ => GREEN,
        };
        let one_side = matches!(x.status, Some(ExplainStatus::New | ExplainStatus::Gone));
        let dashed = if one_side {
            " stroke=\"#333a44\" stroke-dasharray=\"3 2\""
        } else {
            ""
        };
        let share = if total != 0.0 {
            format!(" ({:.0}%)", 100.0 * x.delta / total)
        } else {
            String::new()
        };
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\
             <rect class=\"bar\" x=\"{left:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{fill}\"{dashed}><title>{}</title></rect>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:+.0}{share}</text>",
            NAME_W,
            y + 12.0,
            e(&label(x)),
            y + 3.0,
            ROW_H - 6.0,
            e(&tooltip(x)),
            WIDTH - 4.0,
            y + 12.0,
            x.delta
        );
    }
    let _ = write!(
        svg,
        "<line x1=\"{zero}\" x2=\"{zero}\" y1=\"{}\" y2=\"{}\" stroke=\"#333a44\"/></svg>",
        TOP / 2.0,
        height - TOP / 2.0
    );
    let shown = functions.count().min(HTML_TOP);
    format!(
        "<figure class=\"explain\"><figcaption><b>{}</b> <span class=\"muted\">{shown} of {} functions listed, and other; \
         change {:+.0} instr/call</span></figcaption>{svg}</figure>",
        e(title),
        explain.len().saturating_sub(usize::from(other.is_some())),
        total
    )
}

/// The name as drawn: cut to [`NAME_CHARS`], `new`/`gone` marked.
fn label(x: &ExplainEntry) -> String {
    let mark = match x.status {
        Some(ExplainStatus::New) => " (new)",
        Some(ExplainStatus::Gone) => " (gone)",
        _ => "",
    };
    let room = NAME_CHARS - mark.len();
    let name = if x.function.chars().count() > room {
        x.function.chars().take(room - 1).chain(['…']).collect()
    } else {
        x.function.clone()
    };
    format!("{name}{mark}")
}

/// The full name and both sides, shown on hover.
fn tooltip(x: &ExplainEntry) -> String {
    let side = |v: Option<f64>| v.map_or("absent".to_owned(), |v| format!("{v:.0}"));
    format!(
        "{}: baseline {}, candidate {}, delta {:+.0} instr/call",
        x.function,
        side(x.baseline),
        side(x.candidate),
        x.delta
    )
}
