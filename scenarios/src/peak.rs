//! This machine's ceilings, measured in the same run as the kernels: `peak/fma_f32/threads=N`
//! (`gflop_per_s`, AVX2+FMA where available) and `peak/triad/threads=N` (`gbytes_per_s`, STREAM triad).

use engine::cpu::peak::{self, DEFAULT_TRIAD_LEN, FmaIsa};
use harness::{Scenario, Throughput};

use crate::inputs::thread_counts;

/// FMA rounds per thread per sample: 384 MFLOP per thread with AVX2, a few ms on a ~3 GHz core.
const FMA_ITERS: u64 = 2_000_000;

harness::scenarios!(|| {
    thread_counts()
        .into_iter()
        .flat_map(|threads| {
            [
                Scenario::measure(format!("peak/fma_f32/threads={threads}"), move |b| {
                    // AVX2+FMA is what the matmul's micro-kernels use, hence the roof to compare them with.
                    let isa = FmaIsa::best_avx2_or_portable();
                    b.throughput(Throughput::Flops(peak::fma_kernel_flops(isa, FMA_ITERS) * threads as u64));
                    // The probe times itself from a barrier, so thread spawns stay out of the sample.
                    b.iter_timed(|| peak::measure_fma_peak(isa, threads, FMA_ITERS).elapsed);
                }),
                Scenario::measure(format!("peak/triad/threads={threads}"), move |b| {
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
            ]
        })
        .collect::<Vec<_>>()
});
