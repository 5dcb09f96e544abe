//! A suite for the history, shard and resume tests: `history/work` reports a value of 1000 ns
//! times `$FIXTURE_HISTORY_SCALE` (default 1) with 3% lognormal per-process noise, so a test
//! can plant a step; `history/flat` is the same without the scale; `history/ok` is a check and
//! `history/env` a check in three env-matrix variants.
//!
//! The noise is drawn from the length of `HARNESS_ENV_PAD`, which the harness draws from the
//! run's seed: a run's values are fixed by its `--seed`, and other seeds give other values.

use std::process::ExitCode;

use harness::{Better, Scenario, Unit};

/// SplitMix64: a well-mixed 64-bit value from `x`.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A standard normal draw (Box-Muller) determined by `key`.
fn normal(key: u64) -> f64 {
    let u = |k: u64| ((mix(k) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (-2.0 * u(key).ln()).sqrt() * (std::f64::consts::TAU * u(key ^ 0xabcd)).cos()
}

fn value(salt: u64, scaled: bool) -> f64 {
    let pad = std::env::var("HARNESS_ENV_PAD").map_or(0, |p| p.len() as u64);
    let scale: f64 = if scaled {
        std::env::var("FIXTURE_HISTORY_SCALE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1.0)
    } else {
        1.0
    };
    1000.0 * scale * (0.03 * normal(pad.wrapping_mul(31).wrapping_add(salt))).exp()
}

fn record(b: &mut harness::Bencher, v: f64) {
    b.record_iterations("latency_ns", Unit::Nanoseconds, Better::Lower, vec![v * 0.999, v, v * 1.001]);
}

harness::scenario!(Scenario::measure("history/work", |b| record(b, value(1, true))));
harness::scenario!(Scenario::measure("history/flat", |b| record(b, value(2, false))));
harness::scenario!(Scenario::check("history/ok", || ()));
// Three env groups (one per value) beside the default group, for `detect --partition`.
harness::scenario!(Scenario::check("history/env", || ()).env("FIXTURE_HISTORY_MODE", ["a", "b", "c"]));

fn main() -> ExitCode {
    harness::main()
}
