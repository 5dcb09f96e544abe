//! The detect section: how the search ran, verdict chips, the who-affects-whom matrix and one
//! table row per scenario with its culprits, failure rate, hazards, value shifts and evidence.

use std::fmt::Write;

use super::super::context::DetectContext;
use super::super::escape::escape as e;
use super::super::inputs::DetectEntry;
use super::super::markup::{badge, chip, data_v, opt_num, pct, reproduce};
use super::super::plot;

/// The `detect` section.
pub(crate) fn detect(out: &mut String, d: &DetectContext) {
    out.push_str("<section id=\"detect\" class=\"band\"><h2>Order dependence (detect)</h2>");
    facts(out, d);
    out.push_str("<div class=\"chips\">");
    for word in ["fail", "victim", "brittle", "flaky", "pass"] {
        let n = d.entries.iter().filter(|x| x.verdict == word).count();
        chip(out, n, word, &format!("d-{word}"));
    }
    out.push_str("</div>");
    matrix(out, d);
    out.push_str(
        "<h3>Verdicts</h3><div class=\"tools\"><input type=\"search\" placeholder=\"filter\" data-filter=\"detect-table\" aria-label=\"filter\"> \
         <span class=\"muted\" data-count-for=\"detect-table\"></span></div>\
         <table id=\"detect-table\" class=\"sortable\"><thead><tr><th>name</th><th>verdict</th><th>polluters</th><th>state-setters</th>\
         <th>cleaners</th><th>how (mechanism, fix)</th><th>failure rate (95% CI)</th><th>hazards</th><th>value shifts</th><th>evidence</th></tr></thead><tbody>",
    );
    for x in &d.entries {
        row(out, x);
    }
    out.push_str("</tbody></table></section>");
}

/// Binary, seed, process counts, time, the reproduce line and the schedules run.
fn facts(out: &mut String, d: &DetectContext) {
    let r = &d.run;
    out.push_str("<dl class=\"facts\">");
    let _ = write!(out, "<dt>binary</dt><dd><code>{}</code> ({})</dd>", e(&r.binary), e(&r.kind));
    if let Some(s) = r.seed {
        let _ = write!(out, "<dt>seed</dt><dd><code>{s}</code></dd>");
    }
    if let Some(n) = &r.runs {
        let _ = write!(
            out,
            "<dt>processes</dt><dd>{} isolated, {} shared, {} localization, {} total</dd>",
            n.isolated, n.shared, n.localization, n.total
        );
    }
    let _ = write!(
        out,
        "<dt>time</dt><dd>{} → {}</dd><dt>format</dt><dd>detect-run.json version {}</dd></dl>",
        e(&r.started_at),
        e(&r.finished_at),
        r.format_version
    );
    if !r.command.is_empty() {
        reproduce(out, "Reproduce:", &r.command);
    }
    if !r.schedules.is_empty() {
        let _ = write!(out, "<details><summary>Schedules ({})</summary><ul>", r.schedules.len());
        for s in &r.schedules {
            let _ = write!(
                out,
                "<li>{}{}: {}</li>",
                e(&s.kind),
                s.seed.map_or(String::new(), |x| format!(" (seed {x})")),
                e(&s.order.join(" → "))
            );
        }
        out.push_str("</ul></details>");
    }
}

/// Who affects whom, or a line saying nobody does.
fn matrix(out: &mut String, d: &DetectContext) {
    if d.edges.is_empty() {
        out.push_str("<p>No polluter, state-setter or cleaner found.</p>");
        return;
    }
    let _ = write!(
        out,
        "<h3>Who affects whom</h3><p class=\"muted\">Row: the scenario whose outcome depends on order. Column: the scenario \
         that, run before it in the same process, makes it fail (polluter), makes it pass (state-setter) or undoes a \
         polluter (cleaner); a letter says how the cause acts (env, cwd, file, memory).{}</p><div class=\"plots\">{}</div>",
        if d.edges.len() > plot::MATRIX_MAX_SIDE {
            format!(" At most {} rows and columns are drawn.", plot::MATRIX_MAX_SIDE)
        } else {
            String::new()
        },
        plot::matrix(&d.edges, &d.marks)
    );
}

fn row(out: &mut String, x: &DetectEntry) {
    let list = |v: &[String]| v.iter().map(|s| e(s).into_owned()).collect::<Vec<_>>().join("<br>");
    let rate = x.failure_rate.as_ref().map_or(String::new(), |f| {
        format!("{} [{}, {}] ({}/{})", pct(f.estimate), pct(f.low), pct(f.high), f.k, f.n)
    });
    let _ = write!(
        out,
        "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td data-v=\"{}\">{rate}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        e(&x.name),
        origin(x),
        badge(&x.verdict),
        list(&x.polluters),
        list(&x.state_setters),
        cleaners(x, list(&x.cleaners)),
        mechanism(x),
        data_v(x.failure_rate.as_ref().map(|f| f.estimate)),
        hazards(x),
        shifts(x),
        evidence(x),
    );
}

