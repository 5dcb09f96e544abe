//! GPU samples discarded as throttled, one line per series, warnings (mostly throttled) marked.

use super::super::escape::escape as e;
use crate::model::ThrottleNote;

/// The `gpu-samples` section; the caller leaves it out when there is no note.
pub(crate) fn gpu_notes(out: &mut String, notes: &[ThrottleNote]) {
    out.push_str("<section id=\"gpu-samples\"><h2>GPU samples discarded as throttled</h2><ul>");
    for n in notes {
        let class = if n.is_warning() { " class=\"warn\"" } else { "" };
        out.push_str(&format!("<li{class}>{}</li>", e(&n.text())));
    }
    out.push_str("</ul></section>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_names_are_escaped_and_warnings_marked() {
        let note = |discarded: f64| ThrottleNote {
            scenario: "<script>alert(1)</script>".into(),
            series: "cold",
            discarded,
            samples: 10.0,
            threshold_mhz: None,
        };
        let mut out = String::new();
        gpu_notes(&mut out, &[note(9.0), note(1.0)]);
        assert!(!out.contains("<script>"), "{out}");
        assert!(out.contains("&lt;script&gt;"));
        assert_eq!(out.matches("class=\"warn\"").count(), 1, "{out}");
        assert!(out.contains("ran below the throttle threshold"), "{out}");
    }
}
