//! `SimTarget`: an in-memory target with planted order dependencies (flags that scenarios set,
//! clear and read), for fast tests of detect and for the cost benchmark. It answers like a
//! suite binary (exact order) or like a libtest binary (name order, or libtest's seeded
//! permutation; another one on request).

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::sync::Mutex;
use std::time::Duration;

use super::subject::OrderTarget;
use crate::errors::Error;
use crate::execute::{ProcessEnd, ProcessOutput, ProcessResult, ScenarioResult, TargetRequest};
use crate::model::Listed;
use crate::model::{Better, EnvChange, MetricSample, Outcome, ScenarioKind, Unit};
use crate::plan::SeededOrder;

/// One simulated scenario and the process-global flags it touches.
#[derive(Debug, Clone, Default)]
pub struct SimScenario {
    name: String,
    sets: Vec<String>,
    clears: Vec<String>,
    fails_if: Vec<String>,
    fails_unless: Option<String>,
    flaky: Option<f64>,
    crashes: bool,
    always_fails: bool,
    measure: Option<(f64, String, f64)>,
    env_var: Option<String>,
    takes: Option<Duration>,
}

impl SimScenario {
    /// A scenario that passes and touches nothing.
    pub fn new(name: impl Into<String>) -> Self {
        SimScenario {
            name: name.into(),
            ..Default::default()
        }
    }
    /// Sets `flag` when it runs (a polluter or state-setter).
    pub fn sets(mut self, flag: &str) -> Self {
        self.sets.push(flag.into());
        self
    }
    /// Clears `flag` when it runs (a cleaner).
    pub fn clears(mut self, flag: &str) -> Self {
        self.clears.push(flag.into());
        self
    }
    /// Fails when `flag` is set (a victim).
    pub fn fails_if(mut self, flag: &str) -> Self {
        self.fails_if.push(flag.into());
        self
    }
    /// Fails unless `flag` is set (brittle).
    pub fn fails_unless(mut self, flag: &str) -> Self {
        self.fails_unless = Some(flag.into());
        self
    }
    /// Fails with probability `p`, whatever ran before.
    pub fn flaky(mut self, p: f64) -> Self {
        self.flaky = Some(p);
        self
    }
    /// Kills its process (SIGABRT).
    pub fn crashes(mut self) -> Self {
        self.crashes = true;
        self
    }
    /// Always fails.
    pub fn always_fails(mut self) -> Self {
        self.always_fails = true;
        self
    }
    /// A measurement of `base` ns, times `factor` when `flag` is set.
    pub fn measures(mut self, base: f64, flag: &str, factor: f64) -> Self {
        self.measure = Some((base, flag.into(), factor));
        self
    }
    /// Sets an environment variable (a hazard).
    pub fn sets_env(mut self, var: &str) -> Self {
        self.env_var = Some(var.into());
        self
    }
    /// Takes this long whenever it runs (a slow test, for `--budget`).
    pub fn takes(mut self, d: Duration) -> Self {
        self.takes = Some(d);
        self
    }
}

/// An in-memory target.
pub struct SimTarget {
    scenarios: Vec<SimScenario>,
    honours_order: bool,
    rng: Mutex<SeededOrder>,
    unlike_libtest: bool,
}

impl SimTarget {
    /// `honours_order`: suite-like (true) or libtest-like (false); `seed` drives flakiness and noise.
    pub fn new(scenarios: Vec<SimScenario>, honours_order: bool, seed: u64) -> Self {
        let mut scenarios = scenarios;
        scenarios.sort_by(|a, b| a.name.cmp(&b.name));
        SimTarget {
            scenarios,
            honours_order,
            rng: Mutex::new(SeededOrder::new(seed)),
            unlike_libtest: false,
        }
    }

