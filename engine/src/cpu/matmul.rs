//! [`matmul`]: row-major `C (m x n) = A (m x k) * B (k x n)` on `matrixmultiply`'s packed, blocked sgemm.
//!
//! `matrixmultiply` picks its micro-kernel at run time (AVX-512, AVX2+FMA, AVX, SSE2 on x86-64) and packs
//! panels for the cache; it beats a hand-written kernel we could keep correct here. Only for m <= 2
//! (decode-shaped GEMV), where packing B costs more than it saves, a hand-written AVX2+FMA row kernel runs
//! instead. We add the threading:
//! each thread runs sgemm on its block of output columns or rows, as chosen by the shape's [`Plan`], which
//! is cached process-wide ([`super::plan`]). f16 and bf16 are widened to f32 per thread block (so the
//! conversion is split across threads too), multiplied and accumulated in f32, and narrowed once at the end.

use std::ops::Range;

use super::add::as_f32;
use super::dtype::Element;
use super::plan::{Plan, Split, plan_for};
use super::threads::{check_threads, split};
use crate::errors::KernelError;

/// FLOPs of an `m x k x n` matmul: one multiply and one add per `(i, j, l)`.
pub fn matmul_flops(m: usize, k: usize, n: usize) -> u64 {
    2 * (m as u64) * (k as u64) * (n as u64)
}

/// Minimum bytes an `m x k x n` matmul of `T` moves: read A and B once, write C once.
pub fn matmul_bytes<T: Element>(m: usize, k: usize, n: usize) -> u64 {
    ((m * k + k * n + m * n) * T::BYTES) as u64
}

/// `c = a * b` for row-major `a` (`m x k`), `b` (`k x n`), `c` (`m x n`), on up to `threads` threads.
///
/// Builds (or finds) the shape's plan in the process-wide cache; see [`super::plan::cached_plan`].
pub fn matmul_into<T: Element>(a: &[T], b: &[T], c: &mut [T], (m, k, n): (usize, usize, usize), threads: usize) -> Result<(), KernelError> {
    check_threads(threads)?;
    for (what, expected, actual) in [
        ("matmul a (m x k)", m * k, a.len()),
        ("matmul b (k x n)", k * n, b.len()),
        ("matmul c (m x n)", m * n, c.len()),
    ] {
        if expected != actual {
            return Err(KernelError::LengthMismatch { what, expected, actual });
        }
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        c.fill(T::default());
        return Ok(());
    }
    let plan = plan_for(m, k, n);
    let parts = threads.min(plan.max_threads);
    let blocks: Vec<(Range<usize>, Range<usize>)> = match plan.split {
        Split::Columns => split(n, parts, 16).into_iter().map(|cols| (0..m, cols)).collect(),
        Split::Rows => split(m, parts, 8).into_iter().map(|rows| (rows, 0..n)).collect(),
    };
    let out = SharedOut(c.as_mut_ptr());
    std::thread::scope(|s| {
        let mut blocks = blocks.into_iter();
        let first = blocks.next();
        for (rows, cols) in blocks {
            s.spawn(move || block(a, b, out, plan, rows, cols));
        }
        if let Some((rows, cols)) = first {
            block(a, b, out, plan, rows, cols);
        }
    });
    Ok(())
}

/// `a * b` into a new `m x n` vector; see [`matmul_into`].
pub fn matmul<T: Element>(a: &[T], b: &[T], shape: (usize, usize, usize), threads: usize) -> Result<Vec<T>, KernelError> {
    let mut c = vec![T::default(); shape.0 * shape.2];
    matmul_into(a, b, &mut c, shape, threads)?;
    Ok(c)
}

/// C's base pointer, shared by threads that each write a disjoint block.
#[derive(Clone, Copy)]
struct SharedOut<T>(*mut T);
// SAFETY: every thread writes only its own (rows, cols) block of C; the blocks are disjoint by `split`.
unsafe impl<T: Send> Send for SharedOut<T> {}
unsafe impl<T: Send> Sync for SharedOut<T> {}

