//! [`Bencher::iter_batched`]: a routine that consumes its input, timed in batches whose inputs
//! are made before the clock starts and whose outputs are dropped after it stops, bounded by
//! memory as well as time (`batch_memory.rs`), with a check that the batch did not change the
//! per-call time.

use std::hint::black_box;
use std::time::Instant;

use super::batch_memory as memory;
use super::bencher::{Bencher, batch_size};
use super::{allocator_state, speed_probe};

/// One-call samples taken after a batched `iter_batched` to check the batch did not change
/// the per-call time.
const SINGLE_CHECKS: usize = 9;

impl Bencher {
    /// Like [`iter`](Self::iter), for a routine that consumes its input (sorts a vector, drains
    /// a queue): `setup` makes a fresh input for every call and is not timed.
    ///
    /// The rule, and why: a fast routine is timed in batches as in `iter`, each batch's inputs
    /// made before its clock starts and its outputs dropped after the clock stops (as criterion
    /// does). A batch is bounded by memory as well as time: its live inputs and outputs stay
    /// within 256 KiB (`BATCH_BYTES`, an L2 cache), so a batch never evicts the cache a
    /// one-call sample would find, and a process never holds more than about one input beyond
    /// that budget. An input's bytes are `size_of` of input and output plus the resident-memory
    /// growth of building a probe of inputs (Linux; heap the type does not show). An input larger
    /// than the budget is timed one call a sample, as criterion times `PerIteration`. After the
    /// batched samples a few one-call samples check that the per-call time does not depend on the
    /// batch size; where it does, the metric says so and the row is `unstable`. The allocator's
    /// state is checked as in `iter`.
    pub fn iter_batched<I, R>(&mut self, setup: impl FnMut() -> I, routine: impl FnMut(I) -> R) {
        self.iter_batched_at_most(usize::MAX, setup, routine);
    }

