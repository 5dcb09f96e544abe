//! Prints achieved kernel throughput beside the measured machine peaks; run with `--release`.
//!
//! A sanity check for humans, not a benchmark: best of a few repetitions, no statistics (that is the
//! harness's job).

use std::hint::black_box;
use std::time::{Duration, Instant};

use engine::cpu::peak::{self, FmaIsa};
use engine::cpu::{self, Element};
use engine::sampling::{self, LogitsProcessor};
use half::{bf16, f16};

/// Best wall time of `f` over repetitions filling about `budget`.
fn best_of(budget: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut best = Duration::MAX;
    let mut reps = 0;
    while reps < 3 || (start.elapsed() < budget && reps < 1000) {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
        reps += 1;
    }
    best
}

fn values<T: Element>(len: usize) -> Vec<T> {
    (0..len)
        .map(|i| T::from_f32(((i * 7919) % 1000) as f32 / 1000.0 - 0.4995))
        .collect()
}

fn matmul_row<T: Element>(shape: (usize, usize, usize), threads: usize, peak: f64) {
    let (m, k, n) = shape;
    let a = values::<T>(m * k);
    let b = values::<T>(k * n);
    let mut c = vec![T::default(); m * n];
    let t = best_of(Duration::from_millis(300), || {
        cpu::matmul_into(&a, &b, &mut c, shape, threads).unwrap();
        black_box(&mut c);
    });
    let gflops = cpu::matmul_flops(m, k, n) as f64 / t.as_secs_f64() / 1e9;
    println!(
        "matmul {:>4} {m:>3}x{k:>4}x{n:>4} threads={threads}: {gflops:7.1} GFLOP/s  {:5.1}% of AVX2+FMA peak  ({:.1} us)",
        T::NAME,
        100.0 * gflops / peak,
        t.as_secs_f64() * 1e6
    );
}

fn main() {
    let all = cpu::configured_threads();
    let mut peaks = Vec::new();
    for isa in [FmaIsa::Avx2Fma, FmaIsa::Avx512, FmaIsa::Portable] {
        if !isa.available() {
            println!("fma peak {isa:?}: not available");
            continue;
        }
        for threads in [1, all] {
            let best = (0..3)
                .map(|_| peak::measure_fma_peak(isa, threads, peak::DEFAULT_FMA_ITERS).giga_per_s())
                .fold(0.0, f64::max);
            println!("fma peak {isa:?} threads={threads}: {best:.1} GFLOP/s");
            peaks.push((isa, threads, best));
        }
    }
    let avx2_peak = |threads| {
        peaks
            .iter()
            .find(|p| p.0 == FmaIsa::best_avx2_or_portable() && p.1 == threads)
            .map_or(f64::NAN, |p| p.2)
    };
    for threads in [1, all] {
        let bw = peak::measure_triad_bandwidth(threads, peak::DEFAULT_TRIAD_LEN, 5).giga_per_s();
        println!("triad bandwidth threads={threads}: {bw:.1} GB/s");
    }
    for shape in [(1, 256, 256), (32, 512, 512), (32, 1024, 1024)] {
        for threads in [1, all] {
            matmul_row::<f32>(shape, threads, avx2_peak(threads));
            matmul_row::<f16>(shape, threads, avx2_peak(threads));
            matmul_row::<bf16>(shape, threads, avx2_peak(threads));
        }
    }
    let len = 1 << 22;
    let (a, b) = (values::<f32>(len), values::<f32>(len));
    let mut out = vec![0f32; len];
    for threads in [1, all] {
        let t = best_of(Duration::from_millis(300), || cpu::add_into(&a, &b, &mut out, threads).unwrap());
        println!(
            "add f32 len={len} threads={threads}: {:.1} GB/s",
            cpu::add_bytes::<f32>(len) as f64 / t.as_secs_f64() / 1e9
        );
        let mut means = vec![0f32; 1024];
        let t = best_of(Duration::from_millis(300), || {
            cpu::reduce_mean_rows_into(&a, len / 1024, &mut means, threads).unwrap()
        });
        println!(
            "reduce_mean_rows f32 1024x{} threads={threads}: {:.1} GB/s",
            len / 1024,
            cpu::reduce_bytes::<f32>(len) as f64 / t.as_secs_f64() / 1e9
        );
        let (rows, cols) = (32_000, 1024);
        let table = values::<f32>(rows * cols);
        let idx: Vec<u32> = (0..512u32).map(|i| (i * 7919) % rows as u32).collect();
        let mut g = vec![0f32; idx.len() * cols];
        let t = best_of(Duration::from_millis(300), || {
            cpu::gather_into(&table, cols, &idx, &mut g, threads).unwrap()
        });
        println!(
            "gather f32 512 rows of {cols} threads={threads}: {:.1} GB/s",
            cpu::gather_bytes::<f32>(idx.len(), cols) as f64 / t.as_secs_f64() / 1e9
        );
    }
    for vocab in [32_000, 151_936] {
        let logits: Vec<f32> = (0..vocab).map(|i| ((i * 7919) % 10_007) as f32 / 1000.0).collect();
        let k = 50;
        let partial = best_of(Duration::from_millis(300), || {
            black_box(sampling::top_k_indices(&logits, k));
        });
        let full = best_of(Duration::from_millis(300), || {
            black_box(sampling::top_k_indices_full_sort(&logits, k));
        });
        println!(
            "top-k k={k} vocab={vocab}: partial {:.1} us, full sort {:.1} us, full/partial = {:.1}x",
            partial.as_secs_f64() * 1e6,
            full.as_secs_f64() * 1e6,
            full.as_secs_f64() / partial.as_secs_f64()
        );
        let chain = sampling::Chain::new()
            .with(sampling::RepetitionPenalty::new(1.1).unwrap())
            .with(sampling::Temperature::new(0.8).unwrap())
            .with(sampling::TopK::new(k).unwrap())
            .with(sampling::TopP::new(0.9).unwrap())
            .with(sampling::MinP::new(0.05).unwrap());
        let mut work = logits.clone();
        let step = best_of(Duration::from_millis(300), || {
            work.copy_from_slice(&logits);
            chain.process(&mut work, &[1, 2, 3]);
        });
        println!("sampling chain step vocab={vocab}: {:.1} us", step.as_secs_f64() * 1e6);
    }
}
