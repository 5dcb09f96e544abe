//! A measurement in an allocation-counting process (`--allocs`): the `Bencher`'s `iter*` calls
//! land here instead of timing. The calls go through [`crate::allocs::measure_calls`] (warm-up
//! outside any window, then N and 2N calls each in a window of its own) and leave as ordinary
//! metrics (`allocations`, `deallocations`, `alloc_bytes`, `peak_bytes`, `leaked_bytes`) on the
//! child protocol, stamped `allocs-preload` or `allocs-wrapper`. A process where nothing counts
//! skips the measurement with the reason, so no row ever shows 0 for "not counted".

use super::bencher::{BenchEnd, Bencher};
use crate::allocs::{AllocSource, measure_calls};
use crate::counters::Counting;

/// Count `routine`'s allocations per call for `b`, which counts with [`Counting::Allocs`].
pub(super) fn count<I, R>(b: &mut Bencher, setup: impl FnMut() -> I, routine: impl FnMut(I) -> R) {
    let source: AllocSource = match &b.counting {
        Some(Counting::Allocs(Ok(source))) => *source,
        Some(Counting::Allocs(Err(reason))) => {
            b.trouble = Some(BenchEnd::Uncounted(reason.clone()));
            return;
        }
        _ => return,
    };
    let m = measure_calls(&source, b.warmup, b.iterations, setup, routine);
    // A scenario reading `iterations()` afterwards sees the calls counted (N + 2N).
    b.iterations = 3 * b.iterations.max(1);
    for metric in &m.metrics {
        let mut sample = metric.sample(source.label());
        // Memory freed in the window but allocated before it hides from leaked_bytes: the row
        // says so (and is not `ok`) rather than showing a clean 0.
        if metric.name == "leaked_bytes" {
            sample.distortion = m.foreign_free.clone();
        }
        b.metrics.retain(|x| x.name != sample.name);
        b.metrics.push(sample);
    }
}
