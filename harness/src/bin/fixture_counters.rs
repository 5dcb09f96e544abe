//! Measurements whose instruction counts are known in shape, for the counters tests: a loop and
//! twice that loop, costly set-up that must stay outside the count, a routine whose work runs on
//! threads it starts, one that times itself (iter_custom), one that crashes, one marked uncounted.
//!
//! `count/scaled/*` (four kinds of work: a loop, a pointer chase, a sort, a hash map) do
//! `$FIXTURE_COUNTERS_SCALE` percent of their work (default 100): a candidate doing 2% more,
//! or a history with a 10% step, for `scripts/counter_targets.sh` and the compare test.
//! `count/explain` with `FIXTURE_COUNTERS_EXPLAIN=1` is the explain test's candidate.

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

/// `$FIXTURE_COUNTERS_SCALE`, percent of the scaled scenarios' work (default 100).
fn scale() -> u64 {
    std::env::var("FIXTURE_COUNTERS_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
}

/// `$FIXTURE_COUNTERS_EXPLAIN` is `1`: `count/explain`'s candidate, whose `checksum` does 3/2
/// of the baseline's work and which calls a function the baseline never runs (`extra_pass`).
fn explain_candidate() -> bool {
    std::env::var_os("FIXTURE_COUNTERS_EXPLAIN").is_some_and(|v| v == "1")
}

/// `rounds` rounds of a multiply-xor over `data`. Plain loops, so that in a debug build too the
/// work is this function's own (no iterator calls to take it).
#[inline(never)]
fn checksum(data: &[u64], rounds: usize) -> u64 {
    let mut acc = 0u64;
    let mut r = 0;
    while r < rounds {
        let mut i = 0;
        while i < data.len() {
            acc = acc.wrapping_mul(31) ^ data[i];
            i += 1;
        }
        r += 1;
    }
    acc
}

/// Work only the candidate of `count/explain` does: a quarter of a round of `checksum`'s.
#[inline(never)]
fn extra_pass(data: &[u64]) -> u64 {
    let mut acc = 0u64;
    let mut i = 0;
    while i < data.len() {
        acc ^= data[i].rotate_left(7);
        i += 4;
    }
    acc
}

/// A permutation of `0..n` that is one cycle (Sattolo's algorithm, fixed seed).
fn cycle(n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p.swap(i, (x % i as u64) as usize);
    }
    p
}

/// `0..n` in a fixed shuffled order.
fn shuffled(n: usize) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

harness::scenarios!(|| vec![
    Scenario::measure("count/loop_100k", |b| {
        black_box(spin(2_000_000)); // set-up, 20x the routine: never counted
        b.iter(|| spin(100_000));
    }),
    Scenario::measure("count/loop_200k", |b| b.iter(|| spin(200_000))),
    Scenario::measure("count/scaled/loop", |b| {
        let n = 1000 * scale();
        b.iter(|| spin(n))
    }),
    Scenario::measure("count/scaled/chase", |b| {
        // A random cycle through 1 MiB of indices: every step a dependent load.
        let next = cycle(1 << 17);
        let steps = 500 * scale();
        b.iter(|| (0..steps).fold(0usize, |i, _| next[i]))
    }),
    Scenario::measure("count/scaled/sort", |b| {
        // `scale` copies of one shuffled block of 64: the work grows with the copies exactly
        // (sorting one longer vector would not: pdqsort's cost is not linear in its length).
        let block = shuffled(64);
        let copies = scale() as usize;
        b.iter_batched(
            || vec![block.clone(); copies],
            |mut blocks| blocks.iter_mut().for_each(|v| v.sort_unstable()),
        )
    }),
    Scenario::measure("count/scaled/hashmap", |b| {
        // std's HashMap seeds its hasher at random per process: counts vary a little, honestly.
        let n = 20 * scale();
        b.iter(|| (0..n).map(|i| (i, i)).collect::<std::collections::HashMap<u64, u64>>().len())
    }),
    Scenario::measure("count/explain", |b| {
        let data: Vec<u64> = black_box((0..1000).collect());
        let candidate = explain_candidate();
        b.iter(|| {
            let rounds = if candidate { 15 } else { 10 };
            let extra = if candidate { extra_pass(&data) } else { 0 };
            checksum(black_box(&data), rounds) ^ extra ^ spin(5000)
        })
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
