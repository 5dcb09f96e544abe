//! `forest`: compare's candidate/baseline ratios, one row each, with their 95% intervals drawn
//! over each entry's noise band and coloured by verdict.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{FONT, GREEN, GREY, INK, LABEL_SIZE, ORANGE, RED, padded_range, short_label, svg};
use crate::report::html::inputs::CompareEntry;

const WIDTH: u32 = 1000;
const LABEL_WIDTH: u32 = 300;
const ROW: u32 = 28;

/// The colour of a compare verdict (shared with the table badges in style.css).
pub(crate) fn verdict_colour(verdict: &str) -> RGBColor {
    match verdict {
        "regressed" => RED,
        "improved" => GREEN,
        "inconclusive" => ORANGE,
        _ => GREY,
    }
}

/// The forest plot of `entries` (already chosen and ordered), as an SVG string.
pub(crate) fn forest(entries: &[CompareEntry]) -> String {
    let n = entries.len().max(1);
    let height = 56 + ROW * n as u32;
    let bands = entries.iter().filter_map(|e| e.noise_band).flat_map(|b| [1.0 - b, 1.0 + b]);
    let ends = entries.iter().flat_map(|e| [e.ratio, e.low, e.high]).flatten();
    let (lo, hi) = padded_range(ends.chain(bands).chain([1.0]));
    let y_of = |i: usize| (n - 1 - i) as f64;
    svg(WIDTH, height, |root| {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
            .margin(8)
            .margin_right(20)
            .x_label_area_size(34)
            .y_label_area_size(LABEL_WIDTH)
            .build_cartesian_2d(lo..hi, -0.6..(n as f64 - 0.4))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(8)
            .x_label_formatter(&|v| format!("{:+.1}%", (v - 1.0) * 100.0))
            .x_desc("candidate vs baseline (ratio - 1)")
            .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .max_light_lines(0)
            .bold_line_style(GREY.mix(0.2))
            .draw()?;
        for (i, e) in entries.iter().enumerate() {
            let y = y_of(i);
            if let Some(b) = e.noise_band {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(1.0 - b, y - 0.42), (1.0 + b, y + 0.42)],
                    GREY.mix(0.18).filled(),
                )))?;
            }
        }
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(1.0, -0.6), (1.0, n as f64 - 0.4)],
            INK.stroke_width(1),
        )))?;
        let label = TextStyle::from((FONT, LABEL_SIZE).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, e) in entries.iter().enumerate() {
            let y = y_of(i);
            let colour = verdict_colour(&e.verdict);
            if let (Some(l), Some(h)) = (e.low, e.high) {
                chart.draw_series(std::iter::once(PathElement::new(vec![(l, y), (h, y)], colour.stroke_width(2))))?;
            }
            if let Some(r) = e.ratio {
                chart.draw_series(std::iter::once(Circle::new((r, y), 4, colour.filled())))?;
            }
            let (px, py) = chart.backend_coord(&(lo, y));
            let text = short_label(&format!("{} · {}", e.name, e.metric), 44);
            root.draw(&Text::new(text, (px - 8, py), label.clone()))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_marker_and_label_per_entry_with_escaped_names() {
        let entries: Vec<CompareEntry> = serde_json::from_str(
            r#"[{"name":"<script>alert(1)</script>","metric":"latency_ns","ratio":1.05,"low":1.02,"high":1.08,"verdict":"regressed","noise_band":0.02},
                {"name":"b","metric":"latency_ns","ratio":0.99,"low":0.97,"high":1.01,"verdict":"unchanged","noise_band":null}]"#,
        )
        .unwrap();
        let out = forest(&entries);
        assert_eq!(out.matches("<circle").count(), 2);
        assert!(!out.contains("<script"), "{out}");
        assert!(out.contains("&lt;script&gt;"));
        assert!(out.contains("+5.0%") || out.contains("%"), "x ticks are percent changes");
    }
}
