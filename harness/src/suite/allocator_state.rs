//! Whether a routine's per-call time depends on the state of glibc's malloc: a number the
//! measuring process's history decides, not the routine.
//!
//! A routine that takes a large block each call (dary_heap's `append` of 2 500 into 97 500 `u32`
//! reallocates about 780 KB) runs at one speed where malloc keeps freed memory (a long-running
//! process; ours after [`settle`](super::allocator::settle)) and at another where it returns the
//! memory to the OS and maps it again (a young process, or one whose thresholds never rose):
//! page faults on every call. Criterion's process may be in either state, and which one changes
//! from run to run: its reference for `extend/DaryHeap<7>/2500` ranged from 12.8 to 34.3 µs over
//! twelve runs, while the drop-in read 19.4 µs (docs/criterion.md, 2026-12-07e).
//!
//! So after its samples a measuring process times the routine again in both states, set with
//! `mallopt`, alternating (a change of machine speed falls on both), and flags the row when the
//! median of the paired ratios is outside [0.8, 1.25]. A routine that takes no fresh page in the
//! returning state (under one fault a call) is not timed again: either state serves it alike.

/// One timed sample of the check: time and minor page faults, each per call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timed {
    pub ns: f64,
    pub faults: f64,
}

impl Timed {
    /// A sample of `calls` calls that took `ns` and `faults` in all.
    pub fn of(ns: f64, faults: i64, calls: u64) -> Timed {
        let calls = calls.max(1) as f64;
        Timed {
            ns: ns / calls,
            faults: faults.max(0) as f64 / calls,
        }
    }
}

/// Minor page faults of this process so far (every thread: a routine may fan out); 0 where the
/// check does not run.
pub(super) fn minor_faults() -> i64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: getrusage fills the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
        u.ru_minflt
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    0
}

/// Fewer page faults a call than this in the returning state, and the check stops there.
const FAULT_GATE: f64 = 1.0;

/// Why the per-call time is not the routine's alone but the allocator state's, if it is:
/// `sample` times one sample (as the measurement did) and is called in both states. The pairs of
/// states are a sixth of the `iterations` measured, at most 8; a measurement of under 18 samples
/// (a smoke test's one, detect's 10) is not checked, nor anything when `on` is false.
pub(super) fn check(on: bool, iterations: usize, sample: impl FnMut() -> Timed) -> Option<String> {
    let pairs = (iterations / 6).min(8);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        (on && pairs >= 3).then(|| glibc::check(pairs, sample)).flatten()
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = (on, pairs, sample);
        None
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use super::{FAULT_GATE, Timed, verdict};

    /// glibc's thresholds at start-up: blocks from 128 KiB are mapped for themselves, and free
    /// memory over 128 KiB at the heap's top goes back to the OS.
    const RETURNING: (i32, i32) = (128 << 10, 128 << 10);
    /// Where [`settle`](crate::suite::allocator::settle) leaves them (a freed 16 MiB block raises
    /// the mmap threshold to 16 MiB and the trim threshold to twice that): the measured state,
    /// and the one the process is left in.
    const KEEPING: (i32, i32) = (16 << 20, 32 << 20);

    fn set((mmap, trim): (i32, i32)) {
        // SAFETY: mallopt takes two ints; both values are within glibc's accepted ranges.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, mmap);
            libc::mallopt(libc::M_TRIM_THRESHOLD, trim);
        }
    }

    /// One sample in `state`, after an untimed one: the first call after a switch pays for it
    /// (memory the returning state gave back, taken again once).
    fn in_state(state: (i32, i32), sample: &mut impl FnMut() -> Timed) -> Timed {
        set(state);
        sample();
        sample()
    }

    pub(super) fn check(pairs: usize, mut sample: impl FnMut() -> Timed) -> Option<String> {
        let gate = in_state(RETURNING, &mut sample);
        if gate.faults < FAULT_GATE {
            set(KEEPING);
            return None;
        }
        let mut timed = Vec::with_capacity(pairs);
        for _ in 0..pairs {
            let keeping = in_state(KEEPING, &mut sample);
            let returning = in_state(RETURNING, &mut sample);
            timed.push((keeping, returning));
        }
        set(KEEPING);
        verdict(&timed)
    }
}

