//! `render`: a bisect's index.html: the conclusion, the metric along the commit range (each
//! measured commit with its interval), the commits with their probabilities, the steps and the
//! reproduce line. Everything from the repository or the scenario (subjects, names, notes) goes
//! through the report's one `escape()`.

use std::fmt::Write;

use crate::model::{BisectFile, StepVerdict};
use crate::report::html::escape as e;
use crate::report::html::page::{SCRIPT, STYLE, TEMPLATE, fill};
use crate::report::html::plot::commit_range;

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.digits$}"))
}

/// The whole page.
pub(crate) fn render(f: &BisectFile) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        "<section id=\"bisect\"><h2>Bisect: {} <span class=\"muted\">{}</span></h2><p><strong>{}</strong></p>\
         <p class=\"muted\">good <code>{}</code> ({}) to bad <code>{}</code> ({}); method {}; {} steps; builds: {} built, {} cached, {} failed</p>",
        e(&f.scenario),
        e(&f.metric),
        e(&f.message),
        short(&f.good),
        e(&f.good_ref),
        short(&f.bad),
        e(&f.bad_ref),
        e(&f.method),
        f.steps.len(),
        f.builds.built,
        f.builds.cached,
        f.builds.failed
    );
    if let Some(c) = &f.change {
        let _ = write!(
            body,
            "<p>bad/good = {:.4} [{:.4}, {:.4}], noise floor ±{:.2}%</p>",
            c.ratio,
            c.low,
            c.high,
            c.noise_floor * 100.0
        );
    }
    for n in &f.notes {
        let _ = write!(body, "<p class=\"muted\">Note: {}</p>", e(n));
    }
    body.push_str("<div class=\"card\">");
    body.push_str(&commit_range(f));
    body.push_str(
        "<p class=\"muted\">Each dot is one step's value of the commit, the bar its 95% interval; red: moved more than half way to \
         bad, green: not; the red line is before the likeliest first bad commit.</p></div>",
    );
    let first_bad = f.first_bad.as_deref().map_or("", short);
    body.push_str(&crate::explain::html_section(
        f.explain
            .as_deref()
            .map(|x| (format!("{} {} at {first_bad}", f.scenario, f.metric), x)),
    ));
    commits_table(&mut body, f);
    steps_table(&mut body, f);
    let _ = write!(
        body,
        "<p class=\"label\">reproduce</p><pre class=\"cmd\"><code>{}</code></pre></section>",
        e(&crate::reproduce::shell_line(&f.reproduce))
    );
    fill(
        TEMPLATE,
        &[
            ("style", STYLE),
            ("script", SCRIPT),
            ("nav", "<a href=\"#bisect\">Bisect</a>"),
            ("body", &body),
        ],
    )
}

fn commits_table(body: &mut String, f: &BisectFile) {
    body.push_str(
        "<h3>Commits</h3><table><thead><tr><th>#</th><th>commit</th><th>subject</th><th>P(first bad)</th><th>skipped</th></tr></thead><tbody>",
    );
    for c in &f.commits {
        let role = match c.index {
            0 => " (good)",
            i if i + 1 == f.commits.len() => " (bad)",
            _ => "",
        };
        let _ = write!(
            body,
            "<tr><td>{}{role}</td><td><code>{}</code></td><td>{}</td><td>{:.3}</td><td>{}</td></tr>",
            c.index,
            short(&c.commit),
            e(&c.subject),
            c.probability,
            e(c.skipped.as_deref().unwrap_or(""))
        );
    }
    body.push_str("</tbody></table>");
}

fn steps_table(body: &mut String, f: &BisectFile) {
    body.push_str(
        "<h3>Steps</h3><table><thead><tr><th>step</th><th>commit</th><th>value</th><th>95% interval</th><th>ratio to good</th>\
         <th>moved</th><th>verdict</th><th>P(verdict)</th><th>processes</th><th>note</th></tr></thead><tbody>",
    );
    for (i, s) in f.steps.iter().enumerate() {
        let interval = s.interval.map_or("–".into(), |[a, b]| format!("[{a:.4}, {b:.4}]"));
        let verdict = match s.verdict {
            StepVerdict::Good => "good",
            StepVerdict::Bad => "bad",
            StepVerdict::Skipped => "skipped",
        };
        let _ = write!(
            body,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{interval}</td><td>{}</td><td>{}</td><td>{verdict}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            i + 1,
            short(&s.commit),
            num(s.value, 4),
            num(s.ratio_to_good, 4),
            num(s.moved, 2),
            num(s.verdict_probability, 3),
            s.processes,
            e(s.note.as_deref().unwrap_or(""))
        );
    }
    body.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BisectStep, Candidate, RangeCommit};

    #[test]
    fn everything_from_the_repository_and_scenario_is_escaped_and_each_step_is_drawn() {
        let hostile = "<script>alert(1)</script>";
        let commit = |i: usize| RangeCommit {
            index: i,
            commit: format!("{i:040}"),
            subject: format!("{hostile} {i}"),
            probability: if i == 2 { 0.97 } else { 0.01 },
            skipped: (i == 1).then(|| "does not build: </td><b>".to_owned()),
        };
        let step = |i: usize, v: f64, verdict| BisectStep {
            commit: format!("{i:040}"),
            index: i,
            value: Some(v),
            interval: Some([v * 0.99, v * 1.01]),
            verdict,
            ratio_to_good: Some(v / 100.0),
            ratio_interval: None,
            moved: Some(0.0),
            verdict_probability: Some(0.99),
            processes: 40,
            note: Some(hostile.into()),
        };
        let mut f: BisectFile = serde_json::from_value(serde_json::json!({
            "format_version": 1, "first_bad": null, "confidence": 0.97, "metric": "m\"'<", "unit": "ns", "steps": [],
            "good": "a", "bad": "b", "good_ref": hostile, "bad_ref": "HEAD", "scenario": hostile, "method": "probabilistic",
            "target_confidence": 0.95, "best": null, "runner_up": null, "change": null, "commits": [], "message": hostile,
            "notes": [hostile], "builds": {"built": 1, "cached": 2, "failed": 1}, "seed": 1, "reproduce": ["harness", hostile],
            "finished": true, "elapsed_s": 1.0, "host": crate::host::collect(),
        }))
        .unwrap();
        f.commits = (0..4).map(commit).collect();
        f.steps = vec![step(2, 110.0, StepVerdict::Bad), step(1, 100.0, StepVerdict::Good)];
        f.best = Some(Candidate {
            commit: f.commits[2].commit.clone(),
            commits: vec![f.commits[2].commit.clone()],
            probability: 0.97,
        });
        let html = render(&f);
        assert!(!html.contains(hostile) && !html.contains("</td><b>"), "unescaped");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; 2"));
        assert_eq!(html.matches("<circle").count(), 2, "one dot per measured step");
        assert!(html.contains("0.970") && html.contains("(good)") && html.contains("(bad)"));
    }
}
