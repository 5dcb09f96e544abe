//! From runs to [`MetricInput`]s: complete A/B pairs of the interleaved design, or the
//! per-process values of two result directories. Only runs that passed contribute; failures on
//! either side become a note (and an `inconclusive` verdict).
//!
//! A process contributes the median of its iterations (geometric: the median of the logs, so a
//! rate and the latency it is computed from stay exact reciprocals), not their mean: within-process
//! spikes of 1.5-3x pull a mean, and the estimator simulation (`estimator_sim.rs`) found the
//! median with a trimmed mean across pairs the most powerful choice that keeps its coverage.

use std::collections::BTreeMap;

use super::analyze::MetricInput;
use super::interleave::ScenarioRuns;
use crate::errors::Error;
use crate::model::{Outcome, ResultsFile, RunRecord, ScenarioKind};

/// Every metric a passed run reported, with `resources` the process's peak RSS and CPU times too.
fn metric_names<'a>(runs: impl Iterator<Item = &'a RunRecord>, resources: bool) -> Vec<crate::model::MetricSample> {
    let mut seen: Vec<crate::model::MetricSample> = Vec::new();
    for r in runs.filter(|r| r.outcome == Outcome::Passed) {
        let metrics = if resources { r.all_metrics() } else { r.metrics.clone() };
        for m in metrics {
            if !seen.iter().any(|s| s.name == m.name) {
                seen.push(m);
            }
        }
    }
    seen
}

/// A metric's value in one run: measured, or one of the process's resources.
fn value_of(r: &RunRecord, name: &str) -> Option<f64> {
    r.metric(name)
        .map(per_process)
        .or_else(|| r.resource_metrics().into_iter().find(|m| m.name == name).map(|m| m.value))
}

fn failure_note(side: &str, runs: &[RunRecord]) -> Option<String> {
    // A counting process that skipped a measurement it cannot count (iter_custom) did not fail.
    let uncountable = |r: &RunRecord| r.counted_by.is_some() && matches!(r.outcome, Outcome::Skipped { .. });
    let bad: Vec<&RunRecord> = runs.iter().filter(|r| r.outcome != Outcome::Passed && !uncountable(r)).collect();
    let first = bad.first()?;
    Some(format!(
        "{} of {} {side} runs did not pass (first: {})",
        bad.len(),
        runs.len(),
        first.outcome.short()
    ))
}

fn join_notes(notes: [Option<String>; 2]) -> Option<String> {
    let v: Vec<String> = notes.into_iter().flatten().collect();
    (!v.is_empty()).then(|| v.join("; "))
}

