//! `Criterion`: the configuration a `criterion_group!` hands each bench function, and its
//! `bench_function` / `bench_with_input` / `benchmark_group`. Its settings are accepted and
//! ignored (the harness's command line decides); each method's docs say what takes its place.

use std::marker::PhantomData;
use std::panic::Location;
use std::path::Path;
use std::time::Duration;

use crate::bencher::Bencher;
use crate::errors::BenchError;
use crate::group::{BenchmarkGroup, BenchmarkId};
use crate::measurement::{Measurement, WallTime};
use crate::registry;
use crate::settings::PlottingBackend;

/// The benchmark manager a bench function receives.
pub struct Criterion<M: Measurement = WallTime> {
    _measurement: PhantomData<M>,
}

impl Default for Criterion {
    fn default() -> Criterion {
        Criterion { _measurement: PhantomData }
    }
}

impl<M: Measurement> Criterion<M> {
    /// Ignored: `--iterations` and `--repeat` set the harness's samples.
    pub fn sample_size(self, _n: usize) -> Criterion<M> {
        self
    }

    /// Ignored: `--warmup` sets the discarded calls per process.
    pub fn warm_up_time(self, _dur: Duration) -> Criterion<M> {
        self
    }

    /// Ignored: the harness's samples are counted, not timed (`--iterations`, `--repeat`,
    /// `--target-ci`).
    pub fn measurement_time(self, _dur: Duration) -> Criterion<M> {
        self
    }

    /// Ignored: the harness's bootstrap is fixed (docs/statistics.md).
    pub fn nresamples(self, _n: usize) -> Criterion<M> {
        self
    }

    /// Ignored: `compare` has its own floor and margins.
    pub fn noise_threshold(self, _threshold: f64) -> Criterion<M> {
        self
    }

    /// Ignored: intervals are 95%.
    pub fn confidence_level(self, _cl: f64) -> Criterion<M> {
        self
    }

    /// Ignored: `compare` has its own test.
    pub fn significance_level(self, _sl: f64) -> Criterion<M> {
        self
    }

    /// Ignored: the harness draws its own charts into `index.html`.
    pub fn plotting_backend(self, _backend: PlottingBackend) -> Criterion<M> {
        self
    }

    /// Ignored: the harness always writes `index.html`.
    pub fn with_plots(self) -> Criterion<M> {
        self
    }

    /// Ignored: the harness always writes `index.html`.
    pub fn without_plots(self) -> Criterion<M> {
        self
    }

    /// Ignored: every run's `results.json` is kept under `--out`; `compare` and `history`
    /// take the place of baselines.
    pub fn save_baseline(self, _baseline: String) -> Criterion<M> {
        self
    }

    /// Ignored: see [`save_baseline`](Self::save_baseline).
    pub fn retain_baseline(self, _baseline: String, _strict: bool) -> Criterion<M> {
        self
    }

    /// Ignored: filters are the harness's positional arguments (`cargo bench -- NAME`).
    pub fn with_filter<S: Into<String>>(self, _filter: S) -> Criterion<M> {
        self
    }

    /// Ignored.
    pub fn with_output_color(self, _enabled: bool) -> Criterion<M> {
        self
    }

    /// Ignored: `--out DIR`.
    pub fn output_directory(self, _path: &Path) -> Criterion<M> {
        self
    }

    /// Ignored.
    pub fn profile_time(self, _profile_time: Option<Duration>) -> Criterion<M> {
        self
    }

    /// Returns `self`: the harness reads the command line itself.
    pub fn configure_from_args(self) -> Criterion<M> {
        self
    }

    /// Does nothing: the harness prints its summary table at the end of a run.
    pub fn final_summary(&self) {}

    /// A group whose benchmarks are named `group_name/...`.
    pub fn benchmark_group<S: Into<String>>(&mut self, group_name: S) -> BenchmarkGroup<'_, M> {
        BenchmarkGroup::new(self, group_name.into())
    }

    /// Benchmark `f`, named `id`.
    #[track_caller]
    pub fn bench_function<F>(&mut self, id: &str, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        let id = match id {
            "" => Err(BenchError::EmptyName { group: String::new() }),
            id => Ok(id.to_owned()),
        };
        registry::bench(id, None, Location::caller(), |b| f(b));
        self
    }

    /// Benchmark `f` on `input`, named `function/parameter`; `id` must have a function name
    /// (a `from_parameter` id is a failed benchmark saying so, as criterion refuses it too).
    #[track_caller]
    pub fn bench_with_input<F, I>(&mut self, id: BenchmarkId, input: &I, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        registry::bench(id.top_level(), None, Location::caller(), |b| f(b, input));
        self
    }
}