/// The cleaners cell: "at least" these, with the reason, when the search stopped early.
fn cleaners(x: &DetectEntry, listed: String) -> String {
    match &x.cleaners_stopped {
        None => listed,
        Some(why) => format!("at least:<br>{listed}<br><span class=\"muted\">{}</span>", e(why)),
    }
}

fn mechanism(x: &DetectEntry) -> String {
    x.mechanism
        .iter()
        .map(|m| {
            format!(
                "<code>{}</code> {} (from {})<br><span class=\"muted\">{}</span>",
                e(&m.kind),
                e(&m.name),
                e(&m.culprit),
                e(&m.fix)
            )
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

fn hazards(x: &DetectEntry) -> String {
    x.hazards
        .iter()
        .map(|h| {
            format!(
                "<code>{}</code>: {} → {}",
                e(&h.name),
                e(h.before.as_deref().unwrap_or("unset")),
                e(h.after.as_deref().unwrap_or("unset"))
            )
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

fn shifts(x: &DetectEntry) -> String {
    x.value_shifts
        .iter()
        .map(|s| {
            format!(
                "{} {:+.1}% [{}, {}]{}{}",
                e(&s.metric),
                s.shift_pct,
                opt_num(s.low_pct, 1),
                opt_num(s.high_pct, 1),
                s.p_adjusted.map_or(String::new(), |p| format!(" p<sub>adj</sub>={p:.3}")),
                if s.culprits.is_empty() {
                    String::new()
                } else {
                    format!(" after {}", e(&s.culprits.join(", ")))
                }
            )
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// The observations behind the verdict, collapsed.
fn evidence(x: &DetectEntry) -> String {
    let mut out = String::new();
    if x.evidence.is_empty() {
        return out;
    }
    let _ = write!(out, "<details><summary>{} observations</summary><ul>", x.evidence.len());
    for ev in &x.evidence {
        let _ = write!(
            out,
            "<li><b>{}</b>{} → {}: {}{}</li>",
            e(&ev.kind),
            ev.seed.map_or(String::new(), |s| format!(" (seed {s})")),
            e(&ev.outcome),
            e(&skipped_then(ev.order_skipped, &ev.order, " → ")),
            if ev.detail.is_empty() {
                String::new()
            } else {
                format!(" <span class=\"muted\">{}</span>", e(&ev.detail))
            }
        );
    }
    out.push_str("</ul></details>");
    if x.verdict != "pass"
        && let Some(m) = x.evidence.iter().find_map(|ev| ev.message.as_deref())
    {
        let _ = write!(out, "<p class=\"label\">message</p><pre>{}</pre>", e(m));
    }
    if let Some(r) = &x.reproduce {
        let _ = write!(out, "<p class=\"label\">reproduce</p><pre><code>{}</code></pre>", e(r));
    }
    if let Some(b) = &x.backtrace {
        let _ = write!(
            out,
            "<details><summary>with the user's RUST_BACKTRACE</summary><pre>{}</pre></details>",
            e(b)
        );
    }
    out
}

/// The cargo package and test binary under the name, when known.
fn origin(x: &DetectEntry) -> String {
    match (&x.package, &x.binary) {
        (Some(p), Some(b)) => format!("<br><span class=\"muted\">{}/{}</span>", e(p), e(b)),
        (None, Some(b)) => format!("<br><span class=\"muted\">{}</span>", e(b)),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_cleaner_search_reads_at_least_with_its_reason_escaped() {
        let x: DetectEntry = serde_json::from_str(
            r#"{"name":"v","verdict":"victim","polluters":["p"],"cleaners":["c1","c2"],
                "cleaners_stopped":"the search stops at 8 cleaners of <p>"}"#,
        )
        .unwrap();
        let mut out = String::new();
        row(&mut out, &x);
        assert!(out.contains("at least:<br>c1<br>c2"), "{out}");
        assert!(out.contains("cleaners of &lt;p&gt;"), "{out}");
        let mut x = x;
        x.cleaners_stopped = None;
        let mut out = String::new();
        row(&mut out, &x);
        assert!(!out.contains("at least"), "{out}");
    }

    #[test]
    fn a_final_runs_backtrace_is_shown_escaped() {
        let x: DetectEntry = serde_json::from_str(
            r#"{"name":"v","verdict":"victim","polluters":["p"],"evidence":[{"kind":"confirm","outcome":"failed","message":"boom"}],
                "backtrace":"panicked at <src/lib.rs>\nstack backtrace:\n   0: v::f"}"#,
        )
        .unwrap();
        let mut out = String::new();
        row(&mut out, &x);
        assert!(out.contains("with the user's RUST_BACKTRACE"), "{out}");
        assert!(out.contains("panicked at &lt;src/lib.rs&gt;\nstack backtrace:"), "{out}");
    }
}

/// `order` joined, after a count of the names detect.json left out before it.
fn skipped_then(skipped: usize, order: &[String], sep: &str) -> String {
    match skipped {
        0 => order.join(sep),
        n => format!("({n} earlier){sep}{}", order.join(sep)),
    }
}
