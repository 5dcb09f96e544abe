//! The detect pipeline: isolated runs, shared schedules (continuing after crashes, topped up
//! until every ordered pair was seen), verdicts, localization of culprits and cleaners, value
//! shifts and hazards — one [`DetectEntry`] per scenario.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::classify::{CANDIDATE_ISOLATED, FLAKY_MIN_RUNS, Initial, failure_rate, initial};
use super::hazards::hazards;
use super::localize::{Localized, Localizer};
use super::probe::{Observation, Prober, Purpose};
use super::schedule::{
    DEFAULT_ISOLATED, DEFAULT_SHUFFLES, MAX_COVERAGE_SHUFFLES, MIN_ISOLATED_MEASURE, PairCoverage, Schedule, plan, shuffle_schedule,
    shuffle_seeds,
};
use super::subject::OrderTarget;
use super::values::{ALPHA, Baseline, ShiftTest, shift_test};

/// Fresh (culprit, scenario) pairs and alone runs, each, behind a reported value shift.
const CONFIRM_VALUE_PAIRS: usize = 8;
use crate::errors::Error;
use crate::execute::Listed;
use crate::model::{DetectEntry, Evidence, EvidenceKind, OrderVerdict, RunCounts, ScenarioKind, ScheduleRecord, Status, ValueShift};
use crate::stats::benjamini_hochberg;

/// Smallest value shift reported, in percent: the whole 95% interval must lie beyond it. On the
/// 2-core development machine (2026-12-02) in-suite sampling runs were 3.5-6.7% faster than
/// isolated ones with no culprit (a warm process); the frozen-knob case this exists for moves a
/// value by 10x.
pub const SHIFT_FLOOR_PCT: f64 = 10.0;

/// Shared runs outside the screening band needed before a value shift is localized.
const MIN_SHIFTED_RUNS: usize = 2;

/// How much detect runs. Defaults: [`DEFAULT_ISOLATED`] isolated runs per check (at least
/// [`MIN_ISOLATED_MEASURE`] per measurement), [`DEFAULT_SHUFFLES`] shuffles.
#[derive(Debug, Clone)]
pub struct DetectConfig {
    /// Isolated runs of each scenario (R).
    pub isolated: usize,
    /// Seeded shuffles on top of the original order and its reverse (K).
    pub shuffles: usize,
    /// Seed every shuffle and libtest probe seed derives from.
    pub seed: u64,
    /// Bound on every process.
    pub timeout: Option<Duration>,
    /// Measured iterations per measurement process.
    pub iterations: usize,
    /// Warm-up iterations per measurement process.
    pub warmup: usize,
    /// Scratch directory for process output.
    pub scratch: PathBuf,
}

impl DetectConfig {
    /// The defaults, with `seed` and `scratch`.
    pub fn new(seed: u64, scratch: PathBuf) -> Self {
        DetectConfig {
            isolated: DEFAULT_ISOLATED,
            shuffles: DEFAULT_SHUFFLES,
            seed,
            timeout: Some(Duration::from_secs(60)),
            iterations: 10,
            warmup: 2,
            scratch,
        }
    }
}

/// Everything detect found in one target.
#[derive(Debug, Clone, Default)]
pub struct DetectResult {
    /// One entry per scenario, in listing order.
    pub entries: Vec<DetectEntry>,
    /// The shared schedules that ran.
    pub schedules: Vec<ScheduleRecord>,
    /// Processes spent.
    pub counts: RunCounts,
    /// Scenario executions (a shared process of n scenarios counts n).
    pub executions: usize,
}

/// A value comparison waiting for the Benjamini-Hochberg adjustment.
struct PendingShift {
    entry: usize,
    metric: String,
    test: ShiftTest,
    culprits: Vec<String>,
}

