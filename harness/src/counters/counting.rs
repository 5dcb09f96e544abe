//! `Counting`: what a child's `Bencher` counts with, made from the parent's [`CountRequest`].

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::callgrind::Session;
use super::client_request::running_on_valgrind;
use super::costs::CacheCosts;
use super::perf::PerfCounters;
use crate::model::{Better, MetricSample, Profile, Unit};

/// How the parent asked a child to count (part of the child request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub(crate) enum CountRequest {
    /// The child runs under Callgrind, which dumps to `out.<k>`.
    Callgrind {
        /// The source label stamped on each metric.
        label: String,
        /// Callgrind's `--callgrind-out-file`.
        out: PathBuf,
    },
    /// The child counts itself with hardware counters.
    Perf {
        /// The source label stamped on each metric.
        label: String,
    },
    /// The child counts allocations per call (`--allocs`): the preload library in its
    /// `LD_PRELOAD`, or its own `CountingAllocator`.
    Allocs,
}

/// A measurement's counting, inside the child.
pub(crate) enum Counting {
    /// Counts only: the process runs under Callgrind and its wall time means nothing.
    Callgrind { label: String, out: PathBuf },
    /// Hardware counters around each timed sample, beside wall time; per-call values by counter.
    Perf {
        label: String,
        counters: PerfCounters,
        per_call: Vec<Vec<f64>>,
    },
    /// Allocations only (`--allocs`): where the counts come from, or why nothing counts here.
    Allocs(Result<crate::allocs::AllocSource, String>),
}

impl Counting {
    /// Ready to count as `request` asks, or the reason this process cannot.
    pub(crate) fn new(request: &CountRequest) -> Result<Counting, String> {
        match request {
            CountRequest::Callgrind { label, out } => {
                if !running_on_valgrind() {
                    return Err("asked to count under Callgrind, but this process does not run under valgrind".to_owned());
                }
                Ok(Counting::Callgrind {
                    label: label.clone(),
                    out: out.clone(),
                })
            }
            CountRequest::Perf { label } => {
                let counters = PerfCounters::open()?;
                let per_call = vec![Vec::new(); counters.names().len()];
                Ok(Counting::Perf {
                    label: label.clone(),
                    counters,
                    per_call,
                })
            }
            // No source is no error: each measurement says it was not counted, and why.
            CountRequest::Allocs => Ok(Counting::Allocs(crate::allocs::AllocSource::find())),
        }
    }

    /// Whether this process reports counts only (no wall time).
    pub(crate) fn counts_only(&self) -> bool {
        matches!(self, Counting::Callgrind { .. } | Counting::Allocs(_))
    }

    /// Under Callgrind: `warmup` uncounted calls, then up to `iterations` counted ones, each
    /// with a fresh input from `setup` made outside the count: as many as fit in
    /// [`COUNTING_TIME`] at the pace of the last warm-up call, at least [`MIN_CALLS`], except
    /// that such a slow routine stops at two calls that counted the same instructions. Returns
    /// `instructions` and `estimated_cycles` per call, and the calls counted.
    pub(crate) fn count_calls<I, R>(
        &self,
        warmup: usize,
        iterations: usize,
        mut setup: impl FnMut() -> I,
        mut routine: impl FnMut(I) -> R,
    ) -> Result<(Vec<MetricSample>, usize), String> {
        let Counting::Callgrind { label, out } = self else {
            return Err("count_calls is for Callgrind processes".to_owned());
        };
        let mut session = Session::begin(out);
        let mut pace = None;
        for _ in 0..warmup {
            let input = setup();
            let started = cpu_time();
            drop(black_box(routine(black_box(input))));
            pace = Some(cpu_time().saturating_sub(started));
        }
        let planned = calls_within(iterations, pace);
        let mut calls = 0;
        while calls < planned {
            let input = setup();
            // The output is dropped after the dump: the count is the routine's alone.
            let output = session.count(|| black_box(routine(black_box(input))));
            drop(output);
            calls += 1;
            // A slow routine (its pace cut the calls) whose first two calls agree has paid no
            // one-time cost in them: a third would cost seconds under valgrind and repeat them.
            if calls == 2 && planned < iterations && session.first_two_agree() {
                break;
            }
        }
        let costs = session.finish(explain_enabled())?;
        Ok((callgrind_metrics(&costs, label), calls))
    }

    /// Under perf: start the counters right before a timed sample.
    #[inline(always)]
    pub(crate) fn sample_start(&mut self) -> Result<(), String> {
        match self {
            Counting::Perf { counters, .. } => counters.start(),
            Counting::Callgrind { .. } | Counting::Allocs(_) => Ok(()),
        }
    }

    /// Under perf: stop them right after it, and keep the per-call values of its `calls` calls.
    #[inline(always)]
    pub(crate) fn sample_end(&mut self, calls: u64) -> Result<(), String> {
        if let Counting::Perf { counters, per_call, .. } = self {
            for (values, count) in per_call.iter_mut().zip(counters.stop()?) {
                values.push(count as f64 / calls.max(1) as f64);
            }
        }
        Ok(())
    }

