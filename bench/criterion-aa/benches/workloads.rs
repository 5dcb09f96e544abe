//! The three measurements of harness/src/bin/fixture_compare.rs under criterion, with the same
//! `FIXTURE_SLOWDOWN` knob on `work/scaled`.
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn slowdown() -> f64 {
    std::env::var("FIXTURE_SLOWDOWN").ok().and_then(|v| v.parse().ok()).unwrap_or(1.0)
}

fn workloads(c: &mut Criterion) {
    let v: Vec<u64> = (0..4096).collect();
    let mut g = c.benchmark_group("sum");
    g.throughput(Throughput::Bytes(4096 * 8));
    g.bench_function("array_4k", |b| b.iter(|| black_box(&v).iter().sum::<u64>()));
    g.finish();
    let data: Vec<u8> = (0..1024u32).map(|i| (i * 31 % 251) as u8).collect();
    c.bench_function("hash/fnv_1k", |b| {
        b.iter(|| {
            black_box(&data)
                .iter()
                .fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3))
        })
    });
    let n = (20_000.0 * slowdown()) as u64;
    c.bench_function("work/scaled", |b| {
        b.iter(|| {
            let mut x = 1u64;
            for i in 0..black_box(n) {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
            }
            x
        })
    });
}

criterion_group!(benches, workloads);
criterion_main!(benches);
