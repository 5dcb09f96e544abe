//! Machine ceilings: the f32 FMA peak ([`measure_fma_peak`], GFLOP/s) and memory bandwidth ([`measure_triad_bandwidth`], GB/s).
//!
//! Kernel throughput means little without the roof it runs under, so scenarios report achieved GFLOP/s
//! beside these. The FMA probe runs [`FMA_ACCUMULATORS`] independent vector accumulators: FMA latency is
//! about 4 cycles on current x86 cores with 2 FMA pipes, so at least 8 chains are needed to fill them; 12
//! leaves slack without spilling (16 ymm registers). The bandwidth probe is STREAM's triad
//! (McCalpin, <https://www.cs.virginia.edu/stream/>), counted as STREAM counts it: 3 x 4 bytes per element,
//! write-allocate traffic excluded.

use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use super::threads::{for_chunks, split};

/// Independent accumulator chains in the FMA probes.
pub const FMA_ACCUMULATORS: usize = 12;
/// Iterations per thread that make one FMA probe run take roughly 50 ms on a ~3 GHz core.
pub const DEFAULT_FMA_ITERS: u64 = 20_000_000;
/// Elements per array in the default triad: 3 arrays of 64 MiB, well past any last-level cache.
pub const DEFAULT_TRIAD_LEN: usize = 16 << 20;

/// The instruction set an FMA probe runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmaIsa {
    /// 512-bit `vfmadd` (16 f32 lanes).
    Avx512,
    /// 256-bit AVX2 + FMA (8 f32 lanes): the peak the spec compares matmul against.
    Avx2Fma,
    /// Plain f32 multiply-add the compiler vectorizes for the baseline target (SSE2 on x86-64).
    Portable,
}

impl FmaIsa {
    /// f32 lanes per accumulator.
    pub fn lanes(self) -> usize {
        match self {
            FmaIsa::Avx512 => 16,
            FmaIsa::Avx2Fma | FmaIsa::Portable => 8,
        }
    }

    /// Whether this CPU can run it (checked at run time).
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                FmaIsa::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
                FmaIsa::Avx2Fma => std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"),
                FmaIsa::Portable => true,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == FmaIsa::Portable
        }
    }

    /// AVX2+FMA where available, else the portable loop: the default probe.
    pub fn best_avx2_or_portable() -> FmaIsa {
        if FmaIsa::Avx2Fma.available() {
            FmaIsa::Avx2Fma
        } else {
            FmaIsa::Portable
        }
    }
}

/// FLOPs done by one [`fma_kernel`] call.
pub fn fma_kernel_flops(isa: FmaIsa, iters: u64) -> u64 {
    iters * (FMA_ACCUMULATORS * isa.lanes() * 2) as u64
}

/// Runs `iters` rounds of FMAs on one thread; returns a value derived from the accumulators so the work
/// cannot be optimized away. Falls back to the portable loop when `isa` is not available.
pub fn fma_kernel(isa: FmaIsa, iters: u64) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if isa.available() {
        match isa {
            // SAFETY: the ISA was detected at run time by `available`.
            FmaIsa::Avx512 => return unsafe { x86::fma_avx512(iters) },
            // SAFETY: as above.
            FmaIsa::Avx2Fma => return unsafe { x86::fma_avx2(iters) },
            FmaIsa::Portable => {}
        }
    }
    fma_portable(iters)
}

fn fma_portable(iters: u64) -> f32 {
    let (a, b) = (black_box(0.999_999f32), black_box(1e-7f32));
    let mut acc = [[1f32; 8]; FMA_ACCUMULATORS];
    for _ in 0..iters {
        for chain in acc.iter_mut() {
            for x in chain.iter_mut() {
                *x = *x * a + b;
            }
        }
    }
    acc.iter().flatten().sum()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::FMA_ACCUMULATORS;
    use std::arch::x86_64::*;
    use std::hint::black_box;

    // x -> x * 0.999999 + 1e-7 converges to 0.1: no overflow, no denormals, whatever `iters` is.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn fma_avx2(iters: u64) -> f32 {
        let a = _mm256_set1_ps(black_box(0.999_999));
        let b = _mm256_set1_ps(black_box(1e-7));
        let mut acc = [_mm256_set1_ps(1.0); FMA_ACCUMULATORS];
        for _ in 0..iters {
            for x in acc.iter_mut() {
                *x = _mm256_fmadd_ps(*x, a, b);
            }
        }
        let mut lanes = [0f32; 8];
        let mut total = 0.0;
        for x in acc {
            // SAFETY: `lanes` holds 8 f32, the width of one __m256.
            unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), x) };
            total += lanes.iter().sum::<f32>();
        }
        total
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn fma_avx512(iters: u64) -> f32 {
        let a = _mm512_set1_ps(black_box(0.999_999));
        let b = _mm512_set1_ps(black_box(1e-7));
        let mut acc = [_mm512_set1_ps(1.0); FMA_ACCUMULATORS];
        for _ in 0..iters {
            for x in acc.iter_mut() {
                *x = _mm512_fmadd_ps(*x, a, b);
            }
        }
        acc.iter().map(|&x| _mm512_reduce_add_ps(x)).sum()
    }
}

