//! `commit_range`: a bisect's metric along its commit range: each measured step's value with its
//! 95% interval (green good, red bad), the ends' positions, and a red line before the named
//! (or likeliest) first bad commit.

use plotters::prelude::*;

use super::{GREEN, GREY, RED, padded_range, run_axes, svg};
use crate::model::{BisectFile, StepVerdict};

const WIDTH: u32 = 640;
const HEIGHT: u32 = 220;

/// The chart of `f`'s steps over commit positions `0..=last`.
pub(crate) fn commit_range(f: &BisectFile) -> String {
    let last = f.commits.len().saturating_sub(1).max(1) as f64;
    let measured: Vec<(f64, f64, [f64; 2], bool)> = f
        .steps
        .iter()
        .filter_map(|s| {
            let v = s.value?;
            let ci = s.interval.unwrap_or([v, v]);
            Some((s.index as f64, v, ci, s.verdict == StepVerdict::Bad))
        })
        .collect();
    let (lo, hi) = padded_range(measured.iter().flat_map(|&(_, v, [a, b], _)| [v, a, b]));
    let unit = f.unit.as_ref().map_or(String::new(), |u| u.symbol().to_owned());
    let line = f
        .best
        .as_ref()
        .and_then(|b| f.commits.iter().position(|c| c.commit == b.commit))
        .map(|i| i as f64 - 0.5);
    svg(WIDTH, HEIGHT, |root| {
        root.fill(&WHITE)?;
        let mut chart = run_axes(
            root,
            -0.5..last + 0.5,
            (lo, hi),
            10,
            "commit in range (0 good)",
            &format!("{} {unit}", f.metric),
        )?;
        chart.draw_series(line.map(|x| PathElement::new(vec![(x, lo), (x, hi)], RED.stroke_width(2))))?;
        chart.draw_series(
            measured
                .iter()
                .map(|&(x, _, [a, b], bad)| PathElement::new(vec![(x, a), (x, b)], if bad { RED } else { GREEN }.mix(0.6).stroke_width(3))),
        )?;
        chart.draw_series(
            measured
                .iter()
                .map(|&(x, v, _, bad)| Circle::new((x, v), 4, if bad { RED } else { GREEN }.filled())),
        )?;
        chart.draw_series([0.0, last].map(|x| PathElement::new(vec![(x, lo), (x, lo + (hi - lo) * 0.04)], GREY.stroke_width(2))))?;
        Ok(())
    })
}
