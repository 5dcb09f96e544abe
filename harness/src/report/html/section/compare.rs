//! The compare section: the design that ran, verdict chips, the forest plot of ratios (the most
//! notable entries) and the full table, then the PR comment `compare.md`.

use std::fmt::Write;

use super::super::context::CompareContext;
use super::super::escape::escape as e;
use super::super::inputs::{CompareEntry, Estimate};
use super::super::markup::{badge, chip, data_v, opt_num, pct, reproduce};
use super::super::plot;

/// Rows of the forest plot; the table lists every entry.
const MAX_FOREST_ROWS: usize = 60;

/// The `compare` section.
pub(crate) fn compare(out: &mut String, c: &CompareContext) {
    out.push_str("<section id=\"compare\" class=\"band\"><h2>Comparison (compare)</h2>");
    facts(out, c);
    out.push_str("<div class=\"chips\">");
    for word in ["regressed", "improved", "inconclusive", "unchanged"] {
        let n = c.entries.iter().filter(|x| x.verdict == word).count();
        chip(out, n, word, &format!("k-{word}"));
    }
    out.push_str("</div>");
    let mut ordered: Vec<&CompareEntry> = c.entries.iter().collect();
    // Counter rows first: where they exist they decide; wall time stands beside them.
    ordered.sort_by(|a, b| {
        let dist = |x: &CompareEntry| x.ratio.map_or(0.0, |r| (r.ln()).abs());
        (a.source.is_none().cmp(&b.source.is_none()))
            .then(rank(&a.verdict).cmp(&rank(&b.verdict)))
            .then(dist(b).total_cmp(&dist(a)))
    });
    forest(out, &ordered);
    out.push_str(&crate::explain::html_section(
        ordered
            .iter()
            .filter_map(|x| Some((format!("{} {}", x.name, x.metric), x.explain.as_deref()?))),
    ));
    out.push_str(
        "<h3>Entries</h3><div class=\"tools\"><input type=\"search\" placeholder=\"filter\" data-filter=\"compare-table\" aria-label=\"filter\"> \
         <span class=\"muted\" data-count-for=\"compare-table\"></span></div>\
         <table id=\"compare-table\" class=\"sortable\"><thead><tr><th>name</th><th>metric</th><th>change (95% CI)</th><th>p (adj.)</th>\
         <th>verdict</th><th>noise band</th><th>MDE</th><th>n base/cand (pairs)</th><th>runs needed</th><th>baseline</th><th>candidate</th></tr></thead><tbody>",
    );
    for x in ordered {
        row(out, x);
    }
    out.push_str("</tbody></table>");
    if let Some(md) = &c.markdown {
        let _ = write!(
            out,
            "<details><summary>PR comment (compare.md)</summary><pre class=\"md\">{}</pre></details>",
            e(md)
        );
    }
    out.push_str("</section>");
}

/// Regressions first, then improvements, inconclusive, unchanged.
fn rank(v: &str) -> u8 {
    match v {
        "regressed" => 0,
        "improved" => 1,
        "inconclusive" => 2,
        _ => 3,
    }
}

/// Builds, design, seed, alpha, calibration, time and the reproduce line.
fn facts(out: &mut String, c: &CompareContext) {
    let r = &c.run;
    out.push_str("<dl class=\"facts\">");
    let _ = write!(
        out,
        "<dt>baseline</dt><dd><code>{}</code></dd><dt>candidate</dt><dd><code>{}</code></dd>",
        e(&r.baseline),
        e(&r.candidate)
    );
    let _ = write!(out, "<dt>design</dt><dd>{}</dd>", e(&r.design));
    if let Some(s) = r.seed {
        let _ = write!(out, "<dt>seed</dt><dd><code>{s}</code></dd>");
    }
    if let Some(a) = r.alpha {
        let _ = write!(out, "<dt>alpha</dt><dd>{a} (Benjamini-Hochberg adjusted)</dd>");
    }
    let _ = write!(
        out,
        "<dt>calibration</dt><dd>{}</dd>",
        e(r.calibration.as_deref().unwrap_or("none"))
    );
    let _ = write!(
        out,
        "<dt>time</dt><dd>{} → {}</dd><dt>format</dt><dd>compare-run.json version {}</dd></dl>",
        e(&r.started_at),
        e(&r.finished_at),
        r.format_version
    );
    if !r.command.is_empty() {
        reproduce(out, "Reproduce:", &r.command);
    }
}