/// Detect order dependence among `selected` scenarios of `target`. Variants with different
/// env-matrix values never share a process: each env group is its own universe.
pub fn detect(target: &dyn OrderTarget, selected: &[Listed], cfg: &DetectConfig) -> Result<DetectResult, Error> {
    let mut groups: BTreeMap<&BTreeMap<String, String>, Vec<&Listed>> = BTreeMap::new();
    for l in selected {
        groups.entry(&l.env).or_default().push(l);
    }
    let mut out = DetectResult::default();
    let mut pending = Vec::new();
    for (i, (env, group)) in groups.into_iter().enumerate() {
        let mut prober = Prober::new(target, env.clone(), cfg.timeout, cfg.iterations, cfg.warmup, cfg.scratch.clone());
        let group_seed = cfg.seed.wrapping_add(i as u64);
        detect_group(&mut prober, &group, cfg, group_seed, &mut out, &mut pending)?;
        let c = &prober.counts;
        out.counts.isolated += c.isolated;
        out.counts.shared += c.shared;
        out.counts.localization += c.localization;
        out.counts.total += c.total;
        out.executions += prober.executions;
    }
    let adjusted = benjamini_hochberg(&pending.iter().map(|p| p.test.p_value).collect::<Vec<_>>());
    for (p, q) in pending.into_iter().zip(adjusted) {
        // Significant and large: the whole interval beyond the floor. A warmed process runs a few
        // percent faster than a cold one with no culprit at all; that is not what detect hunts.
        let beyond = p.test.low_pct > SHIFT_FLOOR_PCT || p.test.high_pct < -SHIFT_FLOOR_PCT;
        if q < ALPHA && beyond {
            out.entries[p.entry].value_shifts.push(ValueShift {
                metric: p.metric,
                shift_pct: p.test.shift_pct,
                low_pct: p.test.low_pct,
                high_pct: p.test.high_pct,
                p_adjusted: q,
                culprits: p.culprits,
            });
        }
    }
    // Listing order across env groups.
    let rank: BTreeMap<&str, usize> = selected.iter().enumerate().map(|(i, l)| (l.name.as_str(), i)).collect();
    out.entries
        .sort_by_key(|e| rank.get(e.name.as_str()).copied().unwrap_or(usize::MAX));
    Ok(out)
}

