//! The machine's speed, read by a fixed loop at the start and the end of each timed measurement.
//!
//! On a shared machine (a VM whose core's other hyperthread belongs to another tenant) code runs
//! at one of several speeds, 1.6-1.8x apart, switching over milliseconds to seconds. A process's
//! samples then agree with each other at whichever speed it met, and nothing inside the
//! measurement shows it. The probe is eight independent chains of rotate-xor-add, bound by the
//! core's throughput as most benchmarked code is: it read 1.79x slower in the samples where
//! unicode-segmentation's grapheme iterator ran 1.82x slower, while a one-chain (latency-bound)
//! loop read 1.02x (docs/speed-probe-2026-12-06/). `model/slowed.rs` compares each process's
//! readings with the run's fastest and leaves out processes measured on a slowed machine.

use std::hint::black_box;
use std::time::Instant;

/// Rounds of the eight chains: about 25 µs on a 2020s x86 core at full speed.
const ROUNDS: u64 = 12_000;
/// Readings a probe takes; it keeps the fastest, so a preemption inside one does not count.
const READINGS: usize = 3;

/// Nanoseconds of the probe loop, the fastest of [`READINGS`].
pub fn read() -> f64 {
    (0..READINGS).map(|_| once()).fold(f64::INFINITY, f64::min)
}

#[inline(never)]
fn once() -> f64 {
    let mut x = black_box([1u64, 2, 3, 4, 5, 6, 7, 8]);
    let t = Instant::now();
    for i in 0..black_box(ROUNDS) {
        for v in &mut x {
            *v = v.rotate_left(5) ^ v.wrapping_add(i);
        }
    }
    let ns = t.elapsed().as_nanos() as f64;
    black_box(x);
    ns
}

#[cfg(test)]
mod tests {
    /// The loop is not optimised away: 96 000 dependent-per-chain operations take over 1 µs on
    /// any core (at 6 operations a cycle and 6 GHz, 2.7 µs).
    #[test]
    fn the_probe_runs_its_loop() {
        let ns = super::read();
        assert!(
            ns > 1_000.0 && ns.is_finite(),
            "12 000 rounds of 8 chains in {ns} ns: optimised away?"
        );
    }
}
