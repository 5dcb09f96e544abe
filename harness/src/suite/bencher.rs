//! `Bencher`: what a measurement drives. It runs warm-up and measured iterations in the child
//! process and collects the metrics that process reports.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::counters::Counting;
use crate::model::{Better, GpuSettings, MetricSample, Unit};

/// Work done by one iteration, for derived throughput metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Throughput {
    /// Floating-point operations per iteration: adds `gflop_per_s`.
    Flops(u64),
    /// Bytes moved per iteration: adds `gbytes_per_s` (decimal: 10^9 bytes per second).
    Bytes(u64),
    /// Elements (items, values, lines) handled per iteration: adds `melem_per_s`, in millions
    /// per second, so that the usual per-call counts of a collection benchmark read as whole
    /// numbers rather than `0.0004`.
    Elements(u64),
}

impl Throughput {
    /// The rate this work makes: its metric name, unit, and the work per call scaled so that
    /// work per nanosecond is the rate in that unit (giga-work per second; Elements in millions).
    pub(crate) fn rate(self) -> (&'static str, Unit, f64) {
        match self {
            Throughput::Flops(n) => ("gflop_per_s", Unit::GFlopsPerSec, n as f64),
            Throughput::Bytes(n) => ("gbytes_per_s", Unit::GBytesPerSec, n as f64),
            // Millions, not billions: a thousand times the work per ns.
            Throughput::Elements(n) => ("melem_per_s", Unit::MElementsPerSec, n as f64 * 1e3),
        }
    }
}

/// Shortest timed sample. Calls faster than this are batched so the clock's resolution and
/// cost (tens of ns) stay below 0.5% of every sample.
const MIN_SAMPLE: Duration = Duration::from_micros(20);

use super::{allocator_state, speed_probe};

/// Drives one measurement inside its process. See [`Bencher::iter`].
///
/// Under `--counters=valgrind` the process runs under Callgrind and every `iter*` method counts
/// instead of timing: `warmup` uncounted calls, then `iterations` calls each counted alone
/// (set-up and input building outside the count); only `instructions` and `estimated_cycles`
/// are reported. Under `--counters=perf` the timed samples are also counted.
pub struct Bencher {
    pub(super) iterations: usize,
    pub(super) warmup: usize,
    pub(super) throughput: Vec<Throughput>,
    pub(super) metrics: Vec<MetricSample>,
    /// The sample rules of [`iter_gpu`](Self::iter_gpu) (`suite/gpu.rs`).
    pub(super) gpu: GpuSettings,
    pub(super) counting: Option<Counting>,
    pub(super) trouble: Option<BenchEnd>,
    /// The speed probe read before a CPU-timed measurement, for its metrics (`speed_probe.rs`).
    pub(super) speed_start: Option<f64>,
    /// Whether `iter` and `iter_batched` check the allocator's state (`allocator_state.rs`). It
    /// sets process-wide malloc thresholds for a moment, so a unit-test binary, whose tests share
    /// one process, leaves it off unless a test, in a process of its own, turns it on.
    pub(super) allocator_check: bool,
}

/// How a measurement ended, for the child's record.
#[derive(Debug)]
pub(crate) enum BenchEnd {
    /// Its metrics.
    Metrics(Vec<MetricSample>),
    /// It cannot report (counting broke, or it reported nothing).
    Failed(String),
    /// It cannot be counted (it times itself): a counted process skips it.
    Uncounted(String),
}

impl Bencher {
    pub(crate) fn new(iterations: usize, warmup: usize) -> Self {
        Bencher {
            iterations: iterations.max(1),
            warmup,
            throughput: Vec::new(),
            metrics: Vec::new(),
            gpu: GpuSettings::default(),
            counting: None,
            trouble: None,
            speed_start: None,
            allocator_check: !cfg!(test),
        }
    }

