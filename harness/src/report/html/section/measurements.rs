//! The measurement cards: per scenario x metric, the distribution and run-order plots and the
//! numbers behind them (centre and interval, median, spread, outliers, variance split).

use std::fmt::Write;

use super::super::context::MeasurementCard;
use super::super::escape::escape as e;
use super::super::markup::{opt_num, pct, verdict_badge};
use super::super::plot;
use crate::report::format_value;
use crate::stats::{Center, Severity};

/// Cards drawn open; later ones start collapsed so a 1000-scenario page stays quick to lay out.
const OPEN_CARDS: usize = 24;

/// The `measurements` section.
pub(crate) fn measurements(out: &mut String, cards: &[MeasurementCard]) {
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
    let centre = c.per_call.clone().unwrap_or_else(|| format_value(st.center_value, &c.unit));
    let ci = match (&st.ci, st.exact) {
        _ if c.per_call.is_some() => "per call, over every counted call".to_string(),
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
    numbers(out, c, format!("{centre}, 95% CI {ci}"));
    out.push_str("</dl>");
    if st.unstable {
        let why = st
            .unstable_reason
            .as_deref()
            .unwrap_or("severe outliers or strongly autocorrelated iterations");
        out.push_str(&format!(
            "<p class=\"warn\">Unstable: {}; treat the interval with care.</p>",
            e(why)
        ));
    }
    if let Some(slowed) = &c.slowed {
        let _ = write!(out, "<p class=\"muted\">Slowed machine: {}.</p>", e(slowed));
    }
    out.push_str("</details>");
}

/// The card's facts, `headline` being the centre with its interval.
fn numbers(out: &mut String, c: &MeasurementCard, headline: String) {
    let st = &c.stats;
    let v = |x: f64| format_value(x, &c.unit);
    let center_name = match st.center {
        Center::GeometricMean => "geometric mean",
        Center::ArithmeticMean => "mean",
    };
    let mut fact = |k: &str, v: String| {
        let _ = write!(out, "<dt>{k}</dt><dd>{}</dd>", e(&v));
    };
    fact("n (processes)", st.n.to_string());
    fact(center_name, headline);
    fact(
        "median",
        match &st.median_ci {
            Some(i) => format!("{} [{}, {}]", v(st.median), v(i.low), v(i.high)),
            None => v(st.median),
        },
    );
    fact("mean ± sd", format!("{} ± {}", v(st.mean), v(st.std_dev)));
    fact("CV", pct(st.cv));
    fact("min – max", format!("{} – {}", v(st.min), v(st.max)));
    let severe = st.outliers.iter().filter(|o| o.severity == Severity::Severe).count();
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
            Some(s) => format!(
                "{} between processes, {} within (more {} would narrow the interval)",
                pct(s.between_share),
                pct(1.0 - s.between_share),
                if s.between_share > 0.5 { "processes" } else { "iterations" }
            ),
            None => "– (needs ≥ 2 processes with ≥ 2 iterations)".into(),
        },
    );
    fact("lag-1 autocorrelation", opt_num(st.lag1_autocorr, 2));
    fact("better", format!("{:?}", c.better).to_lowercase());
}
