//! [`reduce_mean_rows`]: the mean of each row of a row-major `rows x cols` tensor (the last axis, as in a norm).
//!
//! Each row is summed in f32 over blocks of [`BLOCK`] elements with 16 independent lanes (so it vectorizes),
//! and the block sums are added in f64, which keeps the error near `BLOCK / 16 * 2^-24` relative to
//! `sum |x|` however long the row is (vocabulary-sized rows included).

use super::dtype::Element;
use super::threads::{check_threads, for_chunks, split};
use crate::errors::KernelError;

const BLOCK: usize = 512;
const LANES: usize = 16;
/// Below this many input elements per thread a spawn costs more than the adds it saves (see the
/// same constant in `add.rs` for the measurement).
const MIN_PER_THREAD: usize = 1 << 18;

/// Bytes read by a mean over `len` elements of `T` (the output is negligible).
pub fn reduce_bytes<T: Element>(len: usize) -> u64 {
    (len * T::BYTES) as u64
}

/// `out[r] = mean(x[r, :])` for a row-major `x` of `cols` columns, rows split across up to `threads` threads.
pub fn reduce_mean_rows_into<T: Element>(x: &[T], cols: usize, out: &mut [T], threads: usize) -> Result<(), KernelError> {
    check_threads(threads)?;
    if cols == 0 {
        return Err(KernelError::Empty {
            what: "reduce_mean_rows cols",
        });
    }
    if x.len() != out.len() * cols {
        return Err(KernelError::LengthMismatch {
            what: "reduce_mean_rows x (rows x cols)",
            expected: out.len() * cols,
            actual: x.len(),
        });
    }
    let parts = threads.min(x.len() / MIN_PER_THREAD).max(1);
    let ranges = split(out.len(), parts, 1);
    for_chunks(out, &ranges, |r, chunk| {
        for (row, o) in r.zip(chunk.iter_mut()) {
            *o = T::from_f32((row_sum(&x[row * cols..(row + 1) * cols]) / cols as f64) as f32);
        }
    });
    Ok(())
}

/// Row means in a new vector of `x.len() / cols` entries; see [`reduce_mean_rows_into`].
pub fn reduce_mean_rows<T: Element>(x: &[T], cols: usize, threads: usize) -> Result<Vec<T>, KernelError> {
    let mut out = vec![T::default(); x.len().checked_div(cols).unwrap_or(0)];
    reduce_mean_rows_into(x, cols, &mut out, threads)?;
    Ok(out)
}

fn row_sum<T: Element>(row: &[T]) -> f64 {
    let mut wide = [0f32; BLOCK];
    let mut total = 0f64;
    for block in row.chunks(BLOCK) {
        let block = match super::add::as_f32(block) {
            Some(f) => f,
            None => {
                T::slice_to_f32(block, &mut wide[..block.len()]);
                &wide[..block.len()]
            }
        };
        total += block_sum(block) as f64;
    }
    total
}

fn block_sum(x: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected at run time just above.
        return unsafe { block_sum_avx2(x) };
    }
    block_sum_portable(x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_sum_avx2(x: &[f32]) -> f32 {
    block_sum_portable(x)
}

#[inline(always)]
fn block_sum_portable(x: &[f32]) -> f32 {
    // Independent lanes: the compiler may not reorder float adds itself, so we give it the reordering.
    let mut lanes = [0f32; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (l, v) in lanes.iter_mut().zip(c) {
            *l += v;
        }
    }
    lanes.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::test_helpers::{assert_close, random_vec};
    use half::{bf16, f16};

    // Tolerance relative to mean |x| (the mean itself may cancel to near zero): f32 block sums err by at
    // most ~BLOCK/LANES * 2^-24 ~ 2e-6, so 1e-4 is loose; for f16/bf16 the output rounding (2^-11, 2^-8)
    // dominates.
    fn check<T: Element>(tol: f64) {
        for (rows, cols, threads) in [(1, 1, 1), (3, 1000, 2), (64, 4096, 2), (8, 150_001, 3)] {
            let x = random_vec::<T>(rows * cols, 9);
            let out = reduce_mean_rows(&x, cols, threads).unwrap();
            let row = |r: usize| x[r * cols..(r + 1) * cols].iter().map(|v| v.to_f32() as f64);
            let exact: Vec<f64> = (0..rows).map(|r| row(r).sum::<f64>() / cols as f64).collect();
            let scale: Vec<f64> = (0..rows).map(|r| row(r).map(f64::abs).sum::<f64>() / cols as f64).collect();
            assert_close(T::NAME, &out, &exact, &scale, tol);
        }
    }

    #[test]
    fn reduce_mean_rows_matches_f64_reference() {
        check::<f32>(1e-4);
        check::<f16>(1e-2);
        check::<bf16>(3e-2);
    }

    #[test]
    fn reduce_mean_rows_rejects_empty_rows_and_ragged_input() {
        assert_eq!(
            reduce_mean_rows(&[1.0f32], 0, 1).unwrap_err(),
            KernelError::Empty {
                what: "reduce_mean_rows cols"
            }
        );
        assert!(matches!(
            reduce_mean_rows(&[1.0f32; 5], 2, 1),
            Err(KernelError::LengthMismatch { .. })
        ));
    }
}
