//! [`gather`]: rows of a `rows x cols` table picked by index (an embedding lookup), split across threads.

use super::dtype::Element;
use super::threads::{check_threads, for_chunks, split};
use crate::errors::KernelError;

/// Below this many output bytes per thread a spawn costs more than the copies it saves.
const MIN_BYTES_PER_THREAD: usize = 256 << 10;

/// Bytes moved by gathering `n_indices` rows of `cols` elements: each row read once and written once.
pub fn gather_bytes<T: Element>(n_indices: usize, cols: usize) -> u64 {
    (2 * n_indices * cols * T::BYTES + n_indices * 4) as u64
}

/// `out[i, :] = table[indices[i], :]` for a row-major `table` of `cols` columns, on up to `threads` threads.
///
/// Every index is checked before anything is written, so an error leaves `out` untouched.
pub fn gather_into<T: Element>(table: &[T], cols: usize, indices: &[u32], out: &mut [T], threads: usize) -> Result<(), KernelError> {
    check_threads(threads)?;
    let rows = table.len().checked_div(cols).unwrap_or(0);
    if rows * cols != table.len() {
        return Err(KernelError::LengthMismatch {
            what: "gather table (rows x cols)",
            expected: rows * cols,
            actual: table.len(),
        });
    }
    if out.len() != indices.len() * cols {
        return Err(KernelError::LengthMismatch {
            what: "gather out (indices x cols)",
            expected: indices.len() * cols,
            actual: out.len(),
        });
    }
    if let Some((position, &index)) = indices.iter().enumerate().find(|&(_, &i)| i as usize >= rows) {
        return Err(KernelError::IndexOutOfRange {
            position,
            index: index as usize,
            rows,
        });
    }
    if cols == 0 {
        return Ok(());
    }
    let parts = threads.min(out.len() * T::BYTES / MIN_BYTES_PER_THREAD).max(1);
    // Split whole output rows, so each thread copies complete rows.
    let ranges: Vec<_> = split(indices.len(), parts, 1)
        .into_iter()
        .map(|r| r.start * cols..r.end * cols)
        .collect();
    for_chunks(out, &ranges, |r, chunk| {
        for (&index, dst) in indices[r.start / cols..r.end / cols].iter().zip(chunk.chunks_exact_mut(cols)) {
            let src = index as usize * cols;
            dst.copy_from_slice(&table[src..src + cols]);
        }
    });
    Ok(())
}

/// Gathered rows in a new `indices.len() x cols` vector; see [`gather_into`].
pub fn gather<T: Element>(table: &[T], cols: usize, indices: &[u32], threads: usize) -> Result<Vec<T>, KernelError> {
    let mut out = vec![T::default(); indices.len() * cols];
    gather_into(table, cols, indices, &mut out, threads)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::test_helpers::random_vec;
    use half::{bf16, f16};
    use rand::{Rng, SeedableRng};

    // A gather only copies, so the result must equal the table rows bit for bit in every dtype.
    fn check<T: Element>() {
        let (rows, cols) = (500, 300);
        let table = random_vec::<T>(rows * cols, 5);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        for (n, threads) in [(1, 1), (17, 2), (4000, 2), (4000, 3)] {
            let indices: Vec<u32> = (0..n).map(|_| rng.random_range(0..rows as u32)).collect();
            let out = gather(&table, cols, &indices, threads).unwrap();
            for (i, &index) in indices.iter().enumerate() {
                let want = &table[index as usize * cols..(index as usize + 1) * cols];
                assert_eq!(&out[i * cols..(i + 1) * cols], want, "{} row {i}", T::NAME);
            }
        }
    }

    #[test]
    fn gather_copies_the_indexed_rows() {
        check::<f32>();
        check::<f16>();
        check::<bf16>();
    }

    #[test]
    fn gather_rejects_out_of_range_index_without_writing() {
        let table = [1.0f32, 2.0, 3.0, 4.0];
        let mut out = [9.0f32; 4];
        let err = gather_into(&table, 2, &[1, 2], &mut out, 1).unwrap_err();
        assert_eq!(
            err,
            KernelError::IndexOutOfRange {
                position: 1,
                index: 2,
                rows: 2
            }
        );
        assert_eq!(out, [9.0; 4]);
    }
}
