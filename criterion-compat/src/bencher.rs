//! `Bencher`: criterion's timing loops, each handed to the harness's own `Bencher`, so a
//! benchmark is timed (and under `--counters` counted) exactly as a native scenario is.

use std::marker::PhantomData;

use crate::measurement::{Measurement, WallTime};

/// How many inputs `iter_batched` may make ahead of timing them.
///
/// The harness sizes batches by time (a sample lasts at least 20 us, its inputs made before the
/// clock starts); the variants cap how many inputs are alive at once:
///
/// | variant | inputs alive at once |
/// |---|---|
/// | `SmallInput`, `NumBatches(_)` | the harness's batch (20 us of calls, at most 2^20) |
/// | `LargeInput` | at most [`LARGE_INPUT_BATCH`] |
/// | `PerIteration` | 1: every call timed alone |
/// | `NumIterations(n)` | at most `n` |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BatchSize {
    /// Inputs small enough to hold millions of.
    SmallInput,
    /// Inputs too large to hold many of.
    LargeInput,
    /// One input at a time (huge inputs, or ones that hold a limited resource).
    PerIteration,
    /// criterion: divide a sample into this many batches. The harness's batches are sized by
    /// time instead.
    NumBatches(u64),
    /// At most this many inputs per batch.
    NumIterations(u64),
}

/// Inputs alive at once under [`BatchSize::LargeInput`]: few enough that ten copies of a large
/// input fit where one does, many enough that a routine of 2 us or more is still timed in
/// samples of 20 us.
pub const LARGE_INPUT_BATCH: usize = 10;

impl BatchSize {
    fn max_inputs(self) -> usize {
        match self {
            BatchSize::SmallInput | BatchSize::NumBatches(_) => usize::MAX,
            BatchSize::LargeInput => LARGE_INPUT_BATCH,
            BatchSize::PerIteration => 1,
            BatchSize::NumIterations(n) => usize::try_from(n).unwrap_or(usize::MAX).max(1),
        }
    }
}

/// Drives one benchmark's timing loop. Each method reports `latency_ns` (per call) and, when its
/// group declared a [`Throughput`](crate::Throughput), the matching rate.
pub struct Bencher<'a, M: Measurement = WallTime> {
    inner: &'a mut harness::Bencher,
    _measurement: PhantomData<M>,
}

impl<'a, M: Measurement> Bencher<'a, M> {
    pub(crate) fn new(inner: &'a mut harness::Bencher) -> Self {
        Bencher {
            inner,
            _measurement: PhantomData,
        }
    }

    /// Time `routine`, its output dropped inside the timing (as criterion does).
    pub fn iter<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        self.inner.iter(routine);
    }

    /// `routine(n)` runs the code `n` times, timing it itself, and returns the total. Wall time
    /// only: under `--counters=valgrind` this benchmark is reported skipped ("not counted"),
    /// since the count could not tell the routine from the set-up inside it.
    pub fn iter_custom<R>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> M::Value,
    {
        self.inner.iter_custom(|n| M::__into_duration(routine(n)));
    }

    /// [`iter_batched`](Self::iter_batched) with [`BatchSize::PerIteration`], as in criterion.
    pub fn iter_with_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Time `routine` with its outputs dropped after the clock stops.
    pub fn iter_with_large_drop<O, R>(&mut self, mut routine: R)
    where
        R: FnMut() -> O,
    {
        self.iter_batched(|| (), |()| routine(), BatchSize::SmallInput);
    }

    /// Time `routine` on a fresh input from `setup` per call; `setup` and dropping the outputs
    /// are outside the timing (and outside the count under `--counters`).
    pub fn iter_batched<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.inner.iter_batched_at_most(size.max_inputs(), setup, routine);
    }

    /// Like [`iter_batched`](Self::iter_batched), the routine taking `&mut` input; the input is
    /// dropped after the clock stops, with the output.
    pub fn iter_batched_ref<I, O, S, R>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        self.inner.iter_batched_at_most(size.max_inputs(), setup, |mut input| {
            let output = routine(&mut input);
            (input, output)
        });
    }

    /// An [`AsyncBencher`](crate::async_executor::AsyncBencher) that runs each call's future to
    /// completion on `runner` (inside the timing, as criterion does).
    pub fn to_async<'b, A: crate::async_executor::AsyncExecutor>(
        &'b mut self,
        runner: A,
    ) -> crate::async_executor::AsyncBencher<'a, 'b, A, M> {
        crate::async_executor::AsyncBencher::new(self, runner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_sizes_cap_the_inputs_alive_at_once() {
        assert_eq!(BatchSize::SmallInput.max_inputs(), usize::MAX);
        assert_eq!(BatchSize::NumBatches(4).max_inputs(), usize::MAX);
        assert_eq!(BatchSize::LargeInput.max_inputs(), LARGE_INPUT_BATCH);
        assert_eq!(BatchSize::PerIteration.max_inputs(), 1);
        assert_eq!(BatchSize::NumIterations(8).max_inputs(), 8);
        assert_eq!(BatchSize::NumIterations(0).max_inputs(), 1);
    }
}