fn detect_group(
    prober: &mut Prober<'_>,
    group: &[&Listed],
    cfg: &DetectConfig,
    seed: u64,
    out: &mut DetectResult,
    pending: &mut Vec<PendingShift>,
) -> Result<(), Error> {
    let honours = prober.target().honours_order();
    let names: Vec<String> = group.iter().map(|l| l.name.clone()).collect();
    let kinds: BTreeMap<&str, ScenarioKind> = group.iter().map(|l| (l.name.as_str(), l.kind)).collect();
    let mut iso: BTreeMap<String, Vec<Observation>> = names.iter().map(|n| (n.clone(), Vec::new())).collect();
    let mut shared: BTreeMap<String, Vec<Observation>> = iso.clone();

    // 1. Isolated runs: the trusted reference.
    let reps = |n: &str| {
        if kinds.get(n) == Some(&ScenarioKind::Measure) {
            cfg.isolated.max(MIN_ISOLATED_MEASURE)
        } else {
            cfg.isolated
        }
    };
    let most = names.iter().map(|n| reps(n)).max().unwrap_or(0);
    for rep in 0..most {
        for n in names.iter().filter(|n| reps(n) > rep) {
            run_isolated(prober, n, &mut iso)?;
        }
    }

    // 2. Shared schedules. A scenario that hangs alone every time would cost a full timeout in
    //    each schedule, so it is left out of them (its verdict is `fail` from isolated runs).
    let hangs = |n: &String| {
        let o = &iso[n];
        !o.is_empty() && o.iter().all(|o| o.outcome.status() == Status::TimedOut)
    };
    let in_shared: Vec<String> = names.iter().filter(|n| !hangs(n)).cloned().collect();
    // A scenario that ends its process every time alone (a crasher) can precede nothing in one
    // process: pairs it would start are not asked of the coverage.
    let enders: Vec<String> = in_shared
        .iter()
        .filter(|n| {
            !iso[*n].is_empty()
                && iso[*n]
                    .iter()
                    .all(|o| o.failed() && !matches!(o.outcome, crate::model::Outcome::Failed { .. }))
        })
        .cloned()
        .collect();
    let mut coverage = PairCoverage::new(&in_shared);
    coverage.exclude_first(&enders);
    let mut schedules: Vec<Schedule> = if in_shared.len() > 1 {
        plan(&in_shared, honours, seed, cfg.shuffles)
    } else {
        vec![]
    };
    let mut extra = 0;
    let mut i = 0;
    while i < schedules.len() {
        let s = schedules[i].clone();
        let (obs, _) = prober.run_schedule(&s.order, s.seed.filter(|_| !honours), s.kind)?;
        let executed: Vec<String> = obs.iter().map(|o| o.name.clone()).collect();
        out.schedules.push(ScheduleRecord {
            kind: s.kind_name().to_owned(),
            seed: s.seed,
            order: executed,
            binary: None,
        });
        for mut o in obs {
            o.seed = s.seed;
            coverage.add_prefix(&o.prefix, &o.name);
            if let Some(v) = shared.get_mut(&o.name) {
                v.push(o);
            }
        }
        i += 1;
        // Top up: a crash splits a schedule into processes, and libtest has no reverse, so some
        // ordered pairs may be unseen; add shuffles until every one was seen (bounded).
        if i == schedules.len() && coverage.missing() > 0 && extra < MAX_COVERAGE_SHUFFLES {
            let s = shuffle_seeds(seed, 1, cfg.shuffles + extra)[0];
            schedules.push(shuffle_schedule(&in_shared, s, honours));
            extra += 1;
        }
    }

    // 3. Verdicts; candidates get more isolated runs before they are called order-dependent.
    let mut loc = Localizer::new(prober, seed.wrapping_mul(0x9e37_79b9).wrapping_add(1));
    let mut entries_here: Vec<DetectEntry> = Vec::new();
    let mut confirm_cache: BTreeMap<(String, String), (Vec<Observation>, Vec<Observation>)> = BTreeMap::new();
    for name in &names {
        let mut state = classify(&iso[name], &shared[name]);
        if matches!(state, Initial::VictimCandidate | Initial::BrittleCandidate) {
            while iso[name].len() < CANDIDATE_ISOLATED && iso[name].iter().all(|o| o.failed() == iso[name][0].failed()) {
                run_isolated(loc.prober(), name, &mut iso)?;
            }
            state = classify(&iso[name], &shared[name]);
        }
        if state == Initial::Flaky {
            while iso[name].len() + shared[name].len() < FLAKY_MIN_RUNS {
                run_isolated(loc.prober(), name, &mut iso)?;
            }
        }
        let sh: Vec<&Observation> = shared[name].iter().collect();
        let mut localized = Localized::default();
        let mut note = None;
        let verdict = match state {
            Initial::Pass => OrderVerdict::Pass,
            Initial::Fail => OrderVerdict::Fail,
            Initial::Flaky => OrderVerdict::Flaky,
            Initial::VictimCandidate | Initial::BrittleCandidate => {
                let victim = state == Initial::VictimCandidate;
                let effect = move |o: &Observation| o.ran() && o.failed() == victim;
                localized = loc.localize_all(name, &sh, &effect)?;
                let dependent = if localized.culprits.is_empty() {
                    let reproduced = reproduce(&mut loc, name, &sh, &effect, &mut localized)?;
                    note = Some(if reproduced {
                        "order-dependent (the flipping order reproduces) but no single culprit was confirmed"
                    } else {
                        "the flipping order did not reproduce: no ordering cause"
                    });
                    reproduced
                } else {
                    true
                };
                match (dependent, victim) {
                    (false, _) => OrderVerdict::Flaky,
                    (true, true) => OrderVerdict::Victim,
                    (true, false) => OrderVerdict::Brittle,
                }
            }
        };
        let all: Vec<&Observation> = iso[name].iter().chain(shared[name].iter()).collect();
        let mut entry = DetectEntry {
            name: name.clone(),
            binary: None,
            package: None,
            verdict,
            polluters: vec![],
            state_setters: vec![],
            cleaners: localized.cleaners.clone(),
            failure_rate: (verdict == OrderVerdict::Flaky).then(|| failure_rate(&all)),
            evidence: evidence(name, verdict, &iso[name], &shared[name], &localized, note),
            hazards: if loc.prober().target().observes_env() {
                hazards(&all)
            } else {
                vec![]
            },
            value_shifts: vec![],
            reproduce: None,
        };
        match verdict {
            OrderVerdict::Victim => entry.polluters = localized.culprits.clone(),
            OrderVerdict::Brittle => entry.state_setters = localized.culprits.clone(),
            _ => {}
        }
        // 4. Measured values: in-suite against isolated, per metric.
        if kinds.get(name.as_str()) == Some(&ScenarioKind::Measure) {
            let iso_refs: Vec<&Observation> = iso[name].iter().collect();
            for b in Baseline::from_isolated(&iso_refs) {
                let in_suite: Vec<f64> = sh.iter().filter_map(|o| b.value_of(o)).collect();
                let mut culprits = vec![];
                let sample = in_suite;
                let mut fresh = None;
                // One stray run outside the band is noise on a shared machine; a culprit that runs
                // before this scenario in about half the schedules shifts several.
                if sh.iter().filter(|o| b.shifted(o)).count() >= MIN_SHIFTED_RUNS {
                    let effect = |o: &Observation| b.shifted(o);
                    let found = loc.localize_all(name, &sh, &effect)?;
                    entry.evidence.extend(found.evidence.iter().cloned().map(|mut e| {
                        e.detail = format!("{} (value of {})", e.detail, b.metric);
                        e
                    }));
                    // Each localized candidate is tested on fresh runs: the candidate then this
                    // scenario, interleaved with this scenario alone, so both see the same machine
                    // load. Candidates whose shift is significant after Bonferroni across the
                    // candidates are the culprits; the most significant one's test (with its
                    // Bonferroni-scaled p, which Benjamini-Hochberg then adjusts across scenarios)
                    // is reported.
                    let tried = found.culprits.len() as f64;
                    for c in &found.culprits {
                        let key = (c.clone(), name.clone());
                        if !confirm_cache.contains_key(&key) {
                            let mut v = (Vec::new(), Vec::new());
                            for _ in 0..CONFIRM_VALUE_PAIRS {
                                let obs = loc.prober().run_once(
                                    &[c.clone(), name.clone()],
                                    None,
                                    EvidenceKind::Confirm,
                                    Purpose::Localization,
                                )?;
                                v.1.extend(obs.into_iter().filter(|o| &o.name == name));
                                let obs = loc.prober().run_once(
                                    std::slice::from_ref(name),
                                    None,
                                    EvidenceKind::Isolated,
                                    Purpose::Localization,
                                )?;
                                v.0.extend(obs.into_iter().filter(|o| &o.name == name));
                            }
                            confirm_cache.insert(key.clone(), v);
                        }
                        let (alone, after) = &confirm_cache[&key];
                        let reference: Vec<f64> = alone.iter().filter_map(|o| b.value_of(o)).collect();
                        let sample: Vec<f64> = after.iter().filter_map(|o| b.value_of(o)).collect();
                        let Some(mut t) = shift_test(b.ratio, &reference, &sample) else {
                            continue;
                        };
                        t.p_value = (t.p_value * tried).min(1.0);
                        if t.p_value <= ALPHA {
                            culprits.push(c.clone());
                            if fresh.as_ref().is_none_or(|f: &ShiftTest| t.p_value < f.p_value) {
                                fresh = Some(t);
                            }
                        }
                    }
                }
                if let Some(test) = fresh.or_else(|| b.test(&sample)) {
                    pending.push(PendingShift {
                        entry: out.entries.len() + entries_here.len(),
                        metric: b.metric.clone(),
                        test,
                        culprits,
                    });
                }
            }
        }
        entries_here.push(entry);
    }
    out.entries.extend(entries_here);
    Ok(())
}

