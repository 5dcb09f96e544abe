//! `analyze`: per-metric values of both sides into [`CompareEntry`] rows: effect, interval,
//! Benjamini-Hochberg across every independent row, band and verdict, at one look of a
//! (possibly sequential) comparison. Pure; the pipeline and the simulation tests go through it.

use std::collections::{BTreeMap, BTreeSet};

use super::effect::{Effect, paired, unpaired};
use super::verdict::{ALPHA, DEFAULT_COUNTER_MARGIN, counter_band, decide, noise_band, scale_calibrated};
use crate::model::{Better, CompareEntry, CompareVerdict, NoiseSources, SideStats, Unit};
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
    /// Complete pairs left out because the machine changed speed between their two processes
    /// (`inputs.rs`); 0 unpaired.
    pub mixed_pairs: usize,
    /// Runs of each side that passed (paired: may exceed the pairs when the other side failed).
    pub n_baseline: usize,
    pub n_candidate: usize,
    /// Why this metric cannot be fully compared (failed runs), if so.
    pub note: Option<String>,
    /// Pooled within-process sd of log iterations, when iterations were recorded.
    pub within: Option<f64>,
    /// The counter source that made the values (`valgrind-callgrind 3.19`); `None` for wall
    /// time. Decides the row's margin (`--counter-margin`).
    pub source: Option<String>,
}

/// Calibrated noise bands by (scenario, metric), with the pairs each was measured at.
pub(crate) type Calibration = BTreeMap<(String, String), (f64, usize)>;

/// What the analysis needs besides the values.
#[derive(Debug, Clone)]
pub(crate) struct AnalysisConfig {
    /// Default noise floor (fraction).
    pub floor: f64,
    /// Margin of practical relevance (fraction).
    pub margin: f64,
    /// Margin of counter rows (fraction), which replaces floor and margin there.
    pub counter_margin: f64,
    /// Calibrated noise bands.
    pub calibration: Calibration,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        AnalysisConfig {
            floor: 0.0,
            margin: 0.0,
            counter_margin: DEFAULT_COUNTER_MARGIN,
            calibration: Calibration::new(),
        }
    }
}

/// One row's place in a sequential comparison: the alpha this look may spend and the smallest
/// weighted p-value of its earlier looks (1 before the first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Look {
    pub alpha: f64,
    pub p_prior: f64,
}

impl Look {
    /// A comparison with one look spends all of [`ALPHA`].
    pub const SINGLE: Look = Look {
        alpha: ALPHA,
        p_prior: 1.0,
    };
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

/// For each input, the index of the latency it is computed from, if any: a ratio-scale rate in
/// the same scenario whose product with a nanosecond metric is the same in every run of both
/// sides (`gflop_per_s = flop / latency`). Such a rate is the latency's question asked twice.
pub(crate) fn derived_from(inputs: &[MetricInput]) -> Vec<Option<usize>> {
    let product_constant = |x: &MetricInput, t: &MetricInput| {
        let k: Vec<f64> = x
            .baseline
            .iter()
            .chain(&x.candidate)
            .zip(t.baseline.iter().chain(&t.candidate))
            .map(|(a, b)| a * b)
            .collect();
        k.len() >= 2 && k.iter().all(|v| v.is_finite() && *v > 0.0 && (v / k[0] - 1.0).abs() < 1e-6)
    };
    inputs
        .iter()
        .map(|x| {
            if x.better == Better::Neither || !x.unit.is_ratio_scale() || x.unit == Unit::Nanoseconds {
                return None;
            }
            inputs.iter().position(|t| {
                t.name == x.name
                    && t.unit == Unit::Nanoseconds
                    && t.baseline.len() == x.baseline.len()
                    && t.paired == x.paired
                    && product_constant(x, t)
            })
        })
        .collect()
}

/// Where a paired row's noise came from (log scale).
fn noise_sources(m: &MetricInput, e: &Effect) -> Option<NoiseSources> {
    if !m.paired || m.baseline.len() < 3 || !m.baseline.iter().chain(&m.candidate).all(|&x| x > 0.0) {
        return None;
    }
    let logs = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<f64>>();
    let (la, lb) = (logs(&m.baseline), logs(&m.candidate));
    let var = |v: &[f64]| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64
    };
    let n = la.len() as f64;
    // Least-squares slope of the baseline over the pair index: the session's drift.
    let xbar = (n - 1.0) / 2.0;
    let ybar = la.iter().sum::<f64>() / n;
    let sxx: f64 = (0..la.len()).map(|i| (i as f64 - xbar).powi(2)).sum();
    let slope = la.iter().enumerate().map(|(i, y)| (i as f64 - xbar) * (y - ybar)).sum::<f64>() / sxx;
    Some(NoiseSources {
        within_process: m.within,
        between_processes: ((var(&la) + var(&lb)) / 2.0).sqrt(),
        per_pair: e.sd,
        drift_per_100_pairs: (100.0 * slope).exp_m1(),
        outliers_set_aside: e.excluded,
    })
}

fn blank_entry(m: &MetricInput) -> CompareEntry {
    CompareEntry {
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
        level: None,
        derived_from: None,
        noise: None,
        source: m.source.clone(),
        explain: None,
        per_call: None,
    }
}