    /// Turn the allocator-state check on or off (see [`Bencher::allocator_check`]).
    #[cfg(test)]
    pub(crate) fn with_allocator_check(mut self, on: bool) -> Self {
        self.allocator_check = on;
        self
    }

    /// The GPU sample rules the command asked for.
    pub(crate) fn with_gpu(mut self, gpu: GpuSettings) -> Self {
        self.gpu = gpu;
        self
    }

    /// Count with `counting` as well as (perf) or instead of (Callgrind) timing.
    pub(crate) fn counting(mut self, counting: Counting) -> Self {
        self.counting = Some(counting);
        self
    }

    /// Measured iterations this process runs (in a counting process after an `iter*` call:
    /// the calls it counted, which a slow routine may make fewer).
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// Whether this process counts instead of timing (`--counters=valgrind`): a scenario that
    /// prepares something costly only for wall time can skip it.
    pub fn counts_only(&self) -> bool {
        self.counting.as_ref().is_some_and(Counting::counts_only)
    }

    /// Declare the work one iteration does; `iter` then also reports the matching rate.
    pub fn throughput(&mut self, t: Throughput) -> &mut Self {
        self.throughput.push(t);
        self
    }

    /// Time `f`: `warmup` discarded iterations, then `iterations` measured ones. Reports
    /// `latency_ns` (per call) and any declared throughput. Calls shorter than 20 us are timed
    /// in batches and divided; the batch size comes from the last warm-up call, so with
    /// `warmup` 0 nothing is discarded and every sample is one call. After the samples, a routine
    /// that takes fresh pages each call is timed again with malloc keeping and returning freed
    /// memory (`allocator_state.rs`); where the two differ, the row is `unstable`.
    pub fn iter<R>(&mut self, mut f: impl FnMut() -> R) {
        if self.counts_only() {
            return self.count_calls(|| (), |()| f());
        }
        self.speed_start = Some(speed_probe::read());
        let mut last = None;
        for _ in 0..self.warmup {
            let t = Instant::now();
            black_box(f());
            last = Some(t.elapsed());
        }
        let batch = batch_size(last);
        let mut per_call = Vec::with_capacity(self.iterations);
        for _ in 0..self.iterations {
            self.sample_start();
            let t = Instant::now();
            for _ in 0..batch {
                black_box(f());
            }
            let elapsed = t.elapsed();
            self.sample_end(batch);
            per_call.push(elapsed.as_nanos() as f64 / batch as f64);
        }
        let allocator = allocator_state::check(self.allocator_check, self.iterations, || {
            let faults = allocator_state::minor_faults();
            let t = Instant::now();
            for _ in 0..batch {
                black_box(f());
            }
            let ns = t.elapsed().as_nanos() as f64;
            allocator_state::Timed::of(ns, allocator_state::minor_faults() - faults, batch)
        });
        self.record_latencies(per_call);
        self.add_distortion(allocator);
    }

    /// Like [`iter`](Self::iter), but `f` times itself (CUDA events, an external clock) and
    /// returns the duration of one iteration. Counted like `iter` (the returned durations are
    /// dropped in a process that only counts).
    pub fn iter_timed(&mut self, mut f: impl FnMut() -> Duration) {
        if self.counts_only() {
            return self.count_calls(|| (), |()| f());
        }
        for _ in 0..self.warmup {
            black_box(f());
        }
        let mut per_call = Vec::with_capacity(self.iterations);
        for _ in 0..self.iterations {
            self.sample_start();
            let d = f();
            self.sample_end(1);
            per_call.push(d.as_nanos() as f64);
        }
        self.record_latencies(per_call);
    }