    /// [`iter_batched`](Self::iter_batched) with at most `inputs` inputs (and outputs) alive at
    /// once besides the memory bound: a batch is at most `inputs` calls, and `1` times every call
    /// alone (then the clock's own cost, tens of ns, is in each sample).
    pub fn iter_batched_at_most<I, R>(&mut self, inputs: usize, mut setup: impl FnMut() -> I, mut routine: impl FnMut(I) -> R) {
        if self.counts_only() {
            return self.count_calls(setup, routine);
        }
        self.speed_start = Some(speed_probe::read());
        let mut last = None;
        for _ in 0..self.warmup {
            let input = setup();
            let t = Instant::now();
            let output = black_box(routine(black_box(input)));
            last = Some(t.elapsed());
            drop(output);
        }
        let mut batch = (batch_size(last) as usize).min(inputs.max(1));
        let wanted = batch;
        if batch > 1 {
            batch = batch.min(memory::inputs_within_budget::<I, R>(&mut setup, batch));
        }
        let mut per_call = Vec::with_capacity(self.iterations);
        let mut outputs = Vec::with_capacity(batch);
        for _ in 0..self.iterations {
            let inputs: Vec<I> = (0..batch).map(|_| setup()).collect();
            self.sample_start();
            let t = Instant::now();
            // As criterion's batches: the outputs go into a vector the optimiser cannot see
            // through (black-boxed after the clock), not through a black box per call, whose
            // store and reload cost a 10 ns routine (dary_heap's `pop` on 10 elements) a third.
            outputs.extend(inputs.into_iter().map(&mut routine));
            let elapsed = t.elapsed();
            black_box(&mut outputs);
            self.sample_end(batch as u64);
            per_call.push(elapsed.as_nanos() as f64 / batch as f64);
            outputs.clear();
        }
        let distortion = if batch > 1 {
            let single = (0..SINGLE_CHECKS)
                .map(|_| {
                    let input = setup();
                    let t = Instant::now();
                    let output = black_box(routine(black_box(input)));
                    let ns = t.elapsed().as_nanos() as f64;
                    drop(output);
                    ns
                })
                .collect::<Vec<_>>();
            memory::batch_distortion(&per_call, &single, batch)
        } else if wanted > 1 {
            memory::one_call_distortion(&per_call)
        } else {
            None
        };
        let allocator = allocator_state::check(self.allocator_check, self.iterations, || {
            let inputs: Vec<I> = (0..batch).map(|_| setup()).collect();
            let faults = allocator_state::minor_faults();
            let t = Instant::now();
            outputs.extend(inputs.into_iter().map(&mut routine));
            let ns = t.elapsed().as_nanos() as f64;
            let faults = allocator_state::minor_faults() - faults;
            black_box(&mut outputs);
            outputs.clear();
            allocator_state::Timed::of(ns, faults, batch as u64)
        });
        self.record_latencies(per_call);
        self.add_distortion(distortion);
        self.add_distortion(allocator);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// The recorded per-call latency (ns) of a trivial routine whose setup waits `setup`.
    fn batched_latency(iterations: usize, warmup: usize, setup: impl Fn()) -> (Vec<f64>, usize, usize) {
        let (mut setups, mut calls) = (0, 0);
        let mut b = Bencher::new(iterations, warmup);
        b.iter_batched(
            || {
                setup();
                setups += 1;
                vec![3u8, 1, 2]
            },
            |mut v| {
                calls += 1;
                v.sort();
                v
            },
        );
        let latency = b.into_metrics().into_iter().find(|m| m.name == "latency_ns").unwrap();
        (latency.iterations, setups, calls)
    }

    #[test]
    fn iter_batched_does_not_time_the_setup() {
        // One call per sample (no warm-up to size a batch): each sample would be >= 50 ms if
        // the setup's sleep were timed. A sort of 3 bytes takes well under 5 ms even on a
        // loaded machine, so the 10x margin cannot be crossed by noise.
        let (samples, setups, calls) = batched_latency(3, 0, || std::thread::sleep(Duration::from_millis(50)));
        assert_eq!((setups, calls), (3, 3), "one fresh input per call");
        assert_eq!(samples.len(), 3);
        for ns in samples {
            assert!(ns < 5e6, "a sample of {ns} ns includes the 50 ms setup");
        }
    }

    #[test]
    fn iter_batched_keeps_setup_out_of_batched_samples_too() {
        // After a warm-up the trivial routine is batched (many calls per sample), each call's
        // input made by a 200 us busy setup; timing the setup would put every per-call value
        // at >= 200 us.
        let spin = || {
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(200) {}
        };
        // The batch is sized from the one warm-up call's time, which a preemption on a loaded
        // machine (CI's 2 cores under parallel tests) can stretch to milliseconds: one call a
        // sample then, correctly. Five tries; a routine never batched fails them all.
        let batched = (0..5).map(|_| batched_latency(3, 1, spin)).find(|(_, setups, calls)| {
            assert!(setups >= calls, "one fresh input per call (and a memory probe's)");
            // (A memory probe, the extra setups, counts: it ran because the batch was over 1.)
            *calls > 1 + 3 || setups > calls
        });
        let (samples, _, _) = batched.expect("batched in one of five tries");
        for ns in samples {
            assert!(ns < 20_000.0, "a per-call value of {ns} ns includes the 200 us setup");
        }
    }

    #[test]
    fn iter_batched_at_most_caps_the_inputs_alive_at_once() {
        // A trivial routine after a warm-up would be batched by the hundreds; the cap holds the
        // live inputs (made before each clock start, dropped after it stops) to at most 2.
        let live = std::cell::Cell::new(0usize);
        let most = std::cell::Cell::new(0usize);
        struct Input<'a>(&'a std::cell::Cell<usize>);
        impl Drop for Input<'_> {
            fn drop(&mut self) {
                self.0.set(self.0.get() - 1);
            }
        }
        let mut calls = 0;
        let mut b = Bencher::new(4, 1);
        b.iter_batched_at_most(
            2,
            || {
                live.set(live.get() + 1);
                most.set(most.get().max(live.get()));
                Input(&live)
            },
            |i| {
                calls += 1;
                i
            },
        );
        assert_eq!(most.get(), 2, "batches of the cap, never more");
        assert_eq!(
            calls,
            1 + 4 * 2 + SINGLE_CHECKS,
            "one warm-up call, 4 samples of 2 calls, the one-call checks"
        );
        assert_eq!(live.get(), 0);
    }
}
