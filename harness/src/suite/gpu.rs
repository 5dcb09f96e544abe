//! The GPU timing path of [`Bencher`]: [`Bencher::iter_gpu`] takes cold and/or hot series of
//! samples through a [`GpuTimer`] the scenario supplies (the harness knows nothing of CUDA), drops
//! samples that ran throttled and stops each series on noise or timeout
//! (`stats::gpu_sampling`), and reports per series its times, rates, SM clocks and discards.
//!
//! Metric names: the hot series keeps the names every measurement uses (`latency_ns`,
//! `gbytes_per_s`, ...), so results from before this path compare with it; the cold series is the
//! same names with a `cold_` prefix. Per series also `sm_clock_mhz` and `sm_clock_min_mhz` (mean
//! and lowest clock of the kept samples), `samples` (taken) and `discarded_samples` (below the
//! threshold); once per scenario `sm_clock_threshold_mhz`.

use std::time::{Duration, Instant};

use super::Bencher;
use crate::model::{Better, Unit};
use crate::stats::gpu_sampling::{Finished, Rules, Series};

/// One timed GPU sample: the work's time and the SM clock it ran at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuSample {
    /// The work's duration (device time between events, or host time for synchronous calls).
    pub elapsed: Duration,
    /// The SM clock over the sample, MHz; `None` when it could not be read (then the throttle
    /// threshold cannot judge the sample, and it is kept).
    pub sm_clock_mhz: Option<f64>,
}

/// What the harness needs from a GPU to time samples: the scenario implements it over its CUDA
/// stream. Errors are the scenario's to report: a failing call panics, and the scenario fails.
pub trait GpuTimer {
    /// The device's default SM clock (MHz) the throttle threshold is a fraction of; `None`:
    /// unknown, no sample is discarded.
    fn default_sm_clock_mhz(&self) -> Option<f64>;
    /// Evict the measured data from L2, on the measured stream and outside any timed region.
    fn flush_l2(&mut self);
    /// Time one run of `work` (which enqueues the measured work) and read the SM clock over it.
    fn sample(&mut self, work: &mut dyn FnMut()) -> GpuSample;
}

/// Which series [`Bencher::iter_gpu`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caches {
    /// Back-to-back samples: whatever the previous sample left in L2 is still there.
    Hot,
    /// L2 flushed before every sample: the data comes from device memory.
    Cold,
    /// A cold series, then a hot one.
    ColdAndHot,
}

impl Bencher {
    /// Times `work` on a GPU: `warmup` discarded samples, then a cold series (L2 flushed before
    /// each sample) and/or a hot one, as `caches` asks. Each series drops samples whose SM clock
    /// ran below `--throttle-threshold` of the default clock and takes samples until at least
    /// `iterations` are kept and the GPU settings' minimum time has passed, then stops once the
    /// relative standard error of its mean is within `--max-noise`, or at the timeout. Declared
    /// [`throughput`](Self::throughput)s give rates per series. See the module doc for the names.
    pub fn iter_gpu(&mut self, timer: &mut dyn GpuTimer, caches: Caches, mut work: impl FnMut()) {
        if self.counts_only() {
            self.trouble = Some(super::BenchEnd::Uncounted(
                "not counted: iter_gpu times GPU work, which host instruction counts say nothing about".to_owned(),
            ));
            return;
        }
        let settings = self.gpu;
        let threshold_mhz = timer
            .default_sm_clock_mhz()
            .filter(|_| settings.throttle_threshold > 0.0)
            .map(|d| d * settings.throttle_threshold);
        let rules = Rules {
            threshold_mhz,
            min_samples: self.iterations,
            min_time_s: settings.min_time_s,
            max_noise: settings.max_noise,
            timeout_s: settings.timeout_s,
        };
        for _ in 0..self.warmup {
            timer.sample(&mut work);
        }
        if caches != Caches::Hot {
            let cold = series(timer, &rules, true, &mut work);
            self.record_series("cold_", cold);
        }
        if caches != Caches::Cold {
            let hot = series(timer, &rules, false, &mut work);
            self.record_series("", hot);
        }
        if let Some(t) = threshold_mhz {
            self.record("sm_clock_threshold_mhz", Unit::Other("MHz".into()), t);
        }
    }

    fn record_series(&mut self, prefix: &str, f: Finished) {
        let mean = f.values.iter().sum::<f64>() / f.values.len().max(1) as f64;
        for t in self.throughput.clone() {
            let (name, unit, work) = t.rate();
            // As `iter`: the process's rate is the work over its mean time.
            let rates = f.values.iter().map(|ns| work / ns).collect();
            self.push_with_value(format!("{prefix}{name}"), unit.clone(), unit.default_better(), work / mean, rates);
        }
        self.push_with_value(format!("{prefix}latency_ns"), Unit::Nanoseconds, Better::Lower, mean, f.values);
        if !f.clocks.is_empty() {
            // Per process the mean and the lowest kept sample's clock, not every sample's: a clock
            // drifts slowly, so its series is autocorrelated by nature, and as iterations it would
            // mark every GPU scenario unstable (lag-1 autocorrelation 0.5-0.9 on the H200).
            let mhz = Unit::Other("MHz".into());
            let mean = f.clocks.iter().sum::<f64>() / f.clocks.len() as f64;
            let min = f.clocks.iter().copied().fold(f64::INFINITY, f64::min);
            self.push_with_value(format!("{prefix}sm_clock_mhz"), mhz.clone(), Better::Neither, mean, Vec::new());
            self.push_with_value(format!("{prefix}sm_clock_min_mhz"), mhz, Better::Neither, min, Vec::new());
        }
        self.record(format!("{prefix}samples"), Unit::Count, f.taken as f64);
        self.record(format!("{prefix}discarded_samples"), Unit::Count, f.discarded as f64);
    }
}