fn classify(iso: &[Observation], shared: &[Observation]) -> Initial {
    initial(&iso.iter().collect::<Vec<_>>(), &shared.iter().collect::<Vec<_>>())
}

fn run_isolated(prober: &mut Prober<'_>, name: &str, iso: &mut BTreeMap<String, Vec<Observation>>) -> Result<(), Error> {
    let obs = prober.run_once(&[name.to_owned()], None, EvidenceKind::Isolated, Purpose::Isolated)?;
    if let (Some(o), Some(v)) = (obs.into_iter().find(|o| o.name == name), iso.get_mut(name)) {
        v.push(o);
    }
    Ok(())
}

/// Re-run the shortest flipping order once: does the flip come back?
fn reproduce(
    loc: &mut Localizer<'_, '_>,
    name: &str,
    shared: &[&Observation],
    effect: &dyn Fn(&Observation) -> bool,
    localized: &mut Localized,
) -> Result<bool, Error> {
    let Some(src) = shared.iter().filter(|o| effect(o)).min_by_key(|o| o.prefix.len()) else {
        return Ok(false);
    };
    let prober = loc.prober();
    let seed = if prober.target().honours_order() { None } else { src.seed };
    let obs = prober.run_once(&src.order(), seed, EvidenceKind::Localize, Purpose::Localization)?;
    localized.runs += 1;
    let again = obs.iter().find(|o| o.name == name);
    let ok = again.is_some_and(effect);
    localized.evidence.push(Evidence {
        kind: EvidenceKind::Localize,
        order: obs.iter().filter(|o| o.ran()).map(|o| o.name.clone()).collect(),
        seed,
        outcome: again.map_or("not_run".into(), |o| o.outcome.status().as_str().into()),
        detail: format!(
            "rerun of the shortest flipping order: {}",
            if ok { "reproduced" } else { "did not reproduce" }
        ),
        message: again.and_then(Observation::message),
    });
    Ok(ok)
}

