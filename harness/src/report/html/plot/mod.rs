//! Inline SVG charts drawn with plotters' `SVGBackend::with_string`, one file per chart kind.
//!
//! Text reaches the SVG through plotters, which escapes `<`, `>`, `&` and quotes in text and
//! attributes (`plotters-svg` `escape_and_push`; checked by `plotters_escapes_text` below). No
//! font files are read: the SVG names a font family and the browser picks the font.

mod distribution;
#[cfg(feature = "cli")]
mod forest;
#[cfg(feature = "cli")]
mod matrix;
#[cfg(feature = "cli")]
mod range;
mod sequence;
#[cfg(feature = "history")]
mod trend;

pub(crate) use distribution::distribution;
#[cfg(feature = "cli")]
pub(crate) use forest::forest;
#[cfg(feature = "cli")]
pub(crate) use matrix::{MAX_SIDE as MATRIX_MAX_SIDE, matrix};
#[cfg(feature = "cli")]
pub(crate) use range::commit_range;
pub(crate) use sequence::sequence;
#[cfg(feature = "history")]
pub(crate) use trend::trend;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::escape::escape;

/// The report's palette (also in style.css), so charts and badges agree.
pub(crate) const INK: RGBColor = RGBColor(0x33, 0x3a, 0x44);
pub(crate) const BLUE: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);
pub(crate) const RED: RGBColor = RGBColor(0xc5, 0x30, 0x30);
pub(crate) const ORANGE: RGBColor = RGBColor(0xdd, 0x6b, 0x20);
#[cfg(feature = "cli")]
pub(crate) const GREEN: RGBColor = RGBColor(0x2f, 0x85, 0x5a);
pub(crate) const GREY: RGBColor = RGBColor(0x8a, 0x94, 0xa3);
pub(crate) const FONT: &str = "sans-serif";
/// Label size handed to plotters; its SVG backend writes `size / 1.24` px, so this is ~12 px.
pub(crate) const LABEL_SIZE: f64 = 15.0;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// A chart of values against run numbers, as the run-sequence and history-trend plots draw it.
type RunChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>;

/// The axes and light grid of a value-against-run chart: `x` runs, `lo..hi` values, `x_labels`
/// ticks on x, axis titles `x_desc` and `y_desc`.
fn run_axes<'a, 'b>(
    root: &'a Area<'b>,
    x: std::ops::Range<f64>,
    (lo, hi): (f64, f64),
    x_labels: usize,
    x_desc: &str,
    y_desc: &str,
) -> Result<RunChart<'a, 'b>, Box<dyn std::error::Error>> {
    let mut chart = ChartBuilder::on(root)
        .margin(6)
        .margin_right(14)
        .x_label_area_size(34)
        .y_label_area_size(52)
        .build_cartesian_2d(x, lo..hi)?;
    chart
        .configure_mesh()
        .x_labels(x_labels)
        .y_labels(4)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| tick_in(*v, lo, hi))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
        .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
        .max_light_lines(0)
        .bold_line_style(GREY.mix(0.25))
        .draw()?;
    Ok(chart)
}

/// Draws onto a fresh `width` x `height` SVG; a drawing error becomes a visible note instead of
/// a missing report.
pub(crate) fn svg(width: u32, height: u32, draw: impl FnOnce(&Area<'_>) -> DrawResult) -> String {
    let mut buf = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut buf, (width, height)).into_drawing_area();
        draw(&root).and_then(|()| root.present().map_err(|e| e.to_string().into()))
    };
    match result {
        // The viewBox plotters writes lets CSS scale the chart to its box. `opacity="1"` is
        // the default on every element plotters writes; dropping it saves a fifth of the bytes.
        Ok(()) => buf.replace(" opacity=\"1\"", ""),
        Err(e) => format!("<p class=\"muted\">chart not drawn: {}</p>", escape(&e.to_string())),
    }
}

/// A padded `[low, high]` axis range that contains every value, never empty.
pub(crate) fn padded_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let span = if hi > lo { hi - lo } else { lo.abs().max(1.0) * 0.02 };
    (lo - span * 0.08, hi + span * 0.08)
}

/// A tick label for an axis spanning `lo..hi`: like [`tick`], with enough decimals that ticks
/// about a sixth of the span apart never print the same (a tight 100.00-100.03 axis).
pub(crate) fn tick_in(v: f64, lo: f64, hi: f64) -> String {
    let short = tick(v);
    let step = (hi - lo).abs() / 6.0;
    if step <= 0.0 || !step.is_finite() || v.abs() >= 1e4 {
        return short;
    }
    let needed = (-step.log10().floor()).clamp(0.0, 6.0) as usize;
    let have = short.split_once('.').map_or(0, |(_, d)| d.len());
    if needed > have { format!("{v:.needed$}") } else { short }
}

/// A short tick label: three significant digits, SI suffix for large or small magnitudes.
pub(crate) fn tick(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = scaled.abs();
    let digits = if s == 0.0 || s >= 100.0 {
        0
    } else if s >= 10.0 {
        1
    } else if s >= 1.0 {
        2
    } else {
        3
    };
    format!("{scaled:.digits$}{suffix}")
}

/// Truncates a label to `max` characters with an ellipsis (the full name is in the tables).
#[cfg(feature = "cli")]
pub(crate) fn short_label(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plotters_escapes_text() {
        let out = svg(200, 100, |root| {
            root.fill(&WHITE)?;
            root.draw(&Text::new(
                "<script>alert(1)</script> \"q\" ]]>",
                (5, 5),
                (FONT, LABEL_SIZE).into_font(),
            ))?;
            Ok(())
        });
        assert!(out.starts_with("<svg"), "{out}");
        assert!(!out.contains("<script"), "{out}");
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot; ]]&gt;"), "{out}");
    }

    #[test]
    fn ranges_are_padded_and_never_empty() {
        let (lo, hi) = padded_range([5.0, 5.0]);
        assert!(lo < 5.0 && hi > 5.0);
        let (lo, hi) = padded_range([1.0, 3.0, f64::NAN]);
        assert!(lo < 1.0 && hi > 3.0 && hi < 4.0);
        assert_eq!(padded_range([]), (0.0, 1.0));
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(1234567.0), "1.23M");
        assert_eq!(tick(15300.0), "15.3k");
        assert_eq!(tick(0.01234), "0.012");
        assert_eq!(tick(250.0), "250");
        assert_eq!(tick_in(100.01, 100.0, 100.06), "100.01");
        assert_eq!(tick_in(250.0, 0.0, 600.0), "250");
    }

    #[test]
    fn labels_are_truncated_by_characters() {
        assert_eq!(short_label("abcdef", 4), "abc…");
        assert_eq!(short_label("日本語", 5), "日本語");
    }
}
