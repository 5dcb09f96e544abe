//! `AsyncExecutor` and `AsyncBencher`: criterion's async benchmarks (`b.to_async(runner)`).
//!
//! Each timed call is one `runner.block_on(routine())`, so the executor's own cost of entering
//! `block_on` is inside every call (criterion enters it once per sample). Executors offered:
//! [`FuturesExecutor`] (a current-thread executor on std alone, always present) and, with the
//! `async_tokio` feature, tokio's `Runtime` and `Handle`. smol and async-std (`async_smol`,
//! `async_std`) are not offered.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use crate::bencher::{BatchSize, Bencher};
use crate::measurement::{Measurement, WallTime};

/// Runs a future to completion on some runtime.
pub trait AsyncExecutor {
    /// Block the current thread until `future` completes, returning its output.
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
}

impl<A: AsyncExecutor> AsyncExecutor for &A {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        (**self).block_on(future)
    }
}

/// A current-thread executor: polls the future on the calling thread and parks it between
/// wake-ups (criterion's `FuturesExecutor`, without the `futures` crate).
#[derive(Debug, Default, Clone, Copy)]
pub struct FuturesExecutor;

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

impl AsyncExecutor for FuturesExecutor {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        thread_local! {
            static WAKER: Waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        }
        let mut future = pin!(future);
        WAKER.with(|waker| {
            let mut cx = Context::from_waker(waker);
            loop {
                if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                    return out;
                }
                std::thread::park();
            }
        })
    }
}

#[cfg(feature = "async_tokio")]
mod tokio_executor {
    use super::AsyncExecutor;
    use std::future::Future;

    impl AsyncExecutor for tokio::runtime::Runtime {
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
            tokio::runtime::Runtime::block_on(self, future)
        }
    }

    impl AsyncExecutor for tokio::runtime::Handle {
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
            tokio::runtime::Handle::block_on(self, future)
        }
    }
}

/// [`Bencher`]'s loops for routines that return futures; made by [`Bencher::to_async`].
pub struct AsyncBencher<'a, 'b, A: AsyncExecutor, M: Measurement = WallTime> {
    b: &'b mut Bencher<'a, M>,
    runner: A,
}

impl<'a, 'b, A: AsyncExecutor, M: Measurement> AsyncBencher<'a, 'b, A, M> {
    pub(crate) fn new(b: &'b mut Bencher<'a, M>, runner: A) -> Self {
        AsyncBencher { b, runner }
    }

    /// [`Bencher::iter`] on `routine()`'s future.
    pub fn iter<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        let AsyncBencher { b, runner } = self;
        b.iter(|| runner.block_on(routine()));
    }

    /// [`Bencher::iter_custom`] on `routine(n)`'s future (wall time only).
    pub fn iter_custom<R, F>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> F,
        F: Future<Output = M::Value>,
    {
        let AsyncBencher { b, runner } = self;
        b.iter_custom(|n| runner.block_on(routine(n)));
    }

    /// [`Bencher::iter_with_setup`] on `routine(input)`'s future.
    pub fn iter_with_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// [`Bencher::iter_with_large_drop`] on `routine()`'s future.
    pub fn iter_with_large_drop<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(|| (), |()| routine(), BatchSize::SmallInput);
    }

    /// [`Bencher::iter_batched`] on `routine(input)`'s future.
    pub fn iter_batched<I, O, S, R, F>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        let AsyncBencher { b, runner } = self;
        b.iter_batched(setup, |input| runner.block_on(routine(input)), size);
    }

    /// [`Bencher::iter_batched_ref`] on `routine(&mut input)`'s future.
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: Future<Output = O>,
    {
        let AsyncBencher { b, runner } = self;
        b.iter_batched_ref(setup, |input| runner.block_on(routine(input)), size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pending until another thread has woken it once: block_on must park, then poll again.
    struct WokenLater(bool);

    impl Future for WokenLater {
        type Output = u32;
        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            if self.0 {
                return Poll::Ready(7);
            }
            self.0 = true;
            let waker = cx.waker().clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(10));
                waker.wake();
            });
            Poll::Pending
        }
    }

    #[test]
    fn futures_executor_waits_for_the_wake_up() {
        assert_eq!(FuturesExecutor.block_on(WokenLater(false)), 7);
        assert_eq!(FuturesExecutor.block_on(async { 1 + 1 }), 2);
    }
}
