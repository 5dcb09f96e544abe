//! `render`: a `ReportContext` to one self-contained HTML page: the template with inline CSS and
//! script, a navigation bar, and each present section in order (see `section/`).

use super::context::ReportContext;
use super::section;

pub(crate) const TEMPLATE: &str = include_str!("template.html");
pub(crate) const STYLE: &str = include_str!("style.css");
pub(crate) const SCRIPT: &str = include_str!("script.js");

/// The whole page.
pub(crate) fn render(ctx: &ReportContext) -> String {
    let mut body = String::with_capacity(64 * 1024);
    let mut nav = Vec::new();
    if let Some(run) = &ctx.run {
        section::overview(&mut body, run);
        section::summary(&mut body, run);
        nav.extend([("overview", "Overview"), ("summary", "Summary")]);
        if !run.gpu_notes.is_empty() {
            section::gpu_notes(&mut body, &run.gpu_notes);
            nav.push(("gpu-samples", "GPU samples"));
        }
        if !run.leaks.is_empty() {
            section::leaks(&mut body, &run.leaks);
            nav.push(("leaks", "Leaks"));
        }
        if !run.cards.is_empty() {
            section::measurements(&mut body, &run.cards);
            nav.push(("measurements", "Measurements"));
        }
        if !run.failures.is_empty() {
            section::failures(&mut body, run);
            nav.push(("failures", "Failures"));
        }
    }
    #[cfg(feature = "cli")]
    if let Some(d) = &ctx.detect {
        section::detect(&mut body, d);
        nav.push(("detect", "Detect"));
    }
    #[cfg(feature = "cli")]
    if let Some(c) = &ctx.compare {
        section::compare(&mut body, c);
        nav.push(("compare", "Compare"));
    }
    if let Some(h) = ctx.host() {
        section::host(&mut body, h);
        nav.push(("host", "Host"));
    }
    let nav: String = nav.iter().map(|(id, label)| format!("<a href=\"#{id}\">{label}</a>")).collect();
    fill(TEMPLATE, &[("style", STYLE), ("script", SCRIPT), ("nav", &nav), ("body", &body)])
}

/// Replaces `{{key}}` in `template` in one pass, so a value that itself contains `{{key}}`
/// (a scenario may be named anything) is never expanded.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_does_not_expand_placeholders_inside_values() {
        let out = fill("<b>{{body}}</b>{{script}}{{unknown}}", &[("body", "{{script}}"), ("script", "S")]);
        assert_eq!(out, "<b>{{script}}</b>S{{unknown}}");
    }
}
