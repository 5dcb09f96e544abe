//! The summary table: one row per scenario x metric, problems first, filterable and sortable.

use std::fmt::Write;

use super::super::context::{RunContext, SummaryRow, verdict_rank};
use super::super::escape::escape as e;
use super::super::markup::{data_v, pct, verdict_badge};
use crate::report::format_value;

/// The `summary` section.
pub(crate) fn summary(out: &mut String, run: &RunContext) {
    out.push_str(
        "<section id=\"summary\"><h2>Summary</h2>\
         <div class=\"tools\"><input type=\"search\" placeholder=\"filter rows (name, metric, verdict…)\" data-filter=\"summary-table\" aria-label=\"filter\"> \
         <span class=\"muted\" data-count-for=\"summary-table\"></span></div>\
         <table id=\"summary-table\" class=\"sortable\"><thead><tr><th>scenario</th><th>kind</th><th>metric</th><th>n</th>\
         <th>centre ± 95% CI</th><th>CV</th><th>verdict</th><th>note</th></tr></thead><tbody>",
    );
    let mut rows: Vec<_> = run.rows.iter().collect();
    rows.sort_by_key(|r| verdict_rank(r.verdict));
    for r in rows {
        row(out, r);
    }
    out.push_str("</tbody></table></section>");
}

fn row(out: &mut String, r: &SummaryRow) {
    let name = match &r.card_id {
        Some(id) => format!("<a href=\"#{id}\">{}</a>", e(&r.scenario)),
        None => e(&r.scenario).into_owned(),
    };
    let kind = format!("{:?}", r.kind).to_lowercase();
    let centre = match (r.centre, &r.unit) {
        _ if r.per_call.is_some() => e(r.per_call.as_deref().unwrap_or_default()).into_owned(),
        (Some(c), Some(u)) => {
            let ci = match (r.exact, r.rel_half_width) {
                (true, _) => " (exact)".into(),
                (false, Some(w)) => format!(" ± {}", pct(w)),
                (false, None) => String::new(),
            };
            format!("{}{}", e(&format_value(c, u)), ci)
        }
        _ => String::new(),
    };
    let _ = write!(
        out,
        "<tr><td>{name}</td><td>{kind}</td><td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{centre}</td><td data-v=\"{}\">{}</td>\
         <td data-v=\"{}\">{}</td><td>{}</td></tr>",
        e(r.metric.as_deref().unwrap_or("–")),
        r.n,
        r.n,
        data_v(r.rel_half_width),
        data_v(r.cv),
        r.cv.map_or(String::new(), pct),
        verdict_rank(r.verdict),
        verdict_badge(r.verdict),
        e(&r.detail)
    );
}
