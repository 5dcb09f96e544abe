//! The scenario suites that measure the engine: `cargo run --release -p scenarios` runs the default suite.
//!
//! - `matmul/`, `add/`, `gather/`, `reduce_mean_rows/` ([`kernels`]): one measurement per kernel x dtype
//!   (f32, f16, bf16) x threads ({1, all cores}) x size, named like `matmul/f16/threads=2/32x512x512`,
//!   reporting `latency_ns` and `gflop_per_s` or `gbytes_per_s`.
//! - `peak/` ([`peak`]): the FMA and memory-bandwidth ceilings of this machine, measured in the same run.
//! - `sampling/` ([`sampling`]): each logits processor, greedy, the full chain, and top-k by partial
//!   selection beside the full sort, at 32k and 152k vocabularies.
//! - `kv_cache/` ([`kv_cache`]): page allocation and sequence growth.
//! - `cuda/` ([`cuda`]): the cross-stream readback race and its TestStream fix, graph captures under
//!   `ENGINE_CUDA_GRAPH`, bandwidth, KV growth and decode launch latency; skipped without a CUDA driver.
//! - `check/`: correctness of each of the above against f64 or reference implementations, and config
//!   checks ([`config`]) in which env-matrix variants each freeze their own `ENGINE_*` value.
//!
//! `cargo run --release -p scenarios -- check/` runs the checks only. The failure-mode demonstrations
//! (in-process config changes, a check that needs warmed state) are a separate binary, `failure_demos`,
//! so this suite stays green.

mod config;
mod cuda;
mod inputs;
mod kernels;
mod kv_cache;
mod peak;
mod sampling;

fn main() -> std::process::ExitCode {
    harness::main()
}
