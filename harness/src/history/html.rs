//! `write_history_html`: the history's `index.html`: a table of the changes found and one trend
//! chart per scenario and metric. Names pass through the report's one `escape()`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::series::{Change, Series};
use crate::errors::Error;
use crate::report::html::escape as e;
use crate::report::html::page::{SCRIPT, STYLE, TEMPLATE, fill};
use crate::report::html::plot::trend;

/// Writes `dir/index.html` for `series` with `changes` marked (none for a plain trend report).
pub fn write_history_html(dir: &Path, runs: usize, series: &[Series], changes: &[Change]) -> Result<PathBuf, Error> {
    let html = render(runs, series, changes);
    let path = dir.join("index.html");
    std::fs::write(&path, html).map_err(|source| Error::Io {
        what: format!("writing {}", path.display()),
        source,
    })?;
    Ok(path)
}

/// The change's label, and "environment changed: what" when the fingerprints differ there.
fn label(c: &Change) -> String {
    let given = c.label.as_deref().unwrap_or("");
    if c.environment_changed() {
        format!("{given} environment changed: {}", c.environment.join("; "))
            .trim_start()
            .to_owned()
    } else {
        given.to_owned()
    }
}

fn render(runs: usize, series: &[Series], changes: &[Change]) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        "<section id=\"history\"><h2>History</h2><p class=\"muted\">{runs} runs, {} series. Grey dots: one per process; blue line: \
         each run's level (median of its processes) with its 95% interval; red lines: change points (E-Divisive means, \
         permutation test; see docs/history.md).</p>",
        series.len()
    );
    if !changes.is_empty() {
        body.push_str("<table><thead><tr><th>scenario</th><th>metric</th><th>run</th><th>label</th><th>commit</th><th>before</th><th>after</th><th>ratio</th><th>p</th></tr></thead><tbody>");
        for c in changes {
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{:.4}</td><td>{:.4}</td><td>{}</td><td>{:.3}</td></tr>",
                e(&c.name),
                e(&with_source(&c.metric, &c.source)),
                c.run,
                e(&label(c)),
                e(c.commit.as_deref().unwrap_or("")),
                c.before,
                c.after,
                // An exact allocation change has no ratio (0 -> 1): its change per call instead.
                c.per_call.as_deref().map_or(format!("{:.3}x", c.ratio), |p| e(p).into_owned()),
                c.p_value
            );
        }
        body.push_str("</tbody></table>");
    }
    body.push_str(&crate::explain::html_section(changes.iter().filter_map(|c| {
        Some((format!("{} {} at run {}", c.name, c.metric, c.run), c.explain.as_deref()?))
    })));
    for c in changes {
        if let Some(n) = &c.explain_note {
            let _ = write!(
                body,
                "<p class=\"muted\">Note ({} {} at run {}): {}</p>",
                e(&c.name),
                e(&c.metric),
                c.run,
                e(n)
            );
        }
    }
    body.push_str("</section>");
    for s in series {
        let marks: Vec<usize> = changes
            .iter()
            .filter(|c| c.name == s.scenario && c.metric == s.metric && c.source == s.source)
            .map(|c| c.run - 1)
            .collect();
        let _ = write!(
            body,
            "<section class=\"card\"><h3>{} <span class=\"muted\">{}</span></h3>{}</section>",
            e(&s.scenario),
            e(&with_source(&s.metric, &s.source)),
            trend(s, &marks)
        );
    }
    fill(
        TEMPLATE,
        &[
            ("style", STYLE),
            ("script", SCRIPT),
            ("nav", "<a href=\"#history\">History</a>"),
            ("body", &body),
        ],
    )
}

/// A metric's name with its counter source, when it has one: `instructions (valgrind-callgrind 3.19)`.
fn with_source(metric: &str, source: &Option<String>) -> String {
    match source {
        Some(s) => format!("{metric} ({s})"),
        None => metric.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Point;

    #[test]
    fn names_and_labels_are_escaped() {
        let hostile = "<script>alert(1)</script>";
        let series = vec![Series {
            scenario: hostile.into(),
            metric: "m\"'".into(),
            source: None,
            unit: "ns".into(),
            points: vec![Point {
                run: 0,
                values: vec![1.0],
                level: 1.0,
                ci: None,
            }],
            log_scale: true,
        }];
        let change = Change {
            name: hostile.into(),
            metric: "m".into(),
            label: Some("</td><b>".into()),
            commit: Some("c&d".into()),
            before: 1.0,
            after: 1.1,
            ratio: 1.1,
            p_value: 0.002,
            run: 1,
            started_at: String::new(),
            source: Some("<i>".into()),
            explain: None,
            explain_note: Some("no symbols <b>".into()),
            environment: Vec::new(),
            per_call: None,
        };
        let html = render(1, &series, &[change]);
        assert!(!html.contains(hostile) && !html.contains("</td><b>"), "unescaped");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && html.contains("c&amp;d"));
        assert!(html.contains("1.100x"));
        assert!(html.contains("(&lt;i&gt;)"), "the source is escaped too");
        assert!(html.contains("no symbols &lt;b&gt;"), "the no-symbols note is shown, escaped");
    }
}