    /// criterion's `iter_custom`: `f(n)` runs the routine `n` times, timing it itself, and
    /// returns the total. One warm-up call of `f(1)` sizes the batches as in `iter`. It feeds
    /// wall time only: a counted process cannot tell the routine from `f`'s own set-up, so it
    /// skips this measurement and says so.
    pub fn iter_custom(&mut self, mut f: impl FnMut(u64) -> Duration) {
        if self.counts_only() {
            self.trouble = Some(BenchEnd::Uncounted(
                "not counted: iter_custom times itself, so its routine cannot be told from its set-up".to_owned(),
            ));
            return;
        }
        self.speed_start = Some(speed_probe::read());
        let mut last = None;
        for _ in 0..self.warmup {
            last = Some(f(1));
        }
        let batch = batch_size(last);
        let per_call = (0..self.iterations).map(|_| f(batch).as_nanos() as f64 / batch as f64).collect();
        self.record_latencies(per_call);
    }

    /// Under Callgrind: count each call of `routine` alone, inputs from `setup` made outside.
    pub(super) fn count_calls<I, R>(&mut self, setup: impl FnMut() -> I, routine: impl FnMut(I) -> R) {
        if matches!(self.counting, Some(Counting::Allocs(_))) {
            return super::alloc_counting::count(self, setup, routine);
        }
        let counting = self.counting.as_ref().expect("counts_only checked");
        match counting.count_calls(self.warmup, self.iterations, setup, routine) {
            Ok((metrics, calls)) => {
                // A scenario reading `iterations()` after the call sees the calls made.
                self.iterations = calls;
                for m in metrics {
                    self.metrics.retain(|x| x.name != m.name);
                    self.metrics.push(m);
                }
            }
            Err(e) => self.trouble = Some(BenchEnd::Failed(format!("counting under Callgrind failed: {e}"))),
        }
    }

    #[inline(always)]
    pub(super) fn sample_start(&mut self) {
        if let Some(c) = &mut self.counting
            && let Err(e) = c.sample_start()
        {
            self.trouble = Some(BenchEnd::Failed(format!("hardware counters: {e}")));
        }
    }

    #[inline(always)]
    pub(super) fn sample_end(&mut self, calls: u64) {
        if let Some(c) = &mut self.counting
            && let Err(e) = c.sample_end(calls)
        {
            self.trouble = Some(BenchEnd::Failed(format!("hardware counters: {e}")));
        }
    }

    pub(super) fn record_latencies(&mut self, per_call: Vec<f64>) {
        // Read again at the end: the machine may have changed speed during the measurement. A
        // measurement that times itself (`iter_timed`: CUDA events) has none.
        let speed = self.speed_start.take().map(|start| [start, speed_probe::read()]);
        let mut timed = vec!["latency_ns"];
        for t in self.throughput.clone() {
            let (name, unit, work) = t.rate();
            timed.push(name);
            // Work per ns is exactly giga-work per second. The process's value is the work over its
            // centre latency, so rate and latency always agree.
            let rates: Vec<f64> = per_call.iter().map(|ns| work / ns).collect();
            let value = work / within_process_centre(&per_call);
            self.push_with_value(name, unit.clone(), unit.default_better(), value, rates);
        }
        // The interquartile mean of the samples, not their mean: a few preemption spikes (ms on
        // a µs routine) would otherwise move the process's value (docs/statistics.md).
        let value = within_process_centre(&per_call);
        self.push_with_value("latency_ns", Unit::Nanoseconds, Better::Lower, value, per_call);
        for m in self.metrics.iter_mut().filter(|m| timed.contains(&m.name.as_str())) {
            m.speed_probe_ns = speed;
        }
        if let Some(c) = &mut self.counting {
            for m in c.take_sampled() {
                self.metrics.retain(|x| x.name != m.name);
                self.metrics.push(m);
            }
        }
    }

    /// Mark the latency and the rates derived from it as distorted by the method, `why` joined
    /// to any reason already there: their rows are then never `ok`.
    pub(super) fn add_distortion(&mut self, why: Option<String>) {
        let Some(why) = why else { return };
        let rates: Vec<&str> = self.throughput.iter().map(|t| t.rate().0).collect();
        for m in self
            .metrics
            .iter_mut()
            .filter(|m| m.name == "latency_ns" || rates.contains(&m.name.as_str()))
        {
            m.distortion = Some(match m.distortion.take() {
                Some(earlier) => format!("{earlier}; {why}"),
                None => why.clone(),
            });
        }
    }