/// One input per scenario x metric seen in a passed run of either side; pairs whose two runs
/// both passed and both reported the metric.
pub(crate) fn from_pairs(runs: &BTreeMap<String, ScenarioRuns>, resources: bool) -> Vec<MetricInput> {
    let mut out = Vec::new();
    for (name, sr) in runs {
        if sr.baseline.iter().chain(&sr.candidate).all(|r| r.kind != ScenarioKind::Measure) {
            continue;
        }
        let note = join_notes([failure_note("baseline", &sr.baseline), failure_note("candidate", &sr.candidate)]);
        let metrics = metric_names(sr.baseline.iter().chain(&sr.candidate), resources);
        // Each side's probe over its own fastest: the probe is compiled into each side's binary,
        // and two builds' layouts read it up to 13% apart on one machine speed (a debug fixture in
        // harness/tests/bisect.rs). Raw on both sides where either has too few readings for one.
        let own = match [&sr.baseline, &sr.candidate].map(|side| crate::model::fastest_probe(side)) {
            [Some(a), Some(b)] => [a, b],
            _ => [1.0, 1.0],
        };
        if metrics.is_empty() {
            out.push(MetricInput {
                name: name.clone(),
                metric: String::new(),
                unit: crate::model::Unit::Nanoseconds,
                better: crate::model::Better::Lower,
                baseline: Vec::new(),
                candidate: Vec::new(),
                paired: true,
                mixed_pairs: 0,
                n_baseline: 0,
                n_candidate: 0,
                note: Some(note.unwrap_or_else(|| "no run reported a metric".into())),
                within: None,
                source: None,
            });
            continue;
        }
        for proto in metrics {
            let value = |r: &RunRecord| (r.outcome == Outcome::Passed).then(|| value_of(r, &proto.name)).flatten();
            let timed = proto.speed_probe_ns.is_some();
            let complete: Vec<(f64, f64, bool)> = sr
                .baseline
                .iter()
                .zip(&sr.candidate)
                .filter_map(|(ra, rb)| Some((value(ra)?, value(rb)?, timed && mixed_speeds(ra, rb, own))))
                .collect();
            // Pairs whose processes met one machine speed, when at least MIN_STEADY_PAIRS did: a
            // pair split by a speed change carries the machine's 1.6-1.8x, not the code's
            // difference. Only for CPU-timed metrics: peak memory or a count does not move with
            // the speed.
            let steady = complete.iter().filter(|p| !p.2).count();
            let keep = |p: &&(f64, f64, bool)| steady < MIN_STEADY_PAIRS || !p.2;
            let (a, b): (Vec<f64>, Vec<f64>) = complete.iter().filter(keep).map(|p| (p.0, p.1)).unzip();
            out.push(MetricInput {
                name: name.clone(),
                metric: proto.name.clone(),
                unit: proto.unit.clone(),
                better: proto.better,
                n_baseline: sr.baseline.iter().filter_map(value).count(),
                n_candidate: sr.candidate.iter().filter_map(value).count(),
                mixed_pairs: complete.len() - a.len(),
                baseline: a,
                candidate: b,
                paired: true,
                note: note.clone(),
                within: within_sd(sr.baseline.iter().chain(&sr.candidate).filter_map(|r| r.metric(&proto.name))),
                source: proto.source.clone(),
            });
        }
    }
    out
}

/// Pairs at one machine speed needed before the split ones are left out. Two give the trimmed
/// mean one degree of freedom, an interval 12.7 standard errors wide: a bisect test's 3x change
/// at 4 pairs, 2 of them split, went from `regressed` to `inconclusive` that way. Below this the
/// split pairs stay, and the trimming takes the worst of them.
const MIN_STEADY_PAIRS: usize = 3;

/// The machine's speed while a process measured: the faster of its speed-probe readings
/// (`suite/speed_probe.rs`), the one least touched by what the code left behind in the core.
fn machine_speed(r: &RunRecord) -> Option<f64> {
    r.speed_probe().map(|[s, e]| s.min(e))
}

/// A pair's two processes met different machine speeds: one's probe, over its side's fastest
/// (`own`), over [`SLOWED_FACTOR`](crate::model::SLOWED_FACTOR) times the other's. Leaving such
/// pairs out does not bias the ratio: the probe measures the machine, not either side's code.
fn mixed_speeds(a: &RunRecord, b: &RunRecord, own: [f64; 2]) -> bool {
    match (machine_speed(a), machine_speed(b)) {
        (Some(x), Some(y)) => {
            let (x, y) = (x / own[0], y / own[1]);
            x.max(y) > crate::model::SLOWED_FACTOR * x.min(y)
        }
        _ => false,
    }
}

/// The value a process contributes: the median of its iterations (of their logs when all are
/// positive), or its recorded value when it kept no iterations.
pub(crate) fn per_process(m: &crate::model::MetricSample) -> f64 {
    let it = &m.iterations;
    if it.is_empty() {
        return m.value;
    }
    let positive = it.iter().all(|&x| x > 0.0);
    let mut v: Vec<f64> = if positive {
        it.iter().map(|x| x.ln()).collect()
    } else {
        it.clone()
    };
    v.sort_by(f64::total_cmp);
    let k = v.len();
    let med = if k % 2 == 1 { v[k / 2] } else { (v[k / 2 - 1] + v[k / 2]) / 2.0 };
    if positive { med.exp() } else { med }
}

