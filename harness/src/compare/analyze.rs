//! `analyze`: per-metric values of both sides into [`CompareEntry`] rows: effect, interval,
//! Benjamini-Hochberg across every row, noise band and verdict. Pure; the pipeline and the
//! simulation tests both go through it.

use std::collections::{BTreeMap, BTreeSet};

use super::effect::{Effect, paired, unpaired};
use super::verdict::{decide, noise_band};
use crate::model::{Better, CompareEntry, CompareVerdict, SideStats, Unit};
use crate::stats::{benjamini_hochberg, summarize};

/// One scenario x metric as measured on both sides.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MetricInput {
    pub name: String,
    pub metric: String,
    pub unit: Unit,
    pub better: Better,
    /// Baseline values. Paired: `baseline[i]` ran next to `candidate[i]`.
    pub baseline: Vec<f64>,
    /// Candidate values.
    pub candidate: Vec<f64>,
    /// Whether the values are complete A/B pairs (interleaved design).
    pub paired: bool,
    /// Runs of each side that passed (paired: may exceed the pairs when the other side failed).
    pub n_baseline: usize,
    pub n_candidate: usize,
    /// Why this metric cannot be fully compared (failed runs), if so.
    pub note: Option<String>,
}

/// What the analysis needs besides the values.
#[derive(Debug, Clone, Default)]
pub(crate) struct AnalysisConfig {
    /// Default noise floor (fraction).
    pub floor: f64,
    /// Calibrated noise bands by (scenario, metric).
    pub calibration: BTreeMap<(String, String), f64>,
}

fn side(values: &[f64], unit: &Unit) -> Option<SideStats> {
    let s = summarize(values, None, unit.is_ratio_scale() || values.iter().all(|&x| x > 0.0), 0.95).ok()?;
    let (low, high) = s.ci.as_ref().map_or((s.center_value, s.center_value), |c| (c.low, c.high));
    Some(SideStats {
        center: s.center_value,
        low,
        high,
    })
}

/// Compare every input; p-values are adjusted across all of them together.
pub(crate) fn analyze(inputs: &[MetricInput], config: &AnalysisConfig) -> Vec<CompareEntry> {
    let effects: Vec<Result<Effect, String>> = inputs
        .iter()
        .map(|m| {
            let r = if m.paired {
                paired(&m.baseline, &m.candidate)
            } else {
                unpaired(&m.baseline, &m.candidate)
            };
            r.map_err(|e| e.to_string())
        })
        .collect();
    let ps: Vec<f64> = effects.iter().filter_map(|e| e.as_ref().ok().map(|e| e.p_value)).collect();
    let mut qs = benjamini_hochberg(&ps).into_iter();
    inputs
        .iter()
        .zip(effects)
        .map(|(m, e)| {
            let mut entry = CompareEntry {
                name: m.name.clone(),
                metric: m.metric.clone(),
                unit: m.unit.clone(),
                better: m.better,
                ratio: None,
                low: None,
                high: None,
                p_value: None,
                p_adjusted: None,
                p_mann_whitney: None,
                verdict: CompareVerdict::Inconclusive,
                noise_band: None,
                mde: None,
                n_baseline: m.n_baseline,
                n_candidate: m.n_candidate,
                pairs: if m.paired { m.baseline.len() } else { 0 },
                runs_needed: None,
                baseline: side(&m.baseline, &m.unit),
                candidate: side(&m.candidate, &m.unit),
                note: m.note.clone(),
            };
            let e = match e {
                Ok(e) => e,
                Err(why) => {
                    let why = format!("not compared: {why}");
                    entry.note = Some(match entry.note.take() {
                        Some(n) => format!("{n}; {why}"),
                        None => why,
                    });
                    return entry;
                }
            };
            let q = qs.next().expect("one q per p");
            let calibrated = config.calibration.get(&(m.name.clone(), m.metric.clone())).copied();
            let band = noise_band(&e, config.floor, calibrated);
            let base_band = config.floor.max(calibrated.unwrap_or(0.0));
            let d = decide(&e, m.better, q, band, base_band);
            entry.ratio = Some(e.to_ratio(e.estimate));
            entry.low = Some(e.to_ratio(e.ci95.low));
            entry.high = Some(e.to_ratio(e.ci95.high));
            entry.p_value = Some(e.p_value);
            entry.p_adjusted = Some(q);
            entry.p_mann_whitney = e.p_mann_whitney;
            entry.noise_band = Some(band);
            entry.mde = Some(d.mde);
            entry.runs_needed = d.runs_needed;
            // Failed runs on either side: what was measured is reported, but never as a verdict.
            entry.verdict = if m.note.is_some() {
                CompareVerdict::Inconclusive
            } else {
                d.verdict
            };
            let excluded = (e.excluded > 0).then(|| format!("{} severe outlier(s) (Tukey 3 IQR) set aside", e.excluded));
            let exact = e.exact.then(|| "exact: every pair differed by the same amount".to_owned());
            let notes: Vec<String> = [m.note.clone(), d.note, excluded, exact].into_iter().flatten().collect();
            entry.note = (!notes.is_empty()).then(|| notes.join("; "));
            entry
        })
        .collect()
}