fn evidence(
    name: &str,
    verdict: OrderVerdict,
    iso: &[Observation],
    shared: &[Observation],
    loc: &Localized,
    note: Option<&str>,
) -> Vec<Evidence> {
    let mut ev = Vec::new();
    let mut by_status: BTreeMap<&'static str, usize> = BTreeMap::new();
    for o in iso {
        *by_status.entry(o.outcome.status().as_str()).or_default() += 1;
    }
    for (status, k) in &by_status {
        ev.push(Evidence {
            kind: EvidenceKind::Isolated,
            order: vec![name.to_owned()],
            seed: None,
            outcome: (*status).to_owned(),
            detail: format!("{k} of {} isolated runs", iso.len()),
            message: first_message(iso, status),
        });
    }
    if matches!(verdict, OrderVerdict::Pass | OrderVerdict::Fail) {
        let mut by: BTreeMap<&'static str, usize> = BTreeMap::new();
        for o in shared {
            *by.entry(o.outcome.status().as_str()).or_default() += 1;
        }
        for (status, k) in by {
            ev.push(Evidence {
                kind: EvidenceKind::Order,
                order: vec![],
                seed: None,
                outcome: status.to_owned(),
                detail: format!("{k} of {} shared runs (schedules in detect-run.json)", shared.len()),
                message: first_message(shared, status),
            });
        }
    } else {
        for o in shared {
            ev.push(Evidence {
                kind: o.kind,
                order: o.order(),
                seed: o.seed,
                outcome: o.outcome.status().as_str().to_owned(),
                detail: format!("shared run, after {} others", o.prefix.len()),
                message: o.message(),
            });
        }
    }
    ev.extend(loc.evidence.iter().cloned());
    if matches!(verdict, OrderVerdict::Victim | OrderVerdict::Brittle) || loc.runs > 0 {
        ev.push(Evidence {
            kind: EvidenceKind::Localize,
            order: vec![],
            seed: None,
            outcome: String::new(),
            detail: match note {
                Some(n) => format!("{n}; localization took {} runs", loc.runs),
                None => format!("localization took {} runs", loc.runs),
            },
            message: None,
        });
    }
    ev
}

/// The message of the first of `obs` that ended with `status` (a failure's text, kept once per status).
fn first_message(obs: &[Observation], status: &str) -> Option<String> {
    obs.iter()
        .find(|o| o.outcome.status().as_str() == status)
        .and_then(Observation::message)
}