fn effect_of(m: &MetricInput) -> Result<Effect, String> {
    let r = if m.paired {
        paired(&m.baseline, &m.candidate)
    } else {
        unpaired(&m.baseline, &m.candidate)
    };
    r.map_err(|e| e.to_string())
}

/// Compare every input in one look spending all of alpha; p-values adjusted across them.
pub(crate) fn analyze(inputs: &[MetricInput], config: &AnalysisConfig) -> Vec<CompareEntry> {
    analyze_looks(inputs, config, &vec![Look::SINGLE; inputs.len()]).0
}

/// One look of a sequential comparison: `looks[i]` is input i's spent alpha and earlier p.
/// Returns the rows and each row's sequential p-value `min(p_prior, p ALPHA / alpha)` (weighted
/// Bonferroni over looks: valid however the looks stop, as their alphas sum to at most ALPHA),
/// which is what Benjamini-Hochberg adjusts. Derived rates take their latency's q and verdict.
pub(crate) fn analyze_looks(inputs: &[MetricInput], config: &AnalysisConfig, looks: &[Look]) -> (Vec<CompareEntry>, Vec<f64>) {
    let effects: Vec<Result<Effect, String>> = inputs.iter().map(effect_of).collect();
    let derived = derived_from(inputs);
    let p_seq: Vec<f64> = effects
        .iter()
        .zip(looks)
        .map(|(e, l)| e.as_ref().map_or(1.0, |e| l.p_prior.min((e.p_value * ALPHA / l.alpha).min(1.0))))
        .collect();
    // One hypothesis per question: derived rows and rows without an effect are not in BH.
    let tested: Vec<usize> = (0..inputs.len()).filter(|&i| derived[i].is_none() && effects[i].is_ok()).collect();
    let q_tested = benjamini_hochberg(&tested.iter().map(|&i| p_seq[i]).collect::<Vec<_>>());
    let mut q = vec![1.0; inputs.len()];
    for (&i, qi) in tested.iter().zip(q_tested) {
        q[i] = qi;
    }
    let mut entries: Vec<CompareEntry> = inputs
        .iter()
        .zip(effects)
        .enumerate()
        .map(|(i, (m, e))| entry(m, e, config, q[i], looks[i].alpha))
        .collect();
    for (i, d) in derived.iter().enumerate() {
        if let Some(&j) = d.as_ref() {
            let (verdict, q, needed, metric) = (
                entries[j].verdict,
                entries[j].p_adjusted,
                entries[j].runs_needed,
                entries[j].metric.clone(),
            );
            let e = &mut entries[i];
            e.verdict = verdict;
            e.p_adjusted = q;
            e.runs_needed = needed;
            e.derived_from = Some(metric);
        }
    }
    (entries, p_seq)
}

/// One row from its effect, q and the look's alpha.
fn entry(m: &MetricInput, e: Result<Effect, String>, config: &AnalysisConfig, q: f64, alpha: f64) -> CompareEntry {
    let mut entry = blank_entry(m);
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
    let calibrated = config
        .calibration
        .get(&(m.name.clone(), m.metric.clone()))
        .map(|&(band, n_cal)| scale_calibrated(band, n_cal, e.n()));
    let band = match &m.source {
        Some(_) => counter_band(config.counter_margin, calibrated),
        None => noise_band(&e, config.floor, config.margin, calibrated),
    };
    let d = decide(&e, m.better, q, band, alpha);
    entry.ratio = Some(e.to_ratio(e.estimate));
    entry.low = Some(e.to_ratio(d.interval.low));
    entry.high = Some(e.to_ratio(d.interval.high));
    entry.level = ((d.interval.level - 0.95).abs() > 1e-9).then_some(d.interval.level);
    entry.p_value = Some(e.p_value);
    entry.p_adjusted = Some(q);
    entry.p_mann_whitney = e.p_mann_whitney;
    entry.noise_band = Some(band);
    entry.mde = Some(d.mde);
    entry.runs_needed = d.runs_needed;
    entry.noise = noise_sources(m, &e);
    // Failed runs on either side: what was measured is reported, but never as a verdict.
    entry.verdict = if m.note.is_some() {
        CompareVerdict::Inconclusive
    } else {
        d.verdict
    };
    let cut = (e.excluded > 0).then(|| format!("{} pair(s) beyond Tukey's 3 IQR fences, cut by the 20% trimmed mean", e.excluded));
    let exact = e.exact.then(|| "exact: every pair differed by the same amount".to_owned());
    let mixed = (m.mixed_pairs > 0).then(|| {
        format!(
            "{} of {} pairs left out: the machine changed speed between their two processes (speed probe over {}x apart)",
            m.mixed_pairs,
            m.mixed_pairs + m.baseline.len(),
            crate::model::SLOWED_FACTOR
        )
    });
    let notes: Vec<String> = [m.note.clone(), d.note, cut, exact, mixed].into_iter().flatten().collect();
    entry.note = (!notes.is_empty()).then(|| notes.join("; "));
    entry
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
            mixed_pairs: 0,
            note: None,
            within: None,
            source: None,
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
            margin: 0.05,
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
