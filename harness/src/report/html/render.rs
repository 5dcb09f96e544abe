//! `render`: a `ReportContext` to one self-contained HTML page (template, inline CSS and script,
//! inline SVG). Every string that came from a scenario or a results file passes through `escape`.

use std::fmt::Write;

use super::context::{CompareContext, DetectContext, MeasurementCard, ReportContext, RunContext, verdict_rank};
use super::escape::escape as e;
use super::inputs::CompareEntry;
use super::plot;
use crate::model::{HostInfo, Status, Verdict};
use crate::report::format_value;

const TEMPLATE: &str = include_str!("template.html");
const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("script.js");
/// Cards drawn open; later ones start collapsed so a 1000-scenario page stays quick to lay out.
const OPEN_CARDS: usize = 24;
/// Rows of the forest plot; the table lists every entry.
const MAX_FOREST_ROWS: usize = 60;

/// The whole page.
pub(crate) fn render(ctx: &ReportContext) -> String {
    let mut body = String::with_capacity(64 * 1024);
    let mut nav = Vec::new();
    if let Some(run) = &ctx.run {
        run_overview(&mut body, run);
        summary_table(&mut body, run);
        nav.extend([("overview", "Overview"), ("summary", "Summary")]);
        if !run.cards.is_empty() {
            measurements(&mut body, &run.cards);
            nav.push(("measurements", "Measurements"));
        }
        if !run.failures.is_empty() {
            failures(&mut body, run);
            nav.push(("failures", "Failures"));
        }
    }
    if let Some(d) = &ctx.detect {
        detect(&mut body, d);
        nav.push(("detect", "Detect"));
    }
    if let Some(c) = &ctx.compare {
        compare(&mut body, c);
        nav.push(("compare", "Compare"));
    }
    if let Some(h) = ctx.host() {
        host(&mut body, h);
        nav.push(("host", "Host"));
    }
    let nav: String = nav.iter().map(|(id, label)| format!("<a href=\"#{id}\">{label}</a>")).collect();
    fill(TEMPLATE, &[("style", STYLE), ("script", SCRIPT), ("nav", &nav), ("body", &body)])
}

/// Replaces `{{key}}` in `template` in one pass, so a value that itself contains `{{key}}`
/// (a scenario may be named anything) is never expanded.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after
            .find("}}")
            .and_then(|end| values.iter().find(|(k, _)| *k == &after[..end]).map(|(_, v)| (end, v)))
        {
            Some((end, v)) => {
                out.push_str(v);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A CSS class suffix from a verdict word: lowercase ASCII letters and dashes only.
fn class_of(word: &str) -> String {
    word.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect()
}

fn badge(word: &str) -> String {
    format!("<span class=\"badge b-{}\">{}</span>", class_of(word), e(word))
}

fn verdict_badge(v: Verdict) -> String {
    badge(v.as_str())
}

/// The labelled, shell-quoted command that reproduces a run.
fn reproduce(out: &mut String, label: &str, command: &[String]) {
    let _ = write!(
        out,
        "<p class=\"label\">{}</p><pre class=\"cmd\"><code>{}</code></pre>",
        e(label),
        e(&shell_join(command))
    );
}

/// The command as a shell line: arguments with anything beyond `[A-Za-z0-9_./:=,+-]` quoted.
pub(crate) fn shell_join(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "_./:=,+-".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn opt_num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.digits$}"))
}

fn data_v(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite()).map_or_else(String::new, |v| v.to_string())
}