/// Pooled within-process sd of log iterations (processes with at least 2 positive iterations).
fn within_sd<'a>(samples: impl Iterator<Item = &'a crate::model::MetricSample>) -> Option<f64> {
    let (mut ss, mut df) = (0.0, 0usize);
    for m in samples.filter(|m| m.iterations.len() >= 2 && m.iterations.iter().all(|&x| x > 0.0)) {
        let l: Vec<f64> = m.iterations.iter().map(|x| x.ln()).collect();
        let mean = l.iter().sum::<f64>() / l.len() as f64;
        ss += l.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
        df += l.len() - 1;
    }
    (df > 0).then(|| (ss / df as f64).sqrt())
}

/// Unpaired inputs from two result directories: scenarios measured in both. Names measured on
/// one side only come back as warnings.
pub(crate) fn from_results(
    a: &ResultsFile,
    b: &ResultsFile,
    resources: bool,
    keep: impl Fn(&str) -> bool,
) -> Result<(Vec<MetricInput>, Vec<String>), Error> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let measured = |r: &ResultsFile| -> BTreeMap<String, crate::model::ScenarioSummary> {
        r.summaries
            .iter()
            .filter(|s| s.kind == ScenarioKind::Measure && keep(&s.scenario))
            .map(|s| (s.scenario.clone(), s.clone()))
            .collect()
    };
    let (ma, mb) = (measured(a), measured(b));
    for name in ma.keys().filter(|n| !mb.contains_key(*n)) {
        warnings.push(format!("{name} is measured in the baseline only"));
    }
    for name in mb.keys().filter(|n| !ma.contains_key(*n)) {
        warnings.push(format!("{name} is measured in the candidate only"));
    }
    for (name, sa) in &ma {
        let Some(sb) = mb.get(name) else { continue };
        let side_note = |side: &str, s: &crate::model::ScenarioSummary| {
            let f = s.counts.failures();
            (f > 0).then(|| format!("{f} of {} {side} runs did not pass", s.counts.total()))
        };
        let note = join_notes([side_note("baseline", sa), side_note("candidate", sb)]);
        for m in &sa.metrics {
            let Some(mb_) = sb.metrics.iter().find(|x| x.metric == m.metric) else {
                warnings.push(format!("{name}: metric {} is in the baseline only", m.metric));
                continue;
            };
            if m.source != mb_.source {
                let said = |s: &Option<String>| s.clone().unwrap_or_else(|| "wall time (no counter)".to_owned());
                return Err(Error::Counters {
                    detail: format!(
                        "{name}: metric {} was made by {} in the baseline and by {} in the candidate; \
                         counts of two sources are never compared: measure both with the same --counters",
                        m.metric,
                        said(&m.source),
                        said(&mb_.source)
                    ),
                });
            }
            let va: Vec<f64> = m.values.iter().map(|(_, v)| *v).collect();
            let vb: Vec<f64> = mb_.values.iter().map(|(_, v)| *v).collect();
            out.push(MetricInput {
                name: name.clone(),
                metric: m.metric.clone(),
                unit: m.unit.clone(),
                better: m.better,
                n_baseline: va.len(),
                n_candidate: vb.len(),
                baseline: va,
                candidate: vb,
                paired: false,
                mixed_pairs: 0,
                note: note.clone(),
                within: None,
                source: m.source.clone(),
            });
        }
        if resources {
            out.extend(resource_inputs(name, a, b, &note));
        }
    }
    Ok((out, warnings))
}

/// Unpaired inputs of the process resources of `name`'s passed runs, where both sides have them.
fn resource_inputs(name: &str, a: &ResultsFile, b: &ResultsFile, note: &Option<String>) -> Vec<MetricInput> {
    let passed = |r: &ResultsFile| -> Vec<crate::model::MetricSample> {
        r.runs
            .iter()
            .filter(|x| x.scenario == name && x.outcome == Outcome::Passed)
            .flat_map(RunRecord::resource_metrics)
            .collect()
    };
    let (ra, rb) = (passed(a), passed(b));
    let mut out = Vec::new();
    for proto in metric_protos(&ra) {
        let values =
            |v: &[crate::model::MetricSample]| -> Vec<f64> { v.iter().filter(|m| m.name == proto.name).map(|m| m.value).collect() };
        let (va, vb) = (values(&ra), values(&rb));
        if va.is_empty() || vb.is_empty() {
            continue;
        }
        out.push(MetricInput {
            name: name.to_owned(),
            metric: proto.name.clone(),
            unit: proto.unit.clone(),
            better: proto.better,
            n_baseline: va.len(),
            n_candidate: vb.len(),
            baseline: va,
            candidate: vb,
            paired: false,
            mixed_pairs: 0,
            within: None,
            note: note.clone(),
            source: None,
        });
    }
    out
}

