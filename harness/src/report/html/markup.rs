//! Small HTML pieces every section uses: badges, the reproduce line, number formats. Text from
//! a scenario or a results file passes through `escape` here as everywhere.

use std::fmt::Write;

use super::escape::escape as e;
use crate::model::Verdict;

/// A CSS class suffix from a verdict word: lowercase ASCII letters and dashes only.
pub(crate) fn class_of(word: &str) -> String {
    word.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect()
}

pub(crate) fn badge(word: &str) -> String {
    format!("<span class=\"badge b-{}\">{}</span>", class_of(word), e(word))
}

pub(crate) fn verdict_badge(v: Verdict) -> String {
    badge(v.as_str())
}

/// The labelled, shell-quoted command that reproduces a run.
pub(crate) fn reproduce(out: &mut String, label: &str, command: &[String]) {
    let _ = write!(
        out,
        "<p class=\"label\">{}</p><pre class=\"cmd\"><code>{}</code></pre>",
        e(label),
        e(&crate::reproduce::shell_line(command))
    );
}

pub(crate) fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

pub(crate) fn opt_num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{v:.digits$}"))
}

/// A sort key for a table cell: the number, or empty when there is none.
pub(crate) fn data_v(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite()).map_or_else(String::new, |v| v.to_string())
}

/// One count chip: `cls` is the class suffix used when `n` is non-zero.
pub(crate) fn chip(out: &mut String, n: usize, word: &str, cls: &str) {
    let cls = if n == 0 { "zero" } else { cls };
    let _ = write!(out, "<div class=\"chip c-{cls}\"><b>{n}</b><span>{word}</span></div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_cannot_carry_markup() {
        assert_eq!(class_of("FAILED"), "failed");
        assert_eq!(class_of("x\" onclick=\"y"), "x--onclick--y");
        assert!(badge("<script>").contains("&lt;script&gt;"));
    }
}