/// Computes `C[rows, cols]`.
fn block<T: Element>(a: &[T], b: &[T], c: SharedOut<T>, plan: Plan, rows: Range<usize>, cols: Range<usize>) {
    let Plan { k, n, .. } = plan;
    let (mr, w) = (rows.len(), cols.len());
    if let (Some(a), Some(b)) = (as_f32(a), as_f32(b)) {
        // SAFETY: A's rows and B's columns are in bounds (lengths checked by the caller); C's block is in
        // bounds and written by this thread alone. T is f32 here, so the cast pointer is correct.
        unsafe {
            sgemm(
                mr,
                k,
                w,
                a.as_ptr().add(rows.start * k),
                k,
                b.as_ptr().add(cols.start),
                n,
                c.0.cast::<f32>().add(rows.start * n + cols.start),
                n,
            );
        }
        return;
    }
    let mut wa = vec![0f32; mr * k];
    T::slice_to_f32(&a[rows.start * k..rows.end * k], &mut wa);
    let mut wb = vec![0f32; k * w];
    for (l, dst) in wb.chunks_exact_mut(w).enumerate() {
        T::slice_to_f32(&b[l * n + cols.start..l * n + cols.end], dst);
    }
    let mut wc = vec![0f32; mr * w];
    // SAFETY: the three buffers are local and sized mr x k, k x w, mr x w.
    unsafe { sgemm(mr, k, w, wa.as_ptr(), k, wb.as_ptr(), w, wc.as_mut_ptr(), w) };
    for (i, src) in rows.zip(wc.chunks_exact(w)) {
        // SAFETY: row i, columns `cols` of C lie in this thread's block, disjoint from every other's.
        let dst = unsafe { std::slice::from_raw_parts_mut(c.0.add(i * n + cols.start), w) };
        T::slice_from_f32(src, dst);
    }
}

/// Rows of A up to which the hand-written GEMV path beats packing panels for `matrixmultiply`.
const GEMV_MAX_M: usize = 2;

/// Row-major sgemm with `beta = 0` (C is overwritten, never read).
///
/// # Safety
/// `a`, `b`, `c` must address `m x k`, `k x n`, `m x n` elements with the given row strides, and `c`
/// must not be written concurrently by anyone else.
#[expect(clippy::too_many_arguments, reason = "mirrors the BLAS signature it wraps")]
unsafe fn sgemm(m: usize, k: usize, n: usize, a: *const f32, lda: usize, b: *const f32, ldb: usize, c: *mut f32, ldc: usize) {
    if m <= GEMV_MAX_M {
        for i in 0..m {
            // SAFETY: row i of A and C and rows 0..k of B are in bounds by this function's contract.
            unsafe {
                let a_row = std::slice::from_raw_parts(a.add(i * lda), k);
                let c_row = std::slice::from_raw_parts_mut(c.add(i * ldc), n);
                gemv_row(a_row, |l| std::slice::from_raw_parts(b.add(l * ldb), n), c_row);
            }
        }
        return;
    }
    // SAFETY: forwarded from this function's contract.
    unsafe {
        matrixmultiply::sgemm(m, k, n, 1.0, a, lda as isize, 1, b, ldb as isize, 1, 0.0, c, ldc as isize, 1);
    }
}

/// `c = a_row * B` for one row: a decode-shaped (m = 1) product streams B once, so packing it into
/// panels (what `matrixmultiply` does) costs more than it saves.
fn gemv_row<'b>(a_row: &[f32], b_row: impl Fn(usize) -> &'b [f32], c: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: AVX2 and FMA were detected at run time just above.
        return unsafe { gemv_row_avx2_fma(a_row, b_row, c) };
    }
    gemv_row_portable(a_row, b_row, c);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn gemv_row_avx2_fma<'b>(a_row: &[f32], b_row: impl Fn(usize) -> &'b [f32], c: &mut [f32]) {
    // Same loop; with FMA enabled `mul_add` becomes a vector vfmadd instead of a libm call.
    gemv_body(a_row, b_row, c, |x, y, z| x.mul_add(y, z));
}

fn gemv_row_portable<'b>(a_row: &[f32], b_row: impl Fn(usize) -> &'b [f32], c: &mut [f32]) {
    gemv_body(a_row, b_row, c, |x, y, z| x * y + z);
}