/// The first sample of each metric name, in order.
fn metric_protos(samples: &[crate::model::MetricSample]) -> Vec<&crate::model::MetricSample> {
    let mut seen: Vec<&crate::model::MetricSample> = Vec::new();
    for m in samples {
        if !seen.iter().any(|s| s.name == m.name) {
            seen.push(m);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, ProcessFacts, Unit};
    use rand::{Rng, SeedableRng};

    fn run(rss: u64, cpu: u64) -> RunRecord {
        RunRecord {
            run_index: 0,
            scenario: "s".into(),
            kind: ScenarioKind::Measure,
            env: Default::default(),
            repetition: 0,
            outcome: Outcome::Passed,
            metrics: vec![],
            wall_ns: 1,
            started_ms: 0.0,
            env_changes: vec![],
            stdout: String::new(),
            stderr: String::new(),
            process: ProcessFacts {
                exit_code: Some(0),
                peak_rss_bytes: Some(rss),
                cpu_user_ns: Some(cpu),
                cpu_system_ns: Some(cpu / 2),
                ..Default::default()
            },
            counted_by: None,
        }
    }

    #[test]
    fn resources_are_lower_is_better_metrics_only_when_asked() {
        let sr = ScenarioRuns {
            baseline: vec![run(1000, 10), run(1100, 12)],
            candidate: vec![run(2000, 20), run(2100, 22)],
        };
        let runs = BTreeMap::from([("s".to_owned(), sr)]);
        let with = from_pairs(&runs, true);
        let rss = with.iter().find(|i| i.metric == "peak_rss_bytes").unwrap();
        assert_eq!((&rss.unit, rss.better), (&Unit::Bytes, Better::Lower));
        assert_eq!(
            (rss.baseline.clone(), rss.candidate.clone()),
            (vec![1000.0, 1100.0], vec![2000.0, 2100.0])
        );
        let cpu = with.iter().find(|i| i.metric == "cpu_system_ns").unwrap();
        assert_eq!((&cpu.unit, cpu.candidate.clone()), (&Unit::Nanoseconds, vec![10.0, 11.0]));
        assert!(with.iter().any(|i| i.metric == "cpu_user_ns"));
        let without = from_pairs(&runs, false);
        assert!(
            without.iter().all(|i| !i.metric.contains("rss") && !i.metric.starts_with("cpu_")),
            "{without:?}"
        );
    }
    /// A timed process measuring `value` ns with the machine's speed probe at `probe` ns.
    fn timed(value: f64, probe: f64) -> RunRecord {
        let mut r = run(1, 1);
        r.metrics = vec![crate::model::MetricSample {
            name: "latency_ns".into(),
            unit: Unit::Nanoseconds,
            better: Better::Lower,
            value,
            iterations: vec![],
            source: None,
            profile: None,
            distortion: None,
            speed_probe_ns: Some([probe, probe]),
        }];
        r
    }

    /// No code change; the machine slowed (probe 2x, code 1.7x) under the candidate of 4 of 10
    /// pairs. Kept, those pairs move the ratio to 1.2 and no verdict of no change is possible;
    /// left out, the rest read no change, and the row says how many went.
    #[test]
    fn pairs_split_by_a_machine_speed_change_are_left_out() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut noisy = |v: f64| v * (1.0 + 0.02 * (rng.random::<f64>() - 0.5));
        let (mut baseline, mut candidate) = (Vec::new(), Vec::new());
        for i in 0..10 {
            let slowed = i % 5 < 2;
            baseline.push(timed(noisy(100.0), 24_000.0));
            candidate.push(if slowed {
                timed(noisy(170.0), 48_000.0)
            } else {
                timed(noisy(100.0), 24_500.0)
            });
        }
        let runs = BTreeMap::from([("s".to_owned(), ScenarioRuns { baseline, candidate })]);
        let input = from_pairs(&runs, false).remove(0);
        assert_eq!((input.baseline.len(), input.mixed_pairs), (6, 4));
        let rss = from_pairs(&runs, true).into_iter().find(|i| i.metric == "peak_rss_bytes").unwrap();
        assert_eq!(
            (rss.baseline.len(), rss.mixed_pairs),
            (10, 0),
            "memory does not move with the speed"
        );
        assert!(input.candidate.iter().all(|v| *v < 110.0), "{:?}", input.candidate);
        let config = super::super::analyze::AnalysisConfig {
            floor: 0.05,
            ..Default::default()
        };
        let row = &super::super::analyze::analyze(std::slice::from_ref(&input), &config)[0];
        assert_eq!(row.verdict, crate::model::CompareVerdict::Unchanged, "{row:?}");
        assert!(row.note.as_deref().unwrap_or("").contains("4 of 10 pairs left out"), "{row:?}");
        // The same pairs kept: the machine's 1.7x reads as the code's.
        let kept = MetricInput {
            baseline: [input.baseline.clone(), vec![100.0; 4]].concat(),
            candidate: [input.candidate.clone(), vec![170.0; 4]].concat(),
            mixed_pairs: 0,
            ..input
        };
        let row = &super::super::analyze::analyze(&[kept], &config)[0];
        assert!(
            row.ratio.unwrap() > 1.1 && row.verdict != crate::model::CompareVerdict::Unchanged,
            "{row:?}"
        );
    }

    /// The candidate's build reads the probe 35% slower at every machine speed (its layout): no
    /// pair is split by that alone, and a speed change under it still is. Compared raw, every
    /// pair would look split and all would be kept, the slowed one too.
    #[test]
    fn a_builds_own_probe_offset_is_not_a_speed_change() {
        let baseline: Vec<RunRecord> = (0..6).map(|_| timed(100.0, 24_000.0)).collect();
        let mut candidate: Vec<RunRecord> = (0..6).map(|_| timed(100.0, 32_400.0)).collect();
        candidate[0] = timed(170.0, 55_000.0);
        let runs = BTreeMap::from([("s".to_owned(), ScenarioRuns { baseline, candidate })]);
        let input = from_pairs(&runs, false).remove(0);
        assert_eq!((input.baseline.len(), input.mixed_pairs), (5, 1));
    }

    /// A side with too few probe readings for a fastest of its own: both sides read raw, so the
    /// pairs at one speed stay (read against 1 ns on one side and 24 us on the other, the two
    /// probed pairs would look split and go).
    #[test]
    fn a_side_without_a_fastest_reads_both_sides_raw() {
        let mut baseline: Vec<RunRecord> = (0..5).map(|_| timed(100.0, 24_000.0)).collect();
        for r in &mut baseline[2..] {
            r.metrics[0].speed_probe_ns = None;
        }
        let candidate: Vec<RunRecord> = (0..5).map(|_| timed(100.0, 24_000.0)).collect();
        let runs = BTreeMap::from([("s".to_owned(), ScenarioRuns { baseline, candidate })]);
        let input = from_pairs(&runs, false).remove(0);
        assert_eq!((input.baseline.len(), input.mixed_pairs), (5, 0));
    }

    /// Fewer than three pairs at one speed: every pair stays; three, and the split ones go.
    #[test]
    fn pairs_split_by_speed_changes_stay_when_too_few_would_be_left() {
        let input = |steady: usize| {
            let baseline: Vec<RunRecord> = (0..4).map(|_| timed(100.0, 24_000.0)).collect();
            let candidate = (0..4)
                .map(|i| {
                    if i < steady {
                        timed(100.0, 24_000.0)
                    } else {
                        timed(170.0, 48_000.0)
                    }
                })
                .collect();
            let runs = BTreeMap::from([("s".to_owned(), ScenarioRuns { baseline, candidate })]);
            let i = from_pairs(&runs, false).remove(0);
            (i.baseline.len(), i.mixed_pairs)
        };
        assert_eq!(input(1), (4, 0));
        assert_eq!(input(2), (4, 0));
        assert_eq!(input(3), (3, 1));
    }
}