/// The forest plot of the first [`MAX_FOREST_ROWS`] of `ordered`.
fn forest(out: &mut String, ordered: &[&CompareEntry]) {
    let shown: Vec<CompareEntry> = ordered.iter().take(MAX_FOREST_ROWS).map(|x| (*x).clone()).collect();
    let _ = write!(
        out,
        "<h3>Ratios</h3><p class=\"muted\">Dot: candidate/baseline; line: its 95% interval; grey band: the noise band \
         (changes inside it are not called). Red regressed, green improved, amber inconclusive, grey unchanged.{}</p><div class=\"plots\">{}</div>",
        if ordered.len() > MAX_FOREST_ROWS {
            format!(
                " Showing the {MAX_FOREST_ROWS} most notable of {}; the table lists all.",
                ordered.len()
            )
        } else {
            String::new()
        },
        plot::forest(&shown)
    );
}

fn row(out: &mut String, x: &CompareEntry) {
    let change = match (x.ratio, x.low, x.high) {
        // An exact allocation row: `+1 per call`, never a ratio (0 -> 1 has none).
        _ if x.per_call.is_some() => x.per_call.clone().unwrap_or_default(),
        (Some(r), Some(l), Some(h)) => format!(
            "{:+.2}% [{:+.2}%, {:+.2}%]",
            (r - 1.0) * 100.0,
            (l - 1.0) * 100.0,
            (h - 1.0) * 100.0
        ),
        (Some(r), _, _) => format!("{:+.2}%", (r - 1.0) * 100.0),
        _ => "–".into(),
    };
    let counts = crate::allocs::cell::is_alloc_source(x.source.as_deref());
    let est = |v: &Option<Estimate>| {
        v.as_ref().map_or("–".into(), |v| match (v.low, v.high) {
            // An allocation row's side is a count per call (`1 alloc`, `4096 B`).
            (Some(l), Some(h)) if counts && l < h => format!(
                "{} [{}, {}]",
                crate::allocs::cell::count_cell(&x.metric, v.center),
                plot::tick(l),
                plot::tick(h)
            ),
            _ if counts => crate::allocs::cell::count_cell(&x.metric, v.center),
            (Some(l), Some(h)) => format!("{} [{}, {}] {}", plot::tick(v.center), plot::tick(l), plot::tick(h), x.unit),
            _ => format!("{} {}", plot::tick(v.center), x.unit),
        })
    };
    let arrow = match x.better.as_str() {
        "lower" => " ↓",
        "higher" => " ↑",
        _ => "",
    };
    let _ = write!(
        out,
        "<tr><td>{}</td><td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{} ({})</td><td data-v=\"{}\">{}</td><td>{}</td><td>{}</td>\
         <td>{}/{}{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        e(&x.name),
        e(&format!(
            "{}{arrow}{}",
            x.metric,
            x.source.as_ref().map_or(String::new(), |s| format!(" ({s})"))
        )),
        data_v(x.ratio),
        e(&change),
        data_v(x.p_adjusted),
        opt_num(x.p_value, 4),
        opt_num(x.p_adjusted, 4),
        rank(&x.verdict),
        badge(&x.verdict),
        x.noise_band.map_or("–".into(), |b| format!("±{}", pct(b))),
        x.mde.map_or("–".into(), pct),
        x.n_baseline,
        x.n_candidate,
        x.pairs.map_or(String::new(), |p| format!(" ({p})")),
        x.runs_needed.map_or(String::new(), |n| n.to_string()),
        e(&est(&x.baseline)),
        e(&est(&x.candidate)),
    );
}