/// The flag for pairs of (keeping, returning) samples: the median of their ratios outside
/// [0.8, 1.25], and every pair on that side of 1. Pairs, not two pooled medians, so a change of
/// machine speed that falls between two pairs moves neither ratio; every pair, so a noisy routine
/// (two threads on two cores) whose pairs scatter both ways is not flagged on two of three.
pub(super) fn verdict(pairs: &[(Timed, Timed)]) -> Option<String> {
    use crate::stats::sample::median_of as median;
    if pairs.is_empty() {
        return None;
    }
    let ratios: Vec<f64> = pairs.iter().map(|(k, r)| r.ns / k.ns.max(1e-9)).collect();
    let ratio = median(&ratios);
    let one_way = ratios.iter().all(|&r| r > 1.0) || ratios.iter().all(|&r| r < 1.0);
    if (0.8..=1.25).contains(&ratio) || !one_way {
        return None;
    }
    let keeping = median(&pairs.iter().map(|(k, _)| k.ns).collect::<Vec<_>>());
    let returning = median(&pairs.iter().map(|(_, r)| r.ns).collect::<Vec<_>>());
    let faults = median(&pairs.iter().map(|(_, r)| r.faults).collect::<Vec<_>>());
    Some(format!(
        "per-call time depends on the allocator's state: {keeping:.0} ns a call while malloc keeps freed memory (as measured), {returning:.0} ns while it returns memory to the OS and maps it again ({faults:.0} page faults a call), {ratio:.2}x; a process with another history (criterion's, a young one) may find either"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(keeping: f64, returning: f64) -> (Timed, Timed) {
        (
            Timed { ns: keeping, faults: 0.0 },
            Timed {
                ns: returning,
                faults: 190.0,
            },
        )
    }

    #[test]
    fn the_verdict_is_the_median_of_paired_ratios() {
        // Twice as slow returning memory: flagged, with both times and the faults.
        let why = verdict(&[pair(20_000.0, 40_000.0), pair(21_000.0, 39_000.0), pair(19_000.0, 45_000.0)]).unwrap();
        assert!(why.contains("20000 ns a call while malloc keeps"), "{why}");
        assert!(
            why.contains("40000 ns while it returns") && why.contains("190 page faults"),
            "{why}"
        );
        // 1.1x is within the band.
        assert_eq!(verdict(&[pair(20_000.0, 22_000.0); 3]), None);
        // A machine slowed 1.8x during one returning sample moves one ratio, not the median.
        assert_eq!(
            verdict(&[pair(20_000.0, 21_000.0), pair(20_000.0, 36_000.0), pair(20_000.0, 20_500.0)]),
            None
        );
        // Two of three pairs twice as slow and one faster: scatter, not a state's doing.
        assert_eq!(
            verdict(&[pair(20_000.0, 40_000.0), pair(20_000.0, 41_000.0), pair(20_000.0, 15_000.0)]),
            None
        );
        // Faster while returning memory is also the state's doing (calloc's fresh pages come
        // zeroed, kept memory must be cleared).
        assert!(verdict(&[pair(20_000.0, 10_000.0); 3]).is_some());
        assert_eq!(verdict(&[]), None);
    }

    /// Runs in a fresh process of this test binary (the check sets process-wide thresholds, and
    /// the measuring process is settled first, as a suite's child is).
    #[test]
    fn a_routine_that_maps_fresh_memory_each_call_is_flagged_and_others_are_not() {
        if let Ok(mode) = std::env::var("HARNESS_ALLOCATOR_STATE_PROBE") {
            return probe(&mode);
        }
        for mode in ["iter-large", "batched-large"] {
            let (why, faults) = run_probe(mode);
            assert!(why.contains("depends on the allocator's state"), "{mode}: {why}");
            assert!(
                faults <= 5,
                "{mode}: the process keeps freed memory after the check: {faults} faults"
            );
        }
        for mode in ["iter-small", "batched-small"] {
            let (why, faults) = run_probe(mode);
            assert_eq!(why, "None", "{mode}: no fresh memory, no flag");
            assert!(faults <= 5, "{mode}: {faults} faults");
        }
    }

    fn probe(mode: &str) {
        use std::hint::black_box;
        crate::suite::allocator::settle(0);
        let mut b = crate::suite::Bencher::new(18, 2).with_allocator_check(true);
        match mode {
            // 1 MiB a call: a fresh mapping, 256 page faults, in the returning state.
            "iter-large" => b.iter(|| vec![1u8; 1 << 20]),
            "batched-large" => b.iter_batched(
                || vec![2u8; 64],
                |v| {
                    let mut w = vec![1u8; 1 << 20];
                    w[..v.len()].copy_from_slice(&v);
                    w
                },
            ),
            "iter-small" => b.iter(|| black_box((0..100u64).map(black_box).sum::<u64>())),
            _ => b.iter_batched(|| vec![3u64; 100], |v| v.iter().sum::<u64>()),
        }
        let latency = b.into_metrics().into_iter().find(|m| m.name == "latency_ns").unwrap();
        println!("why={:?}", latency.distortion);
        // Left in the keeping state: a 400 KB block freed and taken again reuses its pages.
        drop(black_box(vec![1u8; 400_000]));
        let before = minor_faults();
        drop(black_box(vec![1u8; 400_000]));
        println!("faults={}", minor_faults() - before);
    }

    /// The probe's distortion (`None` or the reason) and its faults after the check.
    fn run_probe(mode: &str) -> (String, i64) {
        let text = crate::suite::rerun_test_alone(
            "suite::allocator_state::tests::a_routine_that_maps_fresh_memory_each_call_is_flagged_and_others_are_not",
            ("HARNESS_ALLOCATOR_STATE_PROBE", mode),
        );
        let field = |key: &str| -> String {
            let after = text.split(key).nth(1).unwrap_or_else(|| panic!("{mode}: no {key} in {text}"));
            after.lines().next().unwrap().to_owned()
        };
        (field("why="), field("faults=").parse().unwrap())
    }

    #[test]
    fn a_sample_is_per_call() {
        let t = Timed::of(1000.0, 40, 4);
        assert_eq!((t.ns, t.faults), (250.0, 10.0));
        assert_eq!(Timed::of(10.0, -3, 0).faults, 0.0, "a wrapped counter is no fault");
    }
}