    fn uniform(&self) -> f64 {
        let mut rng = self.rng.lock().expect("sim rng");
        (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Shuffle unlike libtest (a binary built by another toolchain): detect must notice that
    /// its predictions fail and try seeds instead.
    pub fn shuffling_unlike_libtest(mut self) -> Self {
        self.unlike_libtest = true;
        self
    }

    /// The order a libtest-like target runs `names` in.
    fn libtest_order(&self, names: &[String], seed: Option<u64>) -> Vec<String> {
        let mut v: Vec<String> = names.to_vec();
        v.sort();
        if !self.unlike_libtest {
            return seed.map_or(v, |s| super::libtest_shuffle::predict(names, s));
        }
        if let Some(s) = seed {
            // Like libtest, the permutation depends on the seed and the set of names.
            let h = v
                .iter()
                .flat_map(|n| n.bytes())
                .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
            SeededOrder::new(s ^ h).shuffle(&mut v);
        }
        v
    }

    /// One scenario that starts in a process whose earlier scenarios left `flags` set: its
    /// result, and the flags it sets or clears for those after it.
    fn simulate<'f>(&self, s: &'f SimScenario, flags: &mut BTreeSet<&'f str>) -> ScenarioResult {
        let polluted = s.fails_if.iter().any(|f| flags.contains(f.as_str()));
        let unset = s.fails_unless.as_ref().is_some_and(|f| !flags.contains(f.as_str()));
        let flaked = s.flaky.is_some_and(|p| self.uniform() < p);
        let metrics = match &s.measure {
            Some((base, flag, factor)) => {
                let f = if flags.contains(flag.as_str()) { *factor } else { 1.0 };
                let noise = 1.0 + 0.04 * (self.uniform() - 0.5);
                vec![MetricSample {
                    name: "time_ns".into(),
                    unit: Unit::Nanoseconds,
                    better: Better::Lower,
                    value: base * f * noise,
                    iterations: vec![],
                    source: None,
                    profile: None,
                    distortion: None,
                    speed_probe_ns: None,
                }]
            }
            None => vec![],
        };
        let outcome = if s.always_fails || polluted || unset || flaked {
            Outcome::Failed { message: "planted".into() }
        } else {
            Outcome::Passed
        };
        let env = s
            .env_var
            .iter()
            .map(|v| EnvChange {
                name: v.clone(),
                before: None,
                after: Some("1".into()),
            })
            .collect();
        for f in &s.sets {
            flags.insert(f);
        }
        for f in &s.clears {
            flags.remove(f.as_str());
        }
        result(&s.name, outcome, metrics, env)
    }
}

impl OrderTarget for SimTarget {
    fn describe(&self) -> String {
        format!("simulated target ({} scenarios)", self.scenarios.len())
    }

    fn list(&self) -> Result<Vec<Listed>, Error> {
        Ok(self
            .scenarios
            .iter()
            .map(|s| Listed {
                name: s.name.clone(),
                kind: if s.measure.is_some() {
                    ScenarioKind::Measure
                } else {
                    ScenarioKind::Check
                },
                ignored: None,
                env: BTreeMap::new(),
                timeout: None,
                uncounted: None,
            })
            .collect())
    }

    fn run_seeded(&self, req: &TargetRequest, seed: Option<u64>) -> io::Result<ProcessResult> {
        let order = if self.honours_order {
            req.names.clone()
        } else {
            self.libtest_order(&req.names, seed)
        };
        let started = std::time::Instant::now();
        let mut flags: BTreeSet<&str> = BTreeSet::new();
        let mut results = Vec::new();
        let mut end = ProcessEnd::Exited(0);
        for name in &order {
            if end != ProcessEnd::Exited(0) {
                results.push(result(name, Outcome::NotRun, vec![], vec![]));
                continue;
            }
            let found = self.scenarios.binary_search_by(|s| s.name.as_str().cmp(name)).ok();
            let Some(s) = found.map(|i| &self.scenarios[i]) else {
                results.push(result(
                    name,
                    Outcome::Failed {
                        message: "no such scenario".into(),
                    },
                    vec![],
                    vec![],
                ));
                continue;
            };
            if s.crashes {
                end = ProcessEnd::Signaled(6);
                results.push(result(
                    name,
                    Outcome::Crashed {
                        signal: "SIGABRT".into(),
                        signal_number: 6,
                    },
                    vec![],
                    vec![],
                ));
                continue;
            }
            if let Some(d) = s.takes {
                std::thread::sleep(d);
            }
            results.push(self.simulate(s, &mut flags));
        }
        Ok(ProcessResult {
            results,
            process: ProcessOutput {
                end,
                stdout: String::new(),
                stderr: String::new(),
                wall: started.elapsed(),
                usage: None,
            },
        })
    }

    fn honours_order(&self) -> bool {
        self.honours_order
    }

    fn kind_name(&self) -> &'static str {
        if self.honours_order { "suite" } else { "libtest" }
    }

    fn observes_env(&self) -> bool {
        self.honours_order
    }
}

fn result(name: &str, outcome: Outcome, metrics: Vec<MetricSample>, env_changes: Vec<EnvChange>) -> ScenarioResult {
    ScenarioResult {
        name: name.to_owned(),
        outcome,
        metrics,
        env_changes,
    }
}