/// When more than half of the scenarios (at least 3) moved the same way, the machine (thermal
/// state, a background job, a changed toolchain) is the likelier cause than the code.
pub(crate) fn suspect_environment(entries: &[CompareEntry]) -> Option<String> {
    let directed: BTreeSet<&str> = entries
        .iter()
        .filter(|e| e.better != Better::Neither && e.ratio.is_some())
        .map(|e| e.name.as_str())
        .collect();
    let with = |v: CompareVerdict| -> BTreeSet<&str> { entries.iter().filter(|e| e.verdict == v).map(|e| e.name.as_str()).collect() };
    let total = directed.len();
    for (v, word) in [(CompareVerdict::Regressed, "regressed"), (CompareVerdict::Improved, "improved")] {
        let k = with(v).len();
        if total >= 3 && 2 * k > total {
            return Some(format!(
                "{k} of {total} scenarios {word}: when most scenarios move together the environment (machine load, \
                 frequency scaling, toolchain) is suspect; rerun before trusting these verdicts"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, a: Vec<f64>, b: Vec<f64>) -> MetricInput {
        MetricInput {
            name: name.into(),
            metric: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            better: Better::Lower,
            n_baseline: a.len(),
            n_candidate: b.len(),
            baseline: a,
            candidate: b,
            paired: true,
            note: None,
        }
    }

    #[test]
    fn failures_are_inconclusive_with_a_note_and_everything_moving_is_suspect() {
        let a: Vec<f64> = (0..8).map(|i| 100.0 + i as f64 % 3.0).collect();
        let slow: Vec<f64> = a.iter().enumerate().map(|(i, x)| x * 1.5 + (i % 2) as f64).collect();
        let mut inputs = vec![
            input("a", a.clone(), slow.clone()),
            input("b", a.clone(), slow.clone()),
            input("c", a.clone(), slow.clone()),
            input("d", vec![1.0], vec![2.0]),
        ];
        inputs[2].note = Some("2 candidate runs failed".into());
        let cfg = AnalysisConfig {
            floor: 0.02,
            ..Default::default()
        };
        let out = analyze(&inputs, &cfg);
        assert_eq!(out[0].verdict, CompareVerdict::Regressed);
        assert_eq!(out[2].verdict, CompareVerdict::Inconclusive);
        assert!(out[2].note.as_deref().unwrap().contains("failed"));
        assert!(out[3].ratio.is_none() && out[3].note.as_deref().unwrap().contains("not compared"));
        assert!(suspect_environment(&out).is_some(), "2 of 3 compared scenarios regressed");
        assert!(suspect_environment(&out[..1]).is_none());
    }
}