    /// Under perf: the metrics of the samples so far (none under Callgrind).
    pub(crate) fn take_sampled(&mut self) -> Vec<MetricSample> {
        let Counting::Perf { label, counters, per_call } = self else {
            return Vec::new();
        };
        let names = counters.names();
        names
            .into_iter()
            .zip(per_call.iter_mut())
            .filter(|(_, v)| !v.is_empty())
            .map(|(name, values)| counter_metric(name, std::mem::take(values), label))
            .collect()
    }
}

/// CPU time of counted calls past which a slow routine gets fewer of them: six calls of a
/// 13-million-instruction matmul cost about 15 s of CPU under Callgrind.
pub(crate) const COUNTING_TIME: Duration = Duration::from_secs(3);

/// The fewest counted calls: the process's value is their median, and the first calls after one
/// warm-up can still pay one-time costs (measured: a threaded f16 reduction's first counted call
/// 16.8 M instructions, the next ones 11.2 M). Three calls outvote one such call, so the value
/// does not depend on how many calls were made, which the pace (CPU time) may change. A slow
/// routine whose first two calls count the same stops there ([`super::callgrind::AGREE`]).
pub(crate) const MIN_CALLS: usize = 3;

/// Calls to count: `iterations`, or as many as fit in [`COUNTING_TIME`] at `pace` (the last
/// warm-up call's CPU time under valgrind), at least [`MIN_CALLS`] (or `iterations` if fewer).
fn calls_within(iterations: usize, pace: Option<Duration>) -> usize {
    let fit = pace.map_or(usize::MAX, |p| (COUNTING_TIME.as_secs_f64() / p.as_secs_f64().max(1e-9)) as usize);
    fit.clamp(MIN_CALLS.min(iterations), iterations.max(1))
}

/// This process's CPU time (every thread; under valgrind, valgrind's work included): a pace that
/// load on the machine does not stretch the way it stretches wall time.
fn cpu_time() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec, which lives across the call.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Whether the child keeps instructions by function for `explain` (on unless
/// `HARNESS_EXPLAIN=0`, which exists to measure what explaining costs).
fn explain_enabled() -> bool {
    std::env::var_os("HARNESS_EXPLAIN").is_none_or(|v| v != "0")
}

fn callgrind_metrics(costs: &[(CacheCosts, Option<Profile>)], label: &str) -> Vec<MetricSample> {
    let mut instructions = counter_metric("instructions", costs.iter().map(|c| c.0.ir as f64).collect(), label);
    instructions.profile = median_call(costs).and_then(|c| c.1.clone());
    vec![
        instructions,
        counter_metric(
            "estimated_cycles",
            costs.iter().map(|c| c.0.estimated_cycles() as f64).collect(),
            label,
        ),
    ]
}

/// The call whose instructions are the median (the lower middle of an even count): its profile
/// is the process's, so that the profile adds up to (about) the process's value.
fn median_call<T>(costs: &[(CacheCosts, T)]) -> Option<&(CacheCosts, T)> {
    let mut order: Vec<&(CacheCosts, T)> = costs.iter().collect();
    order.sort_by_key(|c| c.0.ir);
    order.get(order.len().saturating_sub(1) / 2).copied()
}

/// A count per call: lower is better, and the process's value is the median over its calls. The
/// first calls after one warm-up can still pay one-time costs (allocator caches filling, lazy
/// initialisation) that depend on the process's layout; the median is the steady call.
fn counter_metric(name: &str, per_call: Vec<f64>, label: &str) -> MetricSample {
    let value = median(&per_call);
    MetricSample {
        name: name.to_owned(),
        unit: Unit::Count,
        better: Better::Lower,
        value,
        iterations: if per_call.len() > 1 { per_call } else { Vec::new() },
        source: Some(label.to_owned()),
        profile: None,
        distortion: None,
        speed_probe_ns: None,
    }
}

use crate::stats::sample::median_of as median;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_is_the_median_call_stamped_with_its_source() {
        // Transitional first calls (15121, 15228) do not move the process's value.
        let m = counter_metric(
            "instructions",
            vec![15121.0, 14998.0, 15228.0, 14991.0, 14991.0],
            "valgrind-callgrind 3.19",
        );
        assert_eq!(m.value, 14998.0);
        assert_eq!((m.unit, m.better), (Unit::Count, Better::Lower));
        assert_eq!(m.source.as_deref(), Some("valgrind-callgrind 3.19"));
        assert_eq!(m.iterations.len(), 5);
        assert_eq!(counter_metric("cycles", vec![7.0], "perf").iterations, Vec::<f64>::new());
        assert_eq!(median(&[1.0, 4.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn a_slow_routine_is_counted_fewer_times_and_never_zero() {
        let ms = Duration::from_millis;
        assert_eq!(calls_within(5, Some(ms(1))), 5);
        assert_eq!(calls_within(5, Some(ms(700))), 4);
        assert_eq!(calls_within(5, Some(ms(1000))), 3);
        assert_eq!(calls_within(5, Some(ms(40_000))), 3, "never fewer than 3: the median needs them");
        assert_eq!(calls_within(2, Some(ms(40_000))), 2, "unless fewer were asked for");
        assert_eq!(calls_within(5, None), 5, "no warm-up: no pace, all calls");
    }
}
