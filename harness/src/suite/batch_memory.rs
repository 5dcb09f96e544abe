//! The memory bound of `iter_batched`'s batches, and the check that the batch did not change
//! the per-call time. See [`Bencher::iter_batched`](super::Bencher::iter_batched) for the rule.

use std::hint::black_box;
use std::mem::size_of;

/// Bytes of live inputs and outputs one batch may hold: 256 KiB, an L2 cache on current x86
/// and Arm cores, so the batch's inputs stay where a one-call sample's single input would be.
pub const BATCH_BYTES: usize = 256 * 1024;

/// At most this many inputs are built to learn an input's heap size.
const PROBE: usize = 16;

/// How many inputs (with their outputs) fit in [`BATCH_BYTES`], at most `wanted` and at least 1.
/// Builds a probe of up to [`PROBE`] inputs, one at a time, reading the resident-set growth;
/// it stops as soon as the probe alone passes the budget, so the probe never holds more than
/// the budget plus one input. A zero-size input counts as one byte.
pub(super) fn inputs_within_budget<I, R>(setup: &mut impl FnMut() -> I, wanted: usize) -> usize {
    let fixed = (size_of::<I>() + size_of::<R>()).max(1);
    let before = resident_bytes();
    let mut probe = Vec::with_capacity(PROBE);
    let mut heap = 0;
    while probe.len() < PROBE.min(wanted) {
        probe.push(black_box(setup()));
        if let (Some(b), Some(a)) = (before, resident_bytes()) {
            heap = a.saturating_sub(b);
        }
        if heap + fixed * probe.len() > BATCH_BYTES {
            break;
        }
    }
    let per_input = fixed + heap / probe.len().max(1);
    drop(probe);
    (BATCH_BYTES / per_input).clamp(1, wanted.max(1))
}

/// This process's resident set in bytes (Linux `/proc/self/statm`); `None` elsewhere.
fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Why the batched per-call times are not what one call a sample finds, if they are not:
/// the batched median outside [0.8, 1.25] of the one-call median, by more than three times
/// the clock's cost per read (so clock noise on a tens-of-ns routine cannot trip it).
pub(super) fn batch_distortion(batched: &[f64], single: &[f64], batch: usize) -> Option<String> {
    let (b, s) = (super::bencher::median(batched), super::bencher::median(single));
    let clock = clock_cost_ns();
    let single_net = (s - clock).max(1.0);
    let ratio = b / single_net;
    let far = (b - single_net).abs() > 3.0 * clock;
    ((ratio < 0.8 || ratio > 1.25) && far).then(|| {
        format!(
            "per-call time depends on the batch size: {b:.0} ns a call in batches of {batch}, {single_net:.0} ns one call a sample ({ratio:.2}x)"
        )
    })
}

/// Share of a one-call sample the clock may take before the sample is flagged.
const CLOCK_SHARE: f64 = 0.05;

/// Why one-call samples of a routine that time alone would have batched (its inputs pass the
/// memory budget) are not its per-call time, if they are not: the clock's own cost is over
/// [`CLOCK_SHARE`] of the median sample. Such a sample is one call's latency plus the clock,
/// where a batch (criterion's, unbounded by memory) overlaps independent calls: on dary_heap's
/// `pop` of 100 000 elements the drop-in read 1.3-2.1x criterion's (2026-12-06).
pub(super) fn one_call_distortion(single: &[f64]) -> Option<String> {
    clock_share(super::bencher::median(single), clock_cost_ns())
}

fn clock_share(sample: f64, clock: f64) -> Option<String> {
    (clock > CLOCK_SHARE * sample).then(|| {
        format!(
            "timed one call a sample (a batch of its inputs would pass the {} KiB cache budget): the clock's own {clock:.0} ns is {:.0}% of the {sample:.0} ns sample, and calls that would overlap in a batch cannot",
            BATCH_BYTES / 1024,
            100.0 * clock / sample
        )
    })
}

/// The median cost of one `Instant::now()` pair, in ns.
fn clock_cost_ns() -> f64 {
    let reads: Vec<f64> = (0..15)
        .map(|_| {
            let t = std::time::Instant::now();
            t.elapsed().as_nanos() as f64
        })
        .collect();
    super::bencher::median(&reads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_heap_input_is_batched_alone_or_nearly() {
        // 8 MiB inputs: even one passes the budget, so the batch is one call. (The resident set
        // is the whole test process's: at 1 MiB another test thread's frees could hide the growth.)
        let mut setup = || vec![1u8; 8 << 20];
        assert_eq!(inputs_within_budget::<Vec<u8>, Vec<u8>>(&mut setup, 1000), 1);
        // An input whose size its type shows: 64 KiB arrays, four to the budget's 256 KiB
        // (input and output each counted). Heap inputs smaller than malloc's mmap threshold rely
        // on resident-set growth, which other test threads make too noisy to assert here.
        let mut setup = || [0u8; 32 * 1024];
        let n = inputs_within_budget::<[u8; 32 * 1024], [u8; 32 * 1024]>(&mut setup, 1000);
        assert!((1..=4).contains(&n), "{n} inputs of 64 KiB in a batch");
    }

    #[test]
    fn small_and_zero_size_inputs_keep_the_time_bound() {
        // Other test threads' allocations can read as heap growth here, so only bounds are
        // asserted; a bench's child process is single-threaded.
        let mut setup = || 3u64;
        assert!((1..=500).contains(&inputs_within_budget::<u64, u64>(&mut setup, 500)));
        let mut setup = || ();
        assert!(
            (1..=500).contains(&inputs_within_budget::<(), ()>(&mut setup, 500)),
            "a ZST divides nothing by 0"
        );
        assert_eq!(inputs_within_budget::<(), ()>(&mut setup, 0), 1);
    }

    #[test]
    fn a_batch_that_changes_the_per_call_time_is_named() {
        let batched = vec![2000.0; 10];
        let single = vec![500.0; 9];
        let why = batch_distortion(&batched, &single, 40).expect("4x is a distortion");
        assert!(why.contains("batch size") && why.contains("batches of 40"), "{why}");
        assert_eq!(batch_distortion(&[1000.0; 10], &[1010.0; 9], 40), None);
    }

    #[test]
    fn a_one_call_sample_the_clock_weighs_on_is_named() {
        let why = clock_share(300.0, 35.0).expect("the clock is 12% of the sample");
        assert!(
            why.contains("one call a sample") && why.contains("12%") && why.contains("256 KiB"),
            "{why}"
        );
        assert_eq!(clock_share(1000.0, 35.0), None, "3.5% is under the share");
    }
}