fn run_overview(out: &mut String, run: &RunContext) {
    let m = &run.meta;
    let _ = write!(out, "<section id=\"overview\" class=\"band\"><h2>Run</h2>");
    if run.partial {
        let _ = write!(
            out,
            "<p class=\"warn\">This run did not finish: runs recovered from results.jsonl, summaries recomputed.</p>"
        );
    }
    out.push_str("<div class=\"chips\">");
    let count = |s: Status| run.status_counts.iter().find(|(t, _)| *t == s).map_or(0, |c| c.1);
    for s in Status::ALL {
        let n = count(s);
        let always = matches!(s, Status::Passed | Status::Failed | Status::Crashed | Status::TimedOut);
        if n > 0 || always {
            let cls = if n == 0 { "zero".to_string() } else { class_of(s.as_str()) };
            let _ = write!(
                out,
                "<div class=\"chip c-{cls}\"><b>{n}</b><span>{}</span></div>",
                s.as_str().replace('_', " ")
            );
        }
    }
    let _ = write!(
        out,
        "<div class=\"chip c-info\"><b>{}</b><span>scenarios</span></div><div class=\"chip c-info\"><b>{}</b><span>processes</span></div>",
        run.scenarios, run.processes
    );
    let hz = if run.hazards.is_empty() { "zero" } else { "hazard" };
    let _ = write!(
        out,
        "<div class=\"chip c-{hz}\"><b>{}</b><span>hazards</span></div></div>",
        run.hazards.len()
    );
    out.push_str("<p class=\"verdicts\">Scenarios: ");
    for (v, n) in &run.verdict_counts {
        let _ = write!(out, "{} {n} &nbsp; ", verdict_badge(*v));
    }
    out.push_str("</p><dl class=\"facts\">");
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
        out.push_str(
            "<details open><summary>Hazards: process-wide state a scenario changed (harmful when scenarios share a process)</summary>\
             <table class=\"sortable\"><thead><tr><th>scenario</th><th>variable</th><th>before</th><th>after</th><th>runs</th></tr></thead><tbody>",
        );
        for h in &run.hazards {
            let _ = write!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td data-v=\"{}\">{}</td></tr>",
                e(&h.scenario),
                e(&h.name),
                h.before
                    .as_deref()
                    .map_or("<i>unset</i>".into(), |v| format!("<code>{}</code>", e(v))),
                h.after
                    .as_deref()
                    .map_or("<i>unset</i>".into(), |v| format!("<code>{}</code>", e(v))),
                h.runs,
                h.runs
            );
        }
        out.push_str("</tbody></table></details>");
    }
    out.push_str("</section>");
}

