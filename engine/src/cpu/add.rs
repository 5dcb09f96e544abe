//! Elementwise [`add`]: `out[i] = a[i] + b[i]`, memory-bound, split across threads in cache-line-aligned chunks.

use super::dtype::Element;
use super::threads::{check_threads, for_chunks, split};
use crate::errors::KernelError;

/// Below this many elements per thread a spawn costs more than the adds it saves. Measured by the
/// scenarios suite (2026-12-02, 2 cores): at 1 << 15, `add/f32/threads=2/len=65536` ran at 16 GB/s
/// against 168 GB/s on one thread; a scoped spawn and join costs tens of microseconds here, the
/// time one thread needs to stream about 2^18 elements.
const MIN_PER_THREAD: usize = 1 << 18;
/// f16/bf16 are widened in blocks this long, on the stack.
const BLOCK: usize = 512;

/// Bytes moved by an add of `len` elements of `T`: two reads and one write each.
pub fn add_bytes<T: Element>(len: usize) -> u64 {
    3 * (len * T::BYTES) as u64
}

/// `out = a + b` elementwise on up to `threads` threads.
pub fn add_into<T: Element>(a: &[T], b: &[T], out: &mut [T], threads: usize) -> Result<(), KernelError> {
    check_threads(threads)?;
    for (what, len) in [("add b", b.len()), ("add out", out.len())] {
        if len != a.len() {
            return Err(KernelError::LengthMismatch {
                what,
                expected: a.len(),
                actual: len,
            });
        }
    }
    let parts = threads.min(a.len() / MIN_PER_THREAD).max(1);
    // 16 elements = one 64-byte line of f32, so threads never write the same line.
    let ranges = split(a.len(), parts, 16);
    for_chunks(out, &ranges, |r, chunk| add_serial(&a[r.clone()], &b[r], chunk));
    Ok(())
}

/// `a + b` elementwise into a new vector, on up to `threads` threads.
pub fn add<T: Element>(a: &[T], b: &[T], threads: usize) -> Result<Vec<T>, KernelError> {
    let mut out = vec![T::default(); a.len()];
    add_into(a, b, &mut out, threads)?;
    Ok(out)
}

fn add_serial<T: Element>(a: &[T], b: &[T], out: &mut [T]) {
    if let (Some(a), Some(b), Some(out)) = (as_f32(a), as_f32(b), as_f32_mut(out)) {
        return add_f32(a, b, out);
    }
    let (mut wa, mut wb, mut wo) = ([0f32; BLOCK], [0f32; BLOCK], [0f32; BLOCK]);
    for ((a, b), out) in a.chunks(BLOCK).zip(b.chunks(BLOCK)).zip(out.chunks_mut(BLOCK)) {
        let n = a.len();
        T::slice_to_f32(a, &mut wa[..n]);
        T::slice_to_f32(b, &mut wb[..n]);
        add_f32(&wa[..n], &wb[..n], &mut wo[..n]);
        T::slice_from_f32(&wo[..n], out);
    }
}

fn add_f32(a: &[f32], b: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected at run time just above.
        return unsafe { add_f32_avx2(a, b, out) };
    }
    add_f32_portable(a, b, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add_f32_avx2(a: &[f32], b: &[f32], out: &mut [f32]) {
    // Same loop; compiled with AVX2 enabled it vectorizes 8 lanes wide instead of SSE2's 4.
    add_f32_portable(a, b, out);
}

#[inline(always)]
fn add_f32_portable(a: &[f32], b: &[f32], out: &mut [f32]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x + y;
    }
}

pub(crate) fn as_f32<T: Element>(s: &[T]) -> Option<&[f32]> {
    (std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>())
        // SAFETY: T is f32, checked just above.
        .then(|| unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<f32>(), s.len()) })
}

pub(crate) fn as_f32_mut<T: Element>(s: &mut [T]) -> Option<&mut [f32]> {
    (std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>())
        // SAFETY: T is f32, checked just above.
        .then(|| unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<f32>(), s.len()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::test_helpers::{assert_close, random_vec};
    use half::{bf16, f16};

    fn check<T: Element>(tol: f64) {
        for (len, threads) in [(1, 1), (1000, 1), (100_003, 2), (600_001, 3)] {
            let a = random_vec::<T>(len, 1);
            let b = random_vec::<T>(len, 2);
            let out = add(&a, &b, threads).unwrap();
            let reference: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x.to_f32() as f64 + y.to_f32() as f64).collect();
            let scale: Vec<f64> = a
                .iter()
                .zip(&b)
                .map(|(x, y)| (x.to_f32().abs() + y.to_f32().abs()) as f64)
                .collect();
            assert_close(T::NAME, &out, &reference, &scale, tol);
        }
    }

    #[test]
    fn add_matches_f64_reference() {
        check::<f32>(1e-6);
        check::<f16>(1e-3);
        check::<bf16>(8e-3);
    }

    #[test]
    fn add_rejects_mismatched_lengths_and_zero_threads() {
        let err = add(&[1.0f32, 2.0], &[1.0], 1).unwrap_err();
        assert_eq!(
            err,
            KernelError::LengthMismatch {
                what: "add b",
                expected: 2,
                actual: 1
            }
        );
        assert_eq!(add(&[1.0f32], &[1.0], 0).unwrap_err(), KernelError::InvalidThreads { threads: 0 });
    }
}