#[inline(always)]
fn gemv_body<'b>(a_row: &[f32], b_row: impl Fn(usize) -> &'b [f32], c: &mut [f32], fma: impl Fn(f32, f32, f32) -> f32) {
    c.fill(0.0);
    // Four rows of B per pass over C: one load and store of C per four FMAs instead of per one.
    let k4 = a_row.len() / 4 * 4;
    for l in (0..k4).step_by(4) {
        let (b0, b1, b2, b3) = (b_row(l), b_row(l + 1), b_row(l + 2), b_row(l + 3));
        let (a0, a1, a2, a3) = (a_row[l], a_row[l + 1], a_row[l + 2], a_row[l + 3]);
        for (j, cj) in c.iter_mut().enumerate() {
            *cj = fma(a3, b3[j], fma(a2, b2[j], fma(a1, b1[j], fma(a0, b0[j], *cj))));
        }
    }
    for (l, &al) in a_row.iter().enumerate().skip(k4) {
        for (cj, &bj) in c.iter_mut().zip(b_row(l)) {
            *cj = fma(al, bj, *cj);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::plan::cached_plan;
    use crate::cpu::test_helpers::{assert_close, random_vec};
    use half::{bf16, f16};

    fn reference<T: Element>(a: &[T], b: &[T], (m, k, n): (usize, usize, usize)) -> (Vec<f64>, Vec<f64>) {
        let mut exact = vec![0f64; m * n];
        let mut scale = vec![0f64; m * n];
        for i in 0..m {
            for l in 0..k {
                let x = a[i * k + l].to_f32() as f64;
                for j in 0..n {
                    let y = b[l * n + j].to_f32() as f64;
                    exact[i * n + j] += x * y;
                    scale[i * n + j] += (x * y).abs();
                }
            }
        }
        (exact, scale)
    }

    // Tolerances are relative to sum |a_il * b_lj| (the error bound of any summation order scales with it,
    // not with |c_ij|, which can cancel to near zero). The reference multiplies the same rounded inputs, so
    // only f32 accumulation (<= k * 2^-24 ~ 6e-5 worst case for k = 1024) and the final narrowing to T
    // (2^-11 for f16, 2^-8 for bf16) remain.
    fn check<T: Element>(tol: f64) {
        for (shape, threads) in [((1, 256, 256), 1), ((5, 33, 70), 2), ((32, 512, 512), 2), ((70, 40, 9), 3)] {
            let a = random_vec::<T>(shape.0 * shape.1, 11);
            let b = random_vec::<T>(shape.1 * shape.2, 12);
            let c = matmul(&a, &b, shape, threads).unwrap();
            let (exact, scale) = reference(&a, &b, shape);
            assert_close(T::NAME, &c, &exact, &scale, tol);
        }
    }

    #[test]
    fn matmul_f32_matches_f64_reference() {
        check::<f32>(1e-4);
    }

    #[test]
    fn matmul_f16_matches_f64_reference() {
        check::<f16>(1e-2);
    }

    #[test]
    fn matmul_bf16_matches_f64_reference() {
        check::<bf16>(3e-2);
    }

    #[test]
    fn matmul_large_multithreaded_equals_single_thread() {
        let shape = (32, 1024, 1024);
        let a = random_vec::<f32>(shape.0 * shape.1, 21);
        let b = random_vec::<f32>(shape.1 * shape.2, 22);
        let one = matmul(&a, &b, shape, 1).unwrap();
        let two = matmul(&a, &b, shape, 2).unwrap();
        // Column blocks do not change any element's summation order.
        assert_eq!(one, two);
        assert!(cached_plan(32, 1024, 1024).is_some());
    }

    #[test]
    fn matmul_rejects_bad_lengths() {
        let err = matmul(&[1.0f32; 6], &[1.0; 5], (2, 3, 2), 1).unwrap_err();
        assert_eq!(
            err,
            KernelError::LengthMismatch {
                what: "matmul b (k x n)",
                expected: 6,
                actual: 5
            }
        );
        assert_eq!(matmul(&[0f32; 0], &[0.0; 0], (2, 0, 3), 1).unwrap(), vec![0.0; 6]);
    }

    #[test]
    fn flop_and_byte_counts() {
        assert_eq!(matmul_flops(32, 1024, 1024), 2 * 32 * 1024 * 1024);
        assert_eq!(matmul_bytes::<f16>(1, 2, 3), ((2 + 6 + 3) * 2) as u64);
    }
}