    /// Report one value of a metric for this process (a counter, a size), with the unit's
    /// default direction. A process that only counts (valgrind) drops it.
    pub fn record(&mut self, name: impl Into<String>, unit: Unit, value: f64) {
        let better = unit.default_better();
        self.push(name, unit, better, vec![value]);
    }

    /// Report per-iteration values of a metric, with an explicit direction. A process that
    /// only counts (valgrind) drops them.
    pub fn record_iterations(&mut self, name: impl Into<String>, unit: Unit, better: Better, values: Vec<f64>) {
        self.push(name, unit, better, values);
    }

    fn push(&mut self, name: impl Into<String>, unit: Unit, better: Better, iterations: Vec<f64>) {
        let value = mean(&iterations);
        self.push_with_value(name, unit, better, value, iterations);
    }

    pub(super) fn push_with_value(&mut self, name: impl Into<String>, unit: Unit, better: Better, value: f64, iterations: Vec<f64>) {
        if self.counts_only() {
            // Valgrind's slowed-down values of anything but its counts would pool with the
            // wall-time processes' values under one name.
            return;
        }
        let name = name.into();
        let iterations = if iterations.len() > 1 { iterations } else { Vec::new() };
        self.metrics.retain(|m| m.name != name);
        self.metrics.push(MetricSample {
            name,
            unit,
            better,
            value,
            iterations,
            source: None,
            profile: None,
            distortion: None,
            speed_probe_ns: None,
        });
    }

    /// What the measurement reported, or why it reports nothing.
    pub(crate) fn finish(self) -> BenchEnd {
        match self.trouble {
            Some(end) => end,
            None if self.metrics.is_empty() => {
                BenchEnd::Failed("measurement reported no metrics (call Bencher::iter or Bencher::record)".to_owned())
            }
            None => BenchEnd::Metrics(self.metrics),
        }
    }

    #[cfg(test)]
    pub(crate) fn into_metrics(self) -> Vec<MetricSample> {
        self.metrics
    }
}

/// Calls per timed sample: enough that a sample lasts [`MIN_SAMPLE`], judged by the last
/// warm-up call; one call when there was no warm-up or the call is slow enough alone.
pub(super) fn batch_size(last_warmup: Option<Duration>) -> u64 {
    match last_warmup {
        Some(last) if last < MIN_SAMPLE => (MIN_SAMPLE.as_nanos() / last.as_nanos().max(1) + 1).min(1 << 20) as u64,
        _ => 1,
    }
}