/// A throughput measurement of one probe run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throughput {
    /// Threads that ran the probe.
    pub threads: usize,
    /// Work done: FLOPs for the FMA probe, bytes for the triad.
    pub work: u64,
    /// Wall time from the common start to the last thread's finish.
    pub elapsed: Duration,
}

impl Throughput {
    /// Work per second in units of 1e9 (GFLOP/s or GB/s).
    pub fn giga_per_s(&self) -> f64 {
        self.work as f64 / self.elapsed.as_secs_f64() / 1e9
    }
}

/// Measures the f32 FMA peak on `threads` threads, `iters` rounds each, started together at a barrier.
///
/// Falls back to the portable loop when `isa` is unavailable (check [`FmaIsa::available`] first to know).
pub fn measure_fma_peak(isa: FmaIsa, threads: usize, iters: u64) -> Throughput {
    let threads = threads.max(1);
    let isa = if isa.available() { isa } else { FmaIsa::Portable };
    let barrier = Barrier::new(threads);
    let elapsed = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let start = Instant::now();
                    black_box(fma_kernel(isa, iters));
                    (start, Instant::now())
                })
            })
            .collect();
        let spans: Vec<_> = handles.into_iter().map(|h| h.join().expect("FMA probe thread panicked")).collect();
        let start = spans.iter().map(|s| s.0).min().expect("at least one thread");
        let end = spans.iter().map(|s| s.1).max().expect("at least one thread");
        end - start
    });
    Throughput {
        threads,
        work: fma_kernel_flops(isa, iters) * threads as u64,
        elapsed,
    }
}

/// Bytes STREAM counts for one triad over `len` elements: read `b` and `c`, write `a`.
pub fn triad_bytes(len: usize) -> u64 {
    3 * 4 * len as u64
}

/// STREAM triad `a[i] = b[i] + s * c[i]`, split across up to `threads` threads.
///
/// # Panics
/// When the three slices differ in length.
pub fn triad(a: &mut [f32], b: &[f32], c: &[f32], s: f32, threads: usize) {
    assert!(
        a.len() == b.len() && b.len() == c.len(),
        "triad: a, b, c lengths {} {} {} differ",
        a.len(),
        b.len(),
        c.len()
    );
    let ranges = split(a.len(), threads.max(1), 16);
    for_chunks(a, &ranges, |r, chunk| {
        for ((x, y), z) in chunk.iter_mut().zip(&b[r.clone()]).zip(&c[r]) {
            *x = y + s * z;
        }
    });
}

/// Best of `reps` triads over fresh arrays of `len` f32 each, on `threads` threads.
pub fn measure_triad_bandwidth(threads: usize, len: usize, reps: usize) -> Throughput {
    let mut a = vec![0f32; len];
    let b = vec![1f32; len];
    let c = vec![2f32; len];
    // The first pass faults the pages in; it is not measured.
    triad(&mut a, &b, &c, 3.0, threads);
    let elapsed = (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            triad(&mut a, &b, &c, 3.0, threads);
            black_box(&mut a);
            start.elapsed()
        })
        .min()
        .expect("at least one rep");
    Throughput {
        threads: threads.max(1),
        work: triad_bytes(len),
        elapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_isa_computes_the_same_recurrence() {
        // x -> 0.999999x + 1e-7 from 1.0, 100 rounds, summed over all lanes; FMA and mul+add differ only
        // in rounding.
        let mut x = 1f64;
        for _ in 0..100 {
            x = x * 0.999_999 + 1e-7;
        }
        for isa in [FmaIsa::Avx512, FmaIsa::Avx2Fma, FmaIsa::Portable] {
            let lanes = if isa.available() { isa.lanes() } else { 8 };
            let want = x * (FMA_ACCUMULATORS * lanes) as f64;
            let got = fma_kernel(isa, 100) as f64;
            assert!((got - want).abs() < 1e-4 * want, "{isa:?}: {got} vs {want}");
        }
        assert_eq!(fma_kernel_flops(FmaIsa::Avx2Fma, 10), 10 * 12 * 8 * 2);
    }

    #[test]
    fn probes_report_positive_throughput() {
        let t = measure_fma_peak(FmaIsa::best_avx2_or_portable(), 2, 1000);
        assert!(t.giga_per_s() > 0.0 && t.threads == 2);
        let t = measure_triad_bandwidth(2, 4096, 2);
        assert_eq!(t.work, triad_bytes(4096));
        assert!(t.giga_per_s() > 0.0);
    }

    #[test]
    fn triad_computes_b_plus_s_c() {
        let mut a = vec![0f32; 100];
        let b: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let c = vec![0.5f32; 100];
        triad(&mut a, &b, &c, 4.0, 3);
        assert!(a.iter().enumerate().all(|(i, &v)| v == i as f32 + 2.0));
    }
}
