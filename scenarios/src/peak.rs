//! This machine's ceilings, measured in the same run as the kernels: `peak/fma_f32/threads=N`
//! (`gflop_per_s`, AVX2+FMA where available) and `peak/triad/threads=N` (`gbytes_per_s`, STREAM triad),
//! and `peak/matmul_f32_of_fma/threads=N/MxKxN`: the matmul's share of the FMA peak, both measured in
//! the same process, so the ratio gets an interval across processes instead of dividing two centres.

use std::time::{Duration, Instant};

use engine::cpu::{
    self,
    peak::{self, DEFAULT_TRIAD_LEN, FmaIsa},
};
use harness::{Bencher, Better, Scenario, Throughput, Unit};

use crate::inputs::{random_vec, thread_counts};

/// FMA rounds per thread per sample: 384 MFLOP per thread with AVX2, a few ms on a ~3 GHz core.
const FMA_ITERS: u64 = 2_000_000;

harness::scenarios!(|| {
    thread_counts()
        .into_iter()
        .flat_map(|threads| {
            [
                ceiling(format!("peak/fma_f32/threads={threads}"), move |b| {
                    // AVX2+FMA is what the matmul's micro-kernels use, hence the roof to compare them with.
                    let isa = FmaIsa::best_avx2_or_portable();
                    b.throughput(Throughput::Flops(peak::fma_kernel_flops(isa, FMA_ITERS) * threads as u64));
                    // The probe times itself from a barrier, so thread spawns stay out of the sample.
                    b.iter_timed(|| peak::measure_fma_peak(isa, threads, FMA_ITERS).elapsed);
                }),
                ceiling(format!("peak/triad/threads={threads}"), move |b| {
                    // Three 64 MiB arrays, far past the last-level cache, faulted in before timing.
                    let (mut a, x, y) = (
                        vec![0f32; DEFAULT_TRIAD_LEN],
                        vec![1f32; DEFAULT_TRIAD_LEN],
                        vec![2f32; DEFAULT_TRIAD_LEN],
                    );
                    peak::triad(&mut a, &x, &y, 3.0, threads);
                    b.throughput(Throughput::Bytes(peak::triad_bytes(DEFAULT_TRIAD_LEN)));
                    b.iter(|| peak::triad(&mut a, &x, &y, 3.0, threads));
                }),
                ceiling(format!("peak/matmul_f32_of_fma/threads={threads}/32x1024x1024"), move |b| {
                    matmul_of_fma_peak(b, threads, (32, 1024, 1024));
                }),
            ]
        })
        .collect::<Vec<_>>()
});

/// A ceiling of this machine: never counted under `--counters` (a fixed probe's instruction count
/// says nothing about the code, and under Callgrind one FMA probe call takes about 40 s).
#[track_caller]
fn ceiling(name: String, f: impl Fn(&mut Bencher) + Send + Sync + 'static) -> Scenario {
    Scenario::measure(name, f).uncounted("a machine ceiling: its rate is the hardware's, and a fixed probe's count says nothing")
}

/// Each iteration times one f32 matmul call, then one FMA probe on the same threads, so drift and
/// load hit both. Reports the matmul's `latency_ns` / `gflop_per_s`, `fma_gflop_per_s`, and
/// `of_fma_peak` (%): the process's matmul rate over its FMA rate, each work over mean time.
fn matmul_of_fma_peak(b: &mut Bencher, threads: usize, (m, k, n): (usize, usize, usize)) {
    let isa = FmaIsa::best_avx2_or_portable();
    let a = random_vec::<f32>(m * k, 1);
    let w = random_vec::<f32>(k * n, 2);
    let mut c = vec![0f32; m * n];
    let (mut mm, mut fma) = (Vec::<Duration>::new(), Vec::<Duration>::new());
    let mut fma_work = 0;
    b.throughput(Throughput::Flops(cpu::matmul_flops(m, k, n)));
    b.iter_timed(|| {
        let start = Instant::now();
        cpu::matmul_into(&a, &w, &mut c, (m, k, n), threads).expect("shapes match");
        mm.push(start.elapsed());
        let probe = peak::measure_fma_peak(isa, threads, FMA_ITERS);
        fma_work = probe.work;
        fma.push(probe.elapsed);
        *mm.last().expect("just pushed")
    });
    // Warm-up iterations ran first: keep the measured ones. Rates are work over mean time, as the
    // harness derives `gflop_per_s`.
    let measured = |d: &[Duration]| {
        let d = &d[d.len() - b.iterations()..];
        d.iter().map(Duration::as_secs_f64).sum::<f64>() / d.len() as f64
    };
    let mm_rate = cpu::matmul_flops(m, k, n) as f64 / measured(&mm) / 1e9;
    let fma_rate = fma_work as f64 / measured(&fma) / 1e9;
    b.record_iterations("fma_gflop_per_s", Unit::GFlopsPerSec, Better::Higher, vec![fma_rate]);
    b.record_iterations(
        "of_fma_peak",
        Unit::Other("%".into()),
        Better::Higher,
        vec![100.0 * mm_rate / fma_rate],
    );
}
