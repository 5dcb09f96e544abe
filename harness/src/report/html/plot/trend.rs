//! `trend`: one scenario's metric across the history: each run's processes as dots, the run's
//! level as a line with its 95% interval as a bar, and change points as vertical red lines.

use plotters::prelude::*;

use super::{BLUE, GREY, RED, padded_range, run_axes, svg};
use crate::history::Series;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 200;

/// The trend chart of `series`; `changes` are the 0-based history positions of the first run
/// after each change.
pub(crate) fn trend(series: &Series, changes: &[usize]) -> String {
    let pts = &series.points;
    let (lo, hi) = padded_range(
        pts.iter()
            .flat_map(|p| p.values.iter().copied().chain(p.ci.iter().flat_map(|c| [c.low, c.high]))),
    );
    let first = pts.first().map_or(0.0, |p| p.run as f64 + 1.0);
    let last = pts.last().map_or(1.0, |p| p.run as f64 + 1.0);
    let pad = ((last - first) * 0.03).max(0.5);
    svg(WIDTH, HEIGHT, |root| {
        root.fill(&WHITE)?;
        let mut chart = run_axes(root, first - pad..last + pad, (lo, hi), 8, "run in history", series.unit.as_str())?;
        chart.draw_series(changes.iter().map(|&c| {
            let x = c as f64 + 0.5;
            PathElement::new(vec![(x, lo), (x, hi)], RED.stroke_width(2))
        }))?;
        chart.draw_series(
            pts.iter()
                .filter_map(|p| p.ci.as_ref().map(|c| (p.run as f64 + 1.0, c)))
                .map(|(x, c)| PathElement::new(vec![(x, c.low), (x, c.high)], BLUE.mix(0.5).stroke_width(3))),
        )?;
        chart.draw_series(pts.iter().flat_map(|p| {
            p.values
                .iter()
                .map(move |&v| Circle::new((p.run as f64 + 1.0, v), 2, GREY.filled()))
        }))?;
        chart.draw_series(LineSeries::new(
            pts.iter().map(|p| (p.run as f64 + 1.0, p.level)),
            BLUE.stroke_width(2),
        ))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Point;

    #[test]
    fn dots_per_process_and_a_line_per_change() {
        let points = (0..4)
            .map(|run| Point {
                run,
                values: vec![1.0, 1.1, 0.9],
                level: 1.0,
                ci: None,
            })
            .collect();
        let s = Series {
            scenario: "<b>".into(),
            metric: "m".into(),
            source: None,
            unit: "ns".into(),
            points,
            log_scale: true,
        };
        let out = trend(&s, &[2]);
        assert_eq!(out.matches("<circle").count(), 12, "{out}");
        assert!(out.contains("run in history"));
        assert!(out.contains("#C53030") || out.contains("#c53030"), "a red change line: {out}");
    }
}
