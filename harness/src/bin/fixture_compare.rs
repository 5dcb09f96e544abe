//! Fixture suite for `compare` tests: a few cheap measurements with known relative cost.
//! `FIXTURE_SLOWDOWN=F` makes `work/scaled` do F times the work (a known, injected regression).

use std::hint::black_box;

use harness::{Scenario, Throughput, Unit};

fn slowdown() -> f64 {
    std::env::var("FIXTURE_SLOWDOWN").ok().and_then(|v| v.parse().ok()).unwrap_or(1.0)
}

harness::scenario!(Scenario::check("check/passes", || ()));

harness::scenario!(Scenario::measure("sum/array_4k", |b| {
    let v: Vec<u64> = (0..4096).collect();
    b.throughput(Throughput::Bytes(4096 * 8));
    b.iter(|| black_box(&v).iter().sum::<u64>())
}));

harness::scenario!(Scenario::measure("hash/fnv_1k", |b| {
    let data: Vec<u8> = (0..1024u32).map(|i| (i * 31 % 251) as u8).collect();
    b.iter(|| {
        black_box(&data).iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
            (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    })
}));

harness::scenario!(Scenario::measure("work/scaled", |b| {
    let n = (20_000.0 * slowdown()) as u64;
    b.record("work_units", Unit::Count, n as f64);
    b.iter(|| {
        let mut x = 1u64;
        for i in 0..black_box(n) {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
        }
        x
    })
}));

fn main() -> std::process::ExitCode {
    harness::main()
}
