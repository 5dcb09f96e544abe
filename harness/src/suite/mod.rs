//! What a user writes: [`Scenario`]s (checks and measurements), registered with one line and
//! discovered at link time.
//!
//! ```ignore
//! harness::scenario!(Scenario::check("kv/no_leak", no_leak));
//! harness::scenarios!(|| sizes().map(|s| Scenario::measure(format!("add/{s}"), move |b| b.iter(|| add(s)))).collect());
//! fn main() -> std::process::ExitCode { harness::main() }
//! ```
//!
//! May import `model`, (for counted measurements) `counters`, and `stats` for the GPU sample
//! rules (`gpu.rs`) only.

mod alloc_counting;
pub(crate) mod allocator;
mod allocator_state;
mod batch_memory;
mod batched;
mod bencher;
mod gpu;
mod registry;
mod scenario;
pub(crate) mod speed_probe;

pub(crate) use bencher::BenchEnd;
pub use bencher::{Bencher, Throughput};
pub use gpu::{Caches, GpuSample, GpuTimer};
pub use registry::Registration;
pub(crate) use registry::registered;
pub(crate) use scenario::{Body, SkipSignal, Variant};
pub use scenario::{CheckResult, Scenario, Source, skip};

/// What one test of this unit-test binary printed, re-run alone in a fresh process with `env`
/// set: for tests of process-wide state (malloc's thresholds) that the other tests, sharing this
/// process, must neither see nor disturb.
#[cfg(test)]
pub(crate) fn rerun_test_alone(test: &str, env: (&str, &str)) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(env.0, env.1)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}
