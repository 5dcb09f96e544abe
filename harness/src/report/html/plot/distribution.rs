//! `distribution`: the per-process values of one measurement as a jittered strip over a box
//! plot, with the centre and its 95% interval shaded and Tukey outliers in colour.

use plotters::prelude::*;

use super::{BLUE, FONT, GREY, INK, LABEL_SIZE, ORANGE, RED, padded_range, svg, tick_in};
use crate::report::html::context::MeasurementCard;
use crate::stats::Severity;
use crate::stats::sample::quantile_sorted;

const WIDTH: u32 = 460;
const HEIGHT: u32 = 170;

/// The distribution chart of one card, as an SVG string.
pub(crate) fn distribution(card: &MeasurementCard) -> String {
    let values: Vec<f64> = card.values.iter().map(|v| v.1).collect();
    let st = &card.stats;
    let ci = st.ci.as_ref();
    let (lo, hi) = padded_range(values.iter().copied().chain(ci.map(|c| c.low)).chain(ci.map(|c| c.high)));
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    svg(WIDTH, HEIGHT, |root| {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
            .margin(6)
            .margin_right(14)
            .x_label_area_size(34)
            .build_cartesian_2d(lo..hi, 0.0..1.0)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_labels(6)
            .x_label_formatter(&|v| tick_in(*v, lo, hi))
            .x_desc(format!("{} per process ({})", card.metric, card.unit.symbol()))
            .label_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .max_light_lines(0)
            .bold_line_style(GREY.mix(0.25))
            .draw()?;
        // The centre's 95% interval as a band, the centre as a line.
        if let Some(c) = ci {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(c.low, 0.0), (c.high, 1.0)],
                BLUE.mix(0.12).filled(),
            )))?;
        }
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(st.center_value, 0.0), (st.center_value, 1.0)],
            BLUE.stroke_width(2),
        )))?;
        // Box: quartiles, median, whiskers to the extreme values inside the fences.
        if sorted.len() >= 4 {
            let (q1, med, q3) = (
                quantile_sorted(&sorted, 0.25),
                quantile_sorted(&sorted, 0.5),
                quantile_sorted(&sorted, 0.75),
            );
            let inside: Vec<f64> = sorted
                .iter()
                .copied()
                .enumerate()
                .filter(|(i, _)| !st.outliers.iter().any(|o| o.value == sorted[*i]))
                .map(|(_, v)| v)
                .collect();
            let (wl, wh) = (inside.first().copied().unwrap_or(q1), inside.last().copied().unwrap_or(q3));
            let (y0, y1, ym) = (0.66, 0.9, 0.78);
            chart.draw_series(std::iter::once(Rectangle::new([(q1, y0), (q3, y1)], INK.stroke_width(1))))?;
            for seg in [vec![(med, y0), (med, y1)], vec![(wl, ym), (q1, ym)], vec![(q3, ym), (wh, ym)]] {
                chart.draw_series(std::iter::once(PathElement::new(seg, INK.stroke_width(1))))?;
            }
        }
        // Strip: every process, jittered deterministically so re-renders are identical.
        chart.draw_series(card.values.iter().enumerate().map(|(i, &(_, v))| {
            let y = 0.12 + 0.4 * jitter(i);
            let colour = match st.outliers.iter().find(|o| o.index == i).map(|o| o.severity) {
                Some(Severity::Severe) => RED,
                Some(Severity::Mild) => ORANGE,
                None => BLUE,
            };
            Circle::new((v, y), 3, colour.mix(0.85).filled())
        }))?;
        Ok(())
    })
}

/// A low-discrepancy offset in [0, 1) (golden-ratio sequence), so points spread evenly.
fn jitter(i: usize) -> f64 {
    (i as f64 * 0.618_033_988_75).fract()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, Unit, Verdict};

    pub(crate) fn card(values: &[f64]) -> MeasurementCard {
        MeasurementCard {
            id: "m0".into(),
            scenario: "<b>x</b>".into(),
            metric: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            better: Better::Lower,
            verdict: Verdict::Measured,
            stats: crate::stats::summarize(values, None, true, 0.95).unwrap(),
            values: values.iter().copied().enumerate().map(|(i, v)| (i * 2, v)).collect(),
            per_call: None,
            slowed: None,
        }
    }

    #[test]
    fn draws_one_point_per_process_and_marks_the_outlier() {
        let c = card(&[100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 400.0]);
        assert!(!c.stats.outliers.is_empty());
        let out = distribution(&c);
        assert!(out.starts_with("<svg"), "{out}");
        assert_eq!(out.matches("<circle").count(), 7);
        assert!(out.contains("#C53030") || out.contains("#c53030"), "severe outlier in red");
    }

    #[test]
    fn one_value_still_draws() {
        let out = distribution(&card(&[42.0]));
        assert_eq!(out.matches("<circle").count(), 1);
    }
}