/// One series: flush (cold), sample, judge, until the rules stop it.
fn series(timer: &mut dyn GpuTimer, rules: &Rules, cold: bool, work: &mut dyn FnMut()) -> Finished {
    let start = Instant::now();
    let mut s = Series::default();
    loop {
        if cold {
            timer.flush_l2();
        }
        let x = timer.sample(work);
        s.push(rules, x.elapsed.as_nanos() as f64, x.sm_clock_mhz);
        if let Some(why) = s.stop(rules, start.elapsed().as_secs_f64()) {
            return s.finish(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GpuSettings, MetricSample};

    /// A simulated GPU: `clocks[i]` is sample i's clock (the last repeats); a sample takes 10 us
    /// hot and 20 us right after a flush. Logs every call.
    struct FakeGpu {
        clocks: Vec<Option<f64>>,
        taken: usize,
        log: Vec<&'static str>,
        flushed: bool,
    }

    impl FakeGpu {
        fn new(clocks: Vec<Option<f64>>) -> Self {
            FakeGpu {
                clocks,
                taken: 0,
                log: Vec::new(),
                flushed: false,
            }
        }
    }

    impl GpuTimer for FakeGpu {
        fn default_sm_clock_mhz(&self) -> Option<f64> {
            Some(2000.0)
        }
        fn flush_l2(&mut self) {
            self.log.push("flush");
            self.flushed = true;
        }
        fn sample(&mut self, work: &mut dyn FnMut()) -> GpuSample {
            self.log.push("sample");
            work();
            let clock = self.clocks[self.taken.min(self.clocks.len() - 1)];
            self.taken += 1;
            let us = if std::mem::take(&mut self.flushed) { 20 } else { 10 };
            GpuSample {
                elapsed: Duration::from_micros(us),
                sm_clock_mhz: clock,
            }
        }
    }

    fn bencher(iterations: usize, warmup: usize) -> Bencher {
        Bencher::new(iterations, warmup).with_gpu(GpuSettings {
            min_time_s: 0.0,
            ..GpuSettings::default()
        })
    }

    fn metric<'a>(m: &'a [MetricSample], name: &str) -> &'a MetricSample {
        m.iter().find(|x| x.name == name).unwrap_or_else(|| panic!("no {name} in {m:?}"))
    }

    #[test]
    fn cold_and_hot_series_are_timed_apart_and_named_apart() {
        let mut gpu = FakeGpu::new(vec![Some(1980.0)]);
        let mut b = bencher(5, 2);
        b.throughput(super::super::Throughput::Bytes(1_000_000));
        let mut calls = 0;
        b.iter_gpu(&mut gpu, Caches::ColdAndHot, || calls += 1);
        // 2 warm-ups (no flush), 5 cold samples each after a flush, 5 hot samples with none.
        let expect: Vec<&str> = ["sample"; 2]
            .into_iter()
            .chain(std::iter::repeat_n(["flush", "sample"], 5).flatten())
            .chain(["sample"; 5])
            .collect();
        assert_eq!(gpu.log, expect);
        assert_eq!(calls, 12);
        let m = b.into_metrics();
        assert_eq!(metric(&m, "cold_latency_ns").value, 20_000.0);
        assert_eq!(metric(&m, "latency_ns").value, 10_000.0);
        assert_eq!(metric(&m, "cold_gbytes_per_s").value, 50.0);
        assert_eq!(metric(&m, "gbytes_per_s").value, 100.0);
        assert_eq!(metric(&m, "sm_clock_mhz").value, 1980.0);
        assert!(
            metric(&m, "sm_clock_mhz").iterations.is_empty(),
            "a clock series would read as unstable"
        );
        assert_eq!(metric(&m, "cold_discarded_samples").value, 0.0);
        assert_eq!(metric(&m, "samples").value, 5.0);
        assert_eq!(metric(&m, "sm_clock_threshold_mhz").value, 1500.0);
    }

    #[test]
    fn samples_below_three_quarters_of_the_default_clock_are_dropped_and_counted() {
        // An idle start: 3 samples at 345 MHz, one at exactly the threshold, then full clock.
        let clocks = [345.0, 345.0, 345.0, 1500.0, 1980.0].map(Some).to_vec();
        let mut gpu = FakeGpu::new(clocks);
        let mut b = bencher(4, 0);
        b.iter_gpu(&mut gpu, Caches::Cold, || {});
        let m = b.into_metrics();
        assert_eq!(metric(&m, "cold_discarded_samples").value, 3.0);
        assert_eq!(metric(&m, "cold_samples").value, 7.0);
        assert_eq!(metric(&m, "cold_sm_clock_mhz").value, (1500.0 + 3.0 * 1980.0) / 4.0);
        assert_eq!(
            metric(&m, "cold_sm_clock_min_mhz").value,
            1500.0,
            "the lowest kept sample: at the threshold"
        );
        assert!(m.iter().all(|x| x.name != "latency_ns"), "no hot series was asked for");
    }

    #[test]
    fn a_threshold_of_zero_or_an_unknown_clock_discards_nothing() {
        let mut gpu = FakeGpu::new(vec![Some(100.0), None]);
        let mut b = Bencher::new(3, 0).with_gpu(GpuSettings {
            throttle_threshold: 0.0,
            min_time_s: 0.0,
            ..GpuSettings::default()
        });
        b.iter_gpu(&mut gpu, Caches::Hot, || {});
        let m = b.into_metrics();
        assert_eq!(metric(&m, "discarded_samples").value, 0.0);
        assert!(m.iter().all(|x| x.name != "sm_clock_threshold_mhz"));
        assert_eq!(metric(&m, "sm_clock_mhz").value, 100.0, "only the sample that had a clock");
    }
}
