//! `BenchmarkGroup` and `BenchmarkId`: benchmarks that share a name prefix and settings. A
//! benchmark's harness name is criterion's id: `group/function/parameter`, `group/function`
//! or `group/parameter`.

use std::fmt::Display;
use std::panic::Location;
use std::time::Duration;

use crate::bencher::Bencher;
use crate::criterion::Criterion;
use crate::errors::BenchError;
use crate::measurement::{Measurement, WallTime};
use crate::registry;
use crate::settings::{PlotConfiguration, SamplingMode, Throughput};

/// A benchmark's id inside its group: a function name, a parameter, or both.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BenchmarkId {
    function_name: Option<String>,
    parameter: Option<String>,
}

impl BenchmarkId {
    /// `function/parameter`.
    pub fn new<S: Into<String>, P: Display>(function_name: S, parameter: P) -> BenchmarkId {
        BenchmarkId {
            function_name: Some(function_name.into()),
            parameter: Some(parameter.to_string()),
        }
    }

    /// `parameter` alone: one function over several inputs.
    pub fn from_parameter<P: Display>(parameter: P) -> BenchmarkId {
        BenchmarkId {
            function_name: None,
            parameter: Some(parameter.to_string()),
        }
    }

    /// The id as a harness name below `group`, as criterion's full id is made.
    fn under(&self, group: &str) -> Result<String, BenchError> {
        if self.function_name.as_deref() == Some("") {
            return Err(BenchError::EmptyName { group: group.to_owned() });
        }
        let parts = [Some(group), self.function_name.as_deref(), self.parameter.as_deref()];
        Ok(parts.into_iter().flatten().collect::<Vec<_>>().join("/"))
    }

    /// For `Criterion::bench_with_input`: the function name is the group.
    pub(crate) fn top_level(self) -> Result<String, BenchError> {
        match (self.function_name, self.parameter) {
            (Some(f), Some(p)) => Ok(format!("{f}/{p}")),
            (Some(f), None) => Ok(f),
            (None, p) => Err(BenchError::ParameterOnly {
                parameter: p.unwrap_or_default(),
            }),
        }
    }
}

mod private {
    pub trait Sealed {}
    impl Sealed for super::BenchmarkId {}
    impl<S: Into<String>> Sealed for S {}
}

/// What `bench_function` / `bench_with_input` accept as an id: a [`BenchmarkId`] or a string.
pub trait IntoBenchmarkId: private::Sealed {
    /// The id.
    fn into_benchmark_id(self) -> BenchmarkId;
}

impl IntoBenchmarkId for BenchmarkId {
    fn into_benchmark_id(self) -> BenchmarkId {
        self
    }
}

impl<S: Into<String>> IntoBenchmarkId for S {
    fn into_benchmark_id(self) -> BenchmarkId {
        BenchmarkId {
            function_name: Some(self.into()),
            parameter: None,
        }
    }
}

/// Benchmarks named `group/...`, sharing a [`Throughput`]. Made by
/// [`Criterion::benchmark_group`]. The sampling and analysis settings are accepted and
/// ignored (see the crate docs).
pub struct BenchmarkGroup<'a, M: Measurement = WallTime> {
    _criterion: &'a mut Criterion<M>,
    name: String,
    throughput: Option<Throughput>,
    benchmarks: usize,
}

impl<'a, M: Measurement> BenchmarkGroup<'a, M> {
    pub(crate) fn new(criterion: &'a mut Criterion<M>, name: String) -> Self {
        BenchmarkGroup {
            _criterion: criterion,
            name,
            throughput: None,
            benchmarks: 0,
        }
    }

    /// Ignored: `--iterations` and `--repeat` set the harness's samples.
    pub fn sample_size(&mut self, _n: usize) -> &mut Self {
        self
    }

    /// Ignored: `--warmup` sets the discarded calls per process.
    pub fn warm_up_time(&mut self, _dur: Duration) -> &mut Self {
        self
    }

    /// Ignored: the harness's samples are counted, not timed (`--iterations`, `--repeat`,
    /// `--target-ci`).
    pub fn measurement_time(&mut self, _dur: Duration) -> &mut Self {
        self
    }

    /// Ignored: the harness's bootstrap is fixed (docs/statistics.md).
    pub fn nresamples(&mut self, _n: usize) -> &mut Self {
        self
    }

    /// Ignored: `compare` has its own floor and margins.
    pub fn noise_threshold(&mut self, _threshold: f64) -> &mut Self {
        self
    }

    /// Ignored: intervals are 95%.
    pub fn confidence_level(&mut self, _cl: f64) -> &mut Self {
        self
    }

    /// Ignored: `compare` has its own test.
    pub fn significance_level(&mut self, _sl: f64) -> &mut Self {
        self
    }

    /// Ignored: the harness draws its own charts.
    pub fn plot_config(&mut self, _config: PlotConfiguration) -> &mut Self {
        self
    }

    /// Ignored: see [`SamplingMode`].
    pub fn sampling_mode(&mut self, _mode: SamplingMode) -> &mut Self {
        self
    }

    /// The work one call does in the benchmarks declared after this: each also reports the
    /// matching rate (see [`Throughput`]).
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.throughput = Some(throughput);
        self
    }

    /// Benchmark `f`, named `group/id`.
    #[track_caller]
    pub fn bench_function<ID: IntoBenchmarkId, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        let id = id.into_benchmark_id().under(&self.name);
        self.benchmarks += 1;
        registry::bench(id, self.throughput.as_ref(), Location::caller(), |b| f(b));
        self
    }

    /// Benchmark `f` on `input`, named `group/id`.
    #[track_caller]
    pub fn bench_with_input<ID: IntoBenchmarkId, F, I>(&mut self, id: ID, input: &I, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        let id = id.into_benchmark_id().under(&self.name);
        self.benchmarks += 1;
        registry::bench(id, self.throughput.as_ref(), Location::caller(), |b| f(b, input));
        self
    }

    /// End the group (criterion prints its summary here; the harness reports at the end).
    pub fn finish(self) {}
}

impl<M: Measurement> Drop for BenchmarkGroup<'_, M> {
    /// A group with no benchmarks lists nothing, as in criterion; the listing says so, since a
    /// bench file left with no benchmark at all then stops with "no scenario matches".
    fn drop(&mut self) {
        // Dropped while the group function unwinds, its benchmarks are missing, not absent: the
        // listing reports the panic itself.
        if self.benchmarks == 0 && registry::listing() && !std::thread::panicking() {
            eprintln!("harness-criterion: benchmark group {:?} has no benchmarks", self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_criterions_full_ids() {
        assert_eq!(BenchmarkId::new("f", 10).under("g").unwrap(), "g/f/10");
        assert_eq!(BenchmarkId::from_parameter("1KB").under("g").unwrap(), "g/1KB");
        assert_eq!("f".into_benchmark_id().under("g").unwrap(), "g/f");
        assert_eq!(BenchmarkId::new("f", 3).top_level().unwrap(), "f/3");
        assert!(matches!(
            BenchmarkId::from_parameter(3).top_level(),
            Err(BenchError::ParameterOnly { parameter }) if parameter == "3"
        ));
        assert!(matches!("".into_benchmark_id().under("g"), Err(BenchError::EmptyName { .. })));
    }
}
