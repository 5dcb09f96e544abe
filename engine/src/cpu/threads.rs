//! Splitting work across `std::thread::scope` threads: [`split`] ranges, and the configured thread count.

use std::ops::Range;

use crate::errors::KernelError;

/// Threads from the frozen runtime config (`ENGINE_THREADS`): what a caller passes as `threads` to
/// run on the configured count.
pub fn configured_threads() -> usize {
    crate::config::runtime_config().threads
}

pub(crate) fn check_threads(threads: usize) -> Result<(), KernelError> {
    if threads == 0 {
        return Err(KernelError::InvalidThreads { threads });
    }
    Ok(())
}

/// Splits `0..len` into at most `parts` contiguous, non-empty ranges whose interior boundaries are
/// multiples of `align` (so SIMD and cache lines are not shared between threads).
pub(crate) fn split(len: usize, parts: usize, align: usize) -> Vec<Range<usize>> {
    let units = len.div_ceil(align.max(1));
    let parts = parts.clamp(1, units.max(1));
    let (base, extra) = (units / parts, units % parts);
    let mut ranges = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 0..parts {
        let end = (start + (base + usize::from(p < extra)) * align).min(len);
        if end > start {
            ranges.push(start..end);
        }
        start = end;
    }
    ranges
}

/// Runs `f` over disjoint chunks of `out`, `parts` at a time on scoped threads; the first chunk runs on
/// the calling thread so one thread means no spawn at all.
pub(crate) fn for_chunks<T: Send>(out: &mut [T], ranges: &[Range<usize>], f: impl Fn(Range<usize>, &mut [T]) + Sync) {
    let mut rest = out;
    let mut chunks = Vec::with_capacity(ranges.len());
    let mut offset = 0;
    for r in ranges {
        let (chunk, tail) = std::mem::take(&mut rest).split_at_mut(r.end - offset);
        chunks.push((r.clone(), &mut chunk[r.start - offset..]));
        offset = r.end;
        rest = tail;
    }
    std::thread::scope(|s| {
        let mut iter = chunks.into_iter();
        let first = iter.next();
        for (r, chunk) in iter {
            let f = &f;
            s.spawn(move || f(r, chunk));
        }
        if let Some((r, chunk)) = first {
            f(r, chunk);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_range_aligned() {
        for (len, parts, align) in [(100, 3, 8), (7, 4, 1), (5, 8, 16), (1024, 2, 16), (0, 2, 4)] {
            let ranges = split(len, parts, align);
            assert!(ranges.len() <= parts);
            let mut next = 0;
            for r in &ranges {
                assert_eq!(r.start, next);
                assert!(r.end > r.start);
                assert!(r.start % align == 0);
                next = r.end;
            }
            assert_eq!(next, len, "{len} {parts} {align}");
        }
    }

    #[test]
    fn for_chunks_visits_every_element_once() {
        let mut out = vec![0usize; 37];
        let ranges = split(37, 3, 4);
        for_chunks(&mut out, &ranges, |r, chunk| {
            for (i, v) in r.zip(chunk.iter_mut()) {
                *v += i;
            }
        });
        assert_eq!(out, (0..37).collect::<Vec<_>>());
    }
}
