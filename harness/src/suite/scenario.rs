//! `Scenario`: a named check or measurement with its options, and its env-matrix `Variant`s.

use std::collections::BTreeMap;
use std::fmt::{self, Display};
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;

use super::Bencher;
use crate::model::ScenarioKind;

/// The code a scenario runs.
#[derive(Clone)]
pub(crate) enum Body {
    /// A check: `Ok` passes, `Err(message)` or a panic fails.
    Check(Arc<dyn Fn() -> Result<(), String> + Send + Sync>),
    /// A measurement: drives a [`Bencher`].
    Measure(Arc<dyn Fn(&mut Bencher) + Send + Sync>),
}

/// What a check function may return: `()` or `Result<(), E: Display>`.
pub trait CheckResult {
    /// `Err(message)` on failure.
    fn into_result(self) -> Result<(), String>;
}

impl CheckResult for () {
    fn into_result(self) -> Result<(), String> {
        Ok(())
    }
}

impl<E: Display> CheckResult for Result<(), E> {
    fn into_result(self) -> Result<(), String> {
        self.map_err(|e| e.to_string())
    }
}

/// The panic payload [`skip`] unwinds with; the child reports it as `Skipped`, not failed.
pub(crate) struct SkipSignal(pub String);

/// Skip the running scenario at run time with a reason (e.g. "no CUDA driver").
/// A skip is reported as skipped: never failed, never passed.
pub fn skip(reason: impl Into<String>) -> ! {
    std::panic::resume_unwind(Box::new(SkipSignal(reason.into())))
}

/// Where a scenario was built in its suite's source: the [`Scenario::check`] or
/// [`Scenario::measure`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// The source file, as `file!()` gives it.
    pub file: &'static str,
    /// The line of the call.
    pub line: u32,
}

impl Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A named check or measurement, with its options. Build with [`Scenario::check`] or
/// [`Scenario::measure`] and the builder methods.
#[derive(Clone)]
pub struct Scenario {
    pub(crate) name: String,
    pub(crate) source: Source,
    pub(crate) body: Body,
    pub(crate) env_matrix: Vec<(String, Vec<String>)>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) ignored: Option<String>,
    pub(crate) iterations: Option<usize>,
    pub(crate) warmup: Option<usize>,
    pub(crate) uncounted: Option<String>,
}

impl Scenario {
    /// A check named `name`. `f` returns `()` or `Result<(), E: Display>`; a panic fails it.
    #[track_caller]
    pub fn check<R: CheckResult>(name: impl Into<String>, f: impl Fn() -> R + Send + Sync + 'static) -> Self {
        Self::new(name.into(), Body::Check(Arc::new(move || f().into_result())))
    }

    /// A measurement named `name`: `f` drives the [`Bencher`] it is given.
    #[track_caller]
    pub fn measure(name: impl Into<String>, f: impl Fn(&mut Bencher) + Send + Sync + 'static) -> Self {
        Self::new(name.into(), Body::Measure(Arc::new(f)))
    }

    #[track_caller]
    fn new(name: String, body: Body) -> Self {
        let caller = Location::caller();
        Scenario {
            name,
            source: Source {
                file: caller.file(),
                line: caller.line(),
            },
            body,
            env_matrix: Vec::new(),
            timeout: None,
            ignored: None,
            iterations: None,
            warmup: None,
            uncounted: None,
        }
    }

    /// Expand into one variant per value of `var`; each variant's process starts with `var` set.
    /// Several calls multiply into a full matrix.
    pub fn env<I, S>(mut self, var: impl Into<String>, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.env_matrix.push((var.into(), values.into_iter().map(Into::into).collect()));
        self
    }

    /// Kill each run of this scenario after `timeout` (overrides `--timeout`).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Do not run unless asked (`--ignored`, `--include-ignored`); `reason` is shown.
    pub fn ignore(mut self, reason: impl Into<String>) -> Self {
        self.ignored = Some(reason.into());
        self
    }

    /// Measured iterations per process (overrides `--iterations`).
    pub fn iterations(mut self, iterations: usize) -> Self {
        self.iterations = Some(iterations);
        self
    }

    /// Discarded warm-up iterations per process (overrides `--warmup`).
    pub fn warmup(mut self, warmup: usize) -> Self {
        self.warmup = Some(warmup);
        self
    }

    /// Never count this measurement under `--counters`, saying `reason` in the output: e.g.
    /// "CUDA kernels: host instructions mean nothing". It keeps its wall-time processes (and
    /// its own timing, such as CUDA events); it is never run under valgrind.
    pub fn uncounted(mut self, reason: impl Into<String>) -> Self {
        self.uncounted = Some(reason.into());
        self
    }

    /// Say the scenario was built at `source` instead of the `check` / `measure` call: for a
    /// generator (the criterion adapter) whose user's own line is the one worth naming when two
    /// scenarios share a name.
    pub fn at(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// The base name, without variant suffix.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where it was built (the `check` or `measure` call).
    pub fn source(&self) -> Source {
        self.source
    }

    /// Check or measure.
    pub fn kind(&self) -> ScenarioKind {
        match self.body {
            Body::Check(_) => ScenarioKind::Check,
            Body::Measure(_) => ScenarioKind::Measure,
        }
    }

    /// The env-matrix expansion: one variant per combination, or one plain variant.
    pub(crate) fn variants(&self) -> Vec<Variant> {
        let mut combos: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
        for (var, values) in &self.env_matrix {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    values.iter().map(move |v| {
                        let mut c = c.clone();
                        c.insert(var.clone(), v.clone());
                        c
                    })
                })
                .collect();
        }
        combos.into_iter().map(|env| Variant::new(self, env)).collect()
    }
}

/// One runnable expansion of a scenario: its full name and the env its processes start with.
#[derive(Clone)]
pub(crate) struct Variant {
    /// `name` or `name[K=V,K2=V2]`: the name `--list` prints and filters match.
    pub full_name: String,
    /// The env-matrix values.
    pub env: BTreeMap<String, String>,
    /// The scenario it came from.
    pub scenario: Scenario,
}

impl Variant {
    fn new(scenario: &Scenario, env: BTreeMap<String, String>) -> Self {
        let full_name = if env.is_empty() {
            scenario.name.clone()
        } else {
            let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{}[{}]", scenario.name, pairs.join(","))
        };
        Variant {
            full_name,
            env,
            scenario: scenario.clone(),
        }
    }
}