pub(crate) use crate::stats::sample::median_of as median;
use crate::stats::trimmed::within_process_centre;

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls of a routine that takes `ns` nanoseconds of busy time, under `iter`.
    fn calls_under_iter(iterations: usize, warmup: usize, ns: u64) -> usize {
        let mut calls = 0;
        let mut b = Bencher::new(iterations, warmup);
        b.iter(|| {
            calls += 1;
            let t = Instant::now();
            while t.elapsed() < Duration::from_nanos(ns) {}
        });
        assert_eq!(b.into_metrics()[0].iterations.len(), iterations);
        calls
    }

    #[test]
    fn warmup_zero_discards_nothing_and_times_each_call_alone() {
        // A fast routine would be batched; with no warm-up call to size a batch, it is not.
        assert_eq!(calls_under_iter(5, 0, 0), 5);
        assert_eq!(calls_under_iter(5, 0, 100_000), 5);
    }

    #[test]
    fn warmup_w_discards_exactly_w_calls_of_a_slow_routine() {
        // Calls of 100 us exceed the 20 us minimum sample: one call per sample.
        assert_eq!(calls_under_iter(4, 3, 100_000), 3 + 4);
        assert_eq!(calls_under_iter(4, 1, 100_000), 1 + 4);
    }

    #[test]
    fn after_warmup_every_sample_is_one_batch_of_the_same_size() {
        let calls = calls_under_iter(4, 2, 0);
        assert_eq!((calls - 2) % 4, 0, "2 warm-up calls, then 4 equal batches: {calls} calls");
    }

    #[test]
    fn iter_timed_honours_warmup_zero() {
        let mut calls = 0;
        let mut b = Bencher::new(3, 0);
        b.iter_timed(|| {
            calls += 1;
            Duration::from_nanos(10)
        });
        assert_eq!(calls, 3);
    }

    /// CPU-timed latencies and their rates carry the machine's speed probe; a routine timed by
    /// its own clock (`iter_timed`: CUDA events) does not, nor a value recorded by hand.
    #[test]
    fn cpu_timed_metrics_carry_the_speed_probe() {
        let mut b = Bencher::new(3, 1);
        b.throughput(Throughput::Elements(10)).iter(|| black_box(1 + 1));
        b.record("bytes", Unit::Bytes, 4.0);
        let probes: Vec<(String, Option<[f64; 2]>)> = b.into_metrics().into_iter().map(|m| (m.name, m.speed_probe_ns)).collect();
        assert_eq!(probes.len(), 3, "{probes:?}");
        for (name, probe) in &probes {
            assert_eq!(probe.is_some_and(|ns| ns[0] > 0.0 && ns[1] > 0.0), name != "bytes", "{probes:?}");
        }
        let mut timed = Bencher::new(3, 0);
        timed.iter_timed(|| Duration::from_nanos(10));
        assert!(timed.into_metrics().iter().all(|m| m.speed_probe_ns.is_none()));
    }

    #[test]
    fn a_distortion_marks_the_latency_and_its_rates_only() {
        let mut b = Bencher::new(2, 0);
        b.throughput(Throughput::Bytes(64));
        b.record_latencies(vec![1000.0, 1000.0]);
        b.record("bytes", Unit::Bytes, 4.0);
        b.add_distortion(Some("first".to_owned()));
        b.add_distortion(None);
        b.add_distortion(Some("second".to_owned()));
        let marks: Vec<(String, Option<String>)> = b.into_metrics().into_iter().map(|m| (m.name, m.distortion)).collect();
        let of = |name: &str| marks.iter().find(|(n, _)| n == name).unwrap().1.clone();
        assert_eq!(of("latency_ns").as_deref(), Some("first; second"));
        assert_eq!(of("gbytes_per_s").as_deref(), Some("first; second"));
        assert_eq!(of("bytes"), None, "a value recorded by hand is not the method's");
    }

    #[test]
    fn elements_are_reported_in_millions_per_second() {
        let mut b = Bencher::new(2, 0);
        b.throughput(Throughput::Elements(500));
        b.record_latencies(vec![1000.0, 1000.0]);
        let rate = b.into_metrics().into_iter().find(|m| m.name == "melem_per_s").unwrap();
        // 500 elements per us is 500 million per second.
        assert_eq!((rate.value, rate.unit, rate.better), (500.0, Unit::MElementsPerSec, Better::Higher));
    }

    #[test]
    fn a_rate_is_work_over_centre_latency_so_it_agrees_with_latency() {
        let mut b = Bencher::new(3, 0);
        b.throughput(Throughput::Flops(1000));
        b.record_latencies(vec![100.0, 200.0, 9000.0]);
        let metrics = b.into_metrics();
        let rate = metrics.iter().find(|m| m.name == "gflop_per_s").unwrap();
        let latency = metrics.iter().find(|m| m.name == "latency_ns").unwrap();
        assert_eq!(
            latency.value, 200.0,
            "the interquartile mean of 3 is the middle one; the 9 us spike does not move it"
        );
        assert_eq!(rate.value, 5.0, "1000 flops / 200 ns");
        assert_eq!(rate.iterations, vec![10.0, 5.0, 1000.0 / 9000.0]);
    }
}