fn summary_table(out: &mut String, run: &RunContext) {
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
        let name = match &r.card_id {
            Some(id) => format!("<a href=\"#{id}\">{}</a>", e(&r.scenario)),
            None => e(&r.scenario).into_owned(),
        };
        let kind = format!("{:?}", r.kind).to_lowercase();
        let centre = match (r.centre, &r.unit) {
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
    out.push_str("</tbody></table></section>");
}

fn measurements(out: &mut String, cards: &[MeasurementCard]) {
    let _ = write!(
        out,
        "<section id=\"measurements\"><h2>Measurements</h2><p class=\"muted\">Left: one dot per process (box = quartiles, \
         blue band = 95% CI of the centre, orange/red = mild/severe Tukey outliers). Right: the same values in run order — a slope \
         is drift, a high start is warm-up.{}</p>",
        if cards.len() > OPEN_CARDS {
            format!(" The first {OPEN_CARDS} cards are open; click a title to open the others.")
        } else {
            String::new()
        }
    );
    for (i, c) in cards.iter().enumerate() {
        card(out, c, i < OPEN_CARDS);
    }
    out.push_str("</section>");
}

fn card(out: &mut String, c: &MeasurementCard, open: bool) {
    let st = &c.stats;
    let centre = format_value(st.center_value, &c.unit);
    let ci = match (&st.ci, st.exact) {
        (_, true) => "exact".to_string(),
        (Some(i), false) => format!(
            "[{}, {}]{}",
            format_value(i.low, &c.unit),
            format_value(i.high, &c.unit),
            st.rel_half_width.map_or(String::new(), |w| format!(" (± {})", pct(w)))
        ),
        (None, false) => "no interval (n < 2)".into(),
    };
    let _ = write!(
        out,
        "<details class=\"card\" id=\"{}\"{}><summary><span class=\"name\">{}</span> <span class=\"metric\">{}</span> {} \
         <span class=\"headline\">{} {}</span></summary><div class=\"plots\">{}{}</div><dl class=\"numbers\">",
        c.id,
        if open { " open" } else { "" },
        e(&c.scenario),
        e(&c.metric),
        verdict_badge(c.verdict),
        e(&centre),
        e(&ci),
        plot::distribution(c),
        plot::sequence(c),
    );
    let center_name = match st.center {
        crate::stats::Center::GeometricMean => "geometric mean",
        crate::stats::Center::ArithmeticMean => "mean",
    };
    let better = format!("{:?}", c.better).to_lowercase();
    let mut fact = |k: &str, v: String| {
        let _ = write!(out, "<dt>{k}</dt><dd>{}</dd>", e(&v));
    };
    fact("n (processes)", st.n.to_string());
    fact(center_name, format!("{centre}, 95% CI {ci}"));
    fact(
        "median",
        match &st.median_ci {
            Some(i) => format!(
                "{} [{}, {}]",
                format_value(st.median, &c.unit),
                format_value(i.low, &c.unit),
                format_value(i.high, &c.unit)
            ),
            None => format_value(st.median, &c.unit),
        },
    );
    fact(
        "mean ± sd",
        format!("{} ± {}", format_value(st.mean, &c.unit), format_value(st.std_dev, &c.unit)),
    );
    fact("CV", pct(st.cv));
    fact(
        "min – max",
        format!("{} – {}", format_value(st.min, &c.unit), format_value(st.max, &c.unit)),
    );
    let severe = st.outliers.iter().filter(|o| o.severity == crate::stats::Severity::Severe).count();
    fact(
        "outliers",
        format!(
            "{} mild, {severe} severe (Tukey fences, flagged not removed)",
            st.outliers.len() - severe
        ),
    );
    fact(
        "variance split",
        match &st.variance_split {
            Some(v) => format!(
                "{} between processes, {} within (more {} would narrow the interval)",
                pct(v.between_share),
                pct(1.0 - v.between_share),
                if v.between_share > 0.5 { "processes" } else { "iterations" }
            ),
            None => "– (needs ≥ 2 processes with ≥ 2 iterations)".into(),
        },
    );
    fact("lag-1 autocorrelation", opt_num(st.lag1_autocorr, 2));
    fact("better", better);
    out.push_str("</dl>");
    if st.unstable {
        out.push_str(
            "<p class=\"warn\">Unstable: severe outliers or strongly autocorrelated iterations; treat the interval with care.</p>",
        );
    }
    out.push_str("</details>");
}

fn failures(out: &mut String, run: &RunContext) {
    let _ = write!(
        out,
        "<section id=\"failures\"><h2>Failed runs ({})</h2>",
        run.failures.len() + run.failures_omitted
    );
    for f in &run.failures {
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
    if run.failures_omitted > 0 {
        let _ = write!(
            out,
            "<p class=\"muted\">{} more failed runs are in results.jsonl.</p>",
            run.failures_omitted
        );
    }
    out.push_str("</section>");
}

fn first_line(s: &str) -> &str {
    let line = s.lines().next().unwrap_or("");
    match line.char_indices().nth(160) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}

fn detect(out: &mut String, d: &DetectContext) {
    let r = &d.run;
    out.push_str("<section id=\"detect\" class=\"band\"><h2>Order dependence (detect)</h2><dl class=\"facts\">");
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
    out.push_str("<div class=\"chips\">");
    for word in ["fail", "victim", "brittle", "flaky", "pass"] {
        let n = d.entries.iter().filter(|x| x.verdict == word).count();
        let cls = if n == 0 { "zero".to_string() } else { format!("d-{word}") };
        let _ = write!(out, "<div class=\"chip c-{cls}\"><b>{n}</b><span>{word}</span></div>");
    }
    out.push_str("</div>");
    if d.edges.is_empty() {
        out.push_str("<p>No polluter, state-setter or cleaner found.</p>");
    } else {
        let _ = write!(
            out,
            "<h3>Who affects whom</h3><p class=\"muted\">Row: the scenario whose outcome depends on order. Column: the scenario \
             that, run before it in the same process, makes it fail (polluter), makes it pass (state-setter) or undoes a \
             polluter (cleaner).{}</p><div class=\"plots\">{}</div>",
            if d.edges.len() > plot::MATRIX_MAX_SIDE {
                format!(" At most {} rows and columns are drawn.", plot::MATRIX_MAX_SIDE)
            } else {
                String::new()
            },
            plot::matrix(&d.edges)
        );
    }
    out.push_str(
        "<h3>Verdicts</h3><div class=\"tools\"><input type=\"search\" placeholder=\"filter\" data-filter=\"detect-table\" aria-label=\"filter\"> \
         <span class=\"muted\" data-count-for=\"detect-table\"></span></div>\
         <table id=\"detect-table\" class=\"sortable\"><thead><tr><th>name</th><th>verdict</th><th>polluters</th><th>state-setters</th>\
         <th>cleaners</th><th>failure rate (95% CI)</th><th>hazards</th><th>value shifts</th><th>evidence</th></tr></thead><tbody>",
    );
    for x in &d.entries {
        let list = |v: &[String]| v.iter().map(|s| e(s).into_owned()).collect::<Vec<_>>().join("<br>");
        let rate = x.failure_rate.as_ref().map_or(String::new(), |f| {
            format!("{} [{}, {}] ({}/{})", pct(f.estimate), pct(f.low), pct(f.high), f.k, f.n)
        });
        let hazards = x
            .hazards
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
            .join("<br>");
        let shifts = x
            .value_shifts
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
            .join("<br>");
        let mut evidence = String::new();
        if !x.evidence.is_empty() {
            let _ = write!(evidence, "<details><summary>{} observations</summary><ul>", x.evidence.len());
            for ev in &x.evidence {
                let _ = write!(
                    evidence,
                    "<li><b>{}</b>{} → {}: {}{}</li>",
                    e(&ev.kind),
                    ev.seed.map_or(String::new(), |s| format!(" (seed {s})")),
                    e(&ev.outcome),
                    e(&ev.order.join(" → ")),
                    if ev.detail.is_empty() {
                        String::new()
                    } else {
                        format!(" <span class=\"muted\">{}</span>", e(&ev.detail))
                    }
                );
            }
            evidence.push_str("</ul></details>");
        }
        if x.verdict != "pass"
            && let Some(m) = x.evidence.iter().find_map(|ev| ev.message.as_deref())
        {
            let _ = write!(evidence, "<p class=\"label\">message</p><pre>{}</pre>", e(m));
        }
        if let Some(r) = &x.reproduce {
            let _ = write!(evidence, "<p class=\"label\">reproduce</p><pre><code>{}</code></pre>", e(r));
        }
        let where_ = match (&x.package, &x.binary) {
            (Some(p), Some(b)) => format!("<br><span class=\"muted\">{}/{}</span>", e(p), e(b)),
            (None, Some(b)) => format!("<br><span class=\"muted\">{}</span>", e(b)),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "<tr><td>{}{where_}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td data-v=\"{}\">{rate}</td><td>{hazards}</td><td>{shifts}</td><td>{evidence}</td></tr>",
            e(&x.name),
            badge(&x.verdict),
            list(&x.polluters),
            list(&x.state_setters),
            list(&x.cleaners),
            data_v(x.failure_rate.as_ref().map(|f| f.estimate)),
        );
    }
    out.push_str("</tbody></table></section>");
}

fn compare_rank(v: &str) -> u8 {
    match v {
        "regressed" => 0,
        "improved" => 1,
        "inconclusive" => 2,
        _ => 3,
    }
}

fn compare(out: &mut String, c: &CompareContext) {
    let r = &c.run;
    out.push_str("<section id=\"compare\" class=\"band\"><h2>Comparison (compare)</h2><dl class=\"facts\">");
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
    out.push_str("<div class=\"chips\">");
    for word in ["regressed", "improved", "inconclusive", "unchanged"] {
        let n = c.entries.iter().filter(|x| x.verdict == word).count();
        let cls = if n == 0 { "zero".to_string() } else { format!("k-{word}") };
        let _ = write!(out, "<div class=\"chip c-{cls}\"><b>{n}</b><span>{word}</span></div>");
    }
    out.push_str("</div>");
    let mut ordered: Vec<&CompareEntry> = c.entries.iter().collect();
    ordered.sort_by(|a, b| {
        let dist = |x: &CompareEntry| x.ratio.map_or(0.0, |r| (r.ln()).abs());
        compare_rank(&a.verdict)
            .cmp(&compare_rank(&b.verdict))
            .then(dist(b).total_cmp(&dist(a)))
    });
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
    out.push_str(
        "<h3>Entries</h3><div class=\"tools\"><input type=\"search\" placeholder=\"filter\" data-filter=\"compare-table\" aria-label=\"filter\"> \
         <span class=\"muted\" data-count-for=\"compare-table\"></span></div>\
         <table id=\"compare-table\" class=\"sortable\"><thead><tr><th>name</th><th>metric</th><th>change (95% CI)</th><th>p (adj.)</th>\
         <th>verdict</th><th>noise band</th><th>MDE</th><th>n base/cand (pairs)</th><th>runs needed</th><th>baseline</th><th>candidate</th></tr></thead><tbody>",
    );
    for x in ordered {
        let change = match (x.ratio, x.low, x.high) {
            (Some(r), Some(l), Some(h)) => format!(
                "{:+.2}% [{:+.2}%, {:+.2}%]",
                (r - 1.0) * 100.0,
                (l - 1.0) * 100.0,
                (h - 1.0) * 100.0
            ),
            (Some(r), _, _) => format!("{:+.2}%", (r - 1.0) * 100.0),
            _ => "–".into(),
        };
        let est = |v: &Option<super::inputs::Estimate>| {
            v.as_ref().map_or("–".into(), |v| match (v.low, v.high) {
                (Some(l), Some(h)) => format!("{} [{}, {}] {}", plot::tick(v.center), plot::tick(l), plot::tick(h), x.unit),
                _ => format!("{} {}", plot::tick(v.center), x.unit),
            })
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{} ({})</td><td data-v=\"{}\">{}</td><td>{}</td><td>{}</td>\
             <td>{}/{}{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            e(&x.name),
            e(&format!(
                "{}{}",
                x.metric,
                match x.better.as_str() {
                    "lower" => " ↓",
                    "higher" => " ↑",
                    _ => "",
                }
            )),
            data_v(x.ratio),
            e(&change),
            data_v(x.p_adjusted),
            opt_num(x.p_value, 4),
            opt_num(x.p_adjusted, 4),
            compare_rank(&x.verdict),
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

fn host(out: &mut String, h: &HostInfo) {
    out.push_str("<section id=\"host\"><h2>Host</h2><dl class=\"facts\">");
    let load = |l: Option<f64>| l.map_or("?".into(), |l| format!("{l:.2}"));
    let rows = [
        ("host", h.hostname.clone()),
        ("cpu", format!("{} ({} logical cores)", h.cpu, h.logical_cores)),
        ("os", format!("{} {} {}", h.os, h.kernel, h.arch)),
        ("rustc", h.rustc.clone()),
        ("git", h.git_commit.clone().unwrap_or_else(|| "unknown".into())),
        (
            "load (1 min)",
            format!("{} at start, {} at end", load(h.load_start), load(h.load_end)),
        ),
        (
            "gpu",
            if h.gpus.is_empty() {
                "none".into()
            } else {
                format!("{} (driver {})", h.gpus.join(", "), h.gpu_driver.as_deref().unwrap_or("?"))
            },
        ),
    ];
    for (k, v) in rows {
        let _ = write!(out, "<dt>{k}</dt><dd>{}</dd>", e(&v));
    }
    out.push_str("</dl></section>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_does_not_expand_placeholders_inside_values() {
        let out = fill("<b>{{body}}</b>{{script}}{{unknown}}", &[("body", "{{script}}"), ("script", "S")]);
        assert_eq!(out, "<b>{{script}}</b>S{{unknown}}");
    }

    #[test]
    fn shell_join_quotes_what_the_shell_would_split() {
        let args = ["run".to_string(), "--seed".into(), "7".into(), "a b".into(), "it's".into()];
        assert_eq!(shell_join(&args), r"run --seed 7 'a b' 'it'\''s'");
    }

    #[test]
    fn class_names_cannot_carry_markup() {
        assert_eq!(class_of("FAILED"), "failed");
        assert_eq!(class_of("x\" onclick=\"y"), "x--onclick--y");
        assert!(badge("<script>").contains("&lt;script&gt;"));
    }
}
