//! A suite with known behaviour for the HTML report's tests: a passing check, a failing check
//! with output, a check that leaves an environment change, a noisy measurement, a measurement
//! with one outlying process, and a scenario whose name is markup.
//!
//! Values come from a per-scenario counter in `$FIXTURE_REPORT_STATE` (a directory the test
//! makes), so each process of a run gets the next value of a fixed sequence.

use std::path::PathBuf;
use std::process::ExitCode;

use harness::{Better, Scenario, Unit};

/// The next call number of `tag` in this run: 0, 1, 2, ... (the pid when no state dir is set).
fn next_count(tag: &str) -> u64 {
    let Some(dir) = std::env::var_os("FIXTURE_REPORT_STATE").map(PathBuf::from) else {
        return u64::from(std::process::id());
    };
    (0..)
        .find(|k| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(dir.join(format!("{tag}-{k}")))
                .is_ok()
        })
        .unwrap()
}

fn record(b: &mut harness::Bencher, value: f64) {
    let iterations = (0..5).map(|i| value * (1.0 + 0.002 * (i as f64 - 2.0))).collect();
    b.record_iterations("latency_ns", Unit::Nanoseconds, Better::Lower, iterations);
}

harness::scenario!(Scenario::check("passes", || assert!(std::env::args().count() > 0)));

harness::scenario!(Scenario::check("fails_with_output", || {
    println!("stdout before failing: state=42");
    println!("</pre><script>alert(2)</script>");
    eprintln!("stderr: about to fail");
    Err::<(), _>("expected 2, got 3")
}));

harness::scenario!(Scenario::check("leaves_env_dirty", || {
    // SAFETY: the scenario runs alone on its thread in its own process.
    unsafe { std::env::set_var("FIXTURE_MODE", "dirty") };
}));

harness::scenario!(Scenario::check("<script>alert(1)</script>", || ()));

harness::scenario!(Scenario::measure("noisy", |b| {
    let k = next_count("noisy") as f64;
    record(b, 1000.0 * (1.0 + 0.06 * (k * 1.7).sin()) + 4.0 * k);
}));

harness::scenario!(Scenario::measure("with_outlier", |b| {
    let k = next_count("with_outlier");
    record(b, if k == 3 { 5000.0 } else { 500.0 + (k % 3) as f64 });
}));

fn main() -> ExitCode {
    harness::main()
}
