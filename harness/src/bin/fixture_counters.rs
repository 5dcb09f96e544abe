//! Measurements whose instruction counts are known in shape, for the counters tests: a loop and
//! twice that loop, costly set-up that must stay outside the count, a routine whose work runs on
//! threads it starts, one that times itself (iter_custom), one that crashes, one marked uncounted.

use std::hint::black_box;
use std::time::{Duration, Instant};

use harness::Scenario;

/// `n` rounds of a dependent add chain the optimiser cannot fold.
#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        acc = black_box(acc.wrapping_add(i ^ (acc >> 3)));
    }
    acc
}

harness::scenarios!(|| vec![
    Scenario::measure("count/loop_100k", |b| {
        black_box(spin(2_000_000)); // set-up, 20x the routine: never counted
        b.iter(|| spin(100_000));
    }),
    Scenario::measure("count/loop_200k", |b| b.iter(|| spin(200_000))),
    // 100k rounds scaled by FIXTURE_COUNTERS_SCALE percent: a candidate doing 2% more work.
    Scenario::measure("count/scaled", |b| {
        let percent: u64 = std::env::var("FIXTURE_COUNTERS_SCALE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(100);
        b.iter(|| spin(1000 * percent))
    }),
    Scenario::measure("count/batched_100k", |b| {
        b.iter_batched(|| spin(1_000_000), |seed| spin(100_000 + u64::from(seed == u64::MAX)));
    }),
    Scenario::measure("count/threads_2x100k", |b| {
        b.iter(|| {
            let workers: Vec<_> = (0..2).map(|_| std::thread::spawn(|| spin(100_000))).collect();
            workers.into_iter().fold(0u64, |acc, w| acc.wrapping_add(w.join().unwrap()))
        })
    }),
    Scenario::measure("count/custom", |b| {
        b.iter_custom(|n| {
            let t = Instant::now();
            for _ in 0..n {
                black_box(spin(1000));
            }
            t.elapsed()
        })
    }),
    Scenario::measure("count/crash", |b| {
        b.iter(|| {
            if std::env::var_os("FIXTURE_COUNTERS_CRASH").is_some() {
                // SAFETY: raising a signal in this process: the crash is the point.
                unsafe { libc::raise(libc::SIGSEGV) };
            }
            spin(10)
        })
    }),
    Scenario::measure("count/device", |b| b.iter_timed(|| Duration::from_micros(5)))
        .uncounted("stands for a CUDA kernel: timed by its own events"),
    Scenario::check("count/check", || assert_eq!(spin(10), spin(10))),
]);

fn main() -> std::process::ExitCode {
    harness::main()
}
