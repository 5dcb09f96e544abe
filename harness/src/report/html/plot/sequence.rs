//! `sequence`: a measurement's per-process values against their run index, so warm-up (early
//! processes slower) and drift (a trend across the run) show as shapes.

use plotters::prelude::*;

use super::{BLUE, GREY, ORANGE, RED, padded_range, run_axes, svg};
use crate::report::html::context::MeasurementCard;
use crate::stats::Severity;

const WIDTH: u32 = 460;
const HEIGHT: u32 = 170;

/// The run-sequence chart of one card, as an SVG string.
pub(crate) fn sequence(card: &MeasurementCard) -> String {
    let st = &card.stats;
    let ci = st.ci.as_ref();
    let (lo, hi) = padded_range(card.values.iter().map(|v| v.1).chain(ci.map(|c| c.low)).chain(ci.map(|c| c.high)));
    let first = card.values.first().map_or(0.0, |v| v.0 as f64);
    let last = card.values.last().map_or(1.0, |v| v.0 as f64);
    let pad = ((last - first) * 0.04).max(0.5);
    svg(WIDTH, HEIGHT, |root| {
        root.fill(&WHITE)?;
        let mut chart = run_axes(root, first - pad..last + pad, (lo, hi), 6, "run index", card.unit.symbol())?;
        if let Some(c) = ci {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(first - pad, c.low), (last + pad, c.high)],
                BLUE.mix(0.12).filled(),
            )))?;
        }
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(first - pad, st.center_value), (last + pad, st.center_value)],
            BLUE.mix(0.6).stroke_width(1),
        )))?;
        chart.draw_series(LineSeries::new(
            card.values.iter().map(|&(i, v)| (i as f64, v)),
            GREY.stroke_width(1),
        ))?;
        chart.draw_series(card.values.iter().enumerate().map(|(k, &(i, v))| {
            let colour = match st.outliers.iter().find(|o| o.index == k).map(|o| o.severity) {
                Some(Severity::Severe) => RED,
                Some(Severity::Mild) => ORANGE,
                None => BLUE,
            };
            Circle::new((i as f64, v), 3, colour.filled())
        }))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, Unit, Verdict};

    #[test]
    fn one_point_per_process_joined_by_a_line() {
        let values = [100.0, 101.0, 99.0, 100.5, 99.5];
        let card = MeasurementCard {
            id: "m0".into(),
            scenario: "s".into(),
            metric: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            better: Better::Lower,
            verdict: Verdict::Measured,
            stats: crate::stats::summarize(&values, None, true, 0.95).unwrap(),
            values: values.iter().copied().enumerate().map(|(i, v)| (i * 3, v)).collect(),
            per_call: None,
            slowed: None,
        };
        let out = sequence(&card);
        assert_eq!(out.matches("<circle").count(), 5);
        assert!(out.contains("<polyline"), "{out}");
        assert!(out.contains("run index"));
    }
}
