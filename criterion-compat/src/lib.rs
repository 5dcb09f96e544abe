//! criterion's API on the harness: a crate with criterion benchmarks switches one line of its
//! `Cargo.toml` and keeps its bench files.
//!
//! ```toml
//! [dev-dependencies]
//! criterion = { package = "harness-criterion", version = "0.1", path = "..." }
//! ```
//!
//! `criterion_main!` makes the bench target a harness suite: every benchmark is a measurement
//! named by criterion's id (`group/function/parameter`), run in fresh processes with a 95%
//! interval, and `cargo bench` (`-- --counters`, `-- NAME`), `cargo test --benches` (each
//! benchmark once), `cargo nextest`, `compare`, `detect` and `history` work on it.
//!
//! # What maps onto what
//! - `Bencher::iter`, `iter_batched`, `iter_batched_ref`, `iter_with_setup`,
//!   `iter_with_large_drop` run on the harness's `Bencher::iter` / `iter_batched_at_most`: set-up
//!   and dropping outside the timing, counted per call under `--counters`. [`BatchSize`] caps how
//!   many inputs are alive at once.
//! - `iter_custom` is wall time only: under `--counters=valgrind` that benchmark is skipped with
//!   the reason (a routine that times itself cannot be told from its set-up).
//! - [`Throughput`] becomes a rate metric: `gbytes_per_s` or `melem_per_s`.
//! - `to_async` ([`async_executor`]) runs each call's future with `block_on`; executors:
//!   [`async_executor::FuturesExecutor`], and tokio's `Runtime` / `Handle` with `async_tokio`.
//!
//! # Accepted and ignored
//! The harness's command line decides sampling and analysis for every benchmark alike:
//! `sample_size`, `measurement_time`, `warm_up_time`, `sampling_mode`, `nresamples`
//! (`--iterations`, `--warmup`, `--repeat`, `--target-ci` instead); `noise_threshold`,
//! `significance_level`, `confidence_level` (`compare`'s floor, margins and test; intervals are
//! 95%); `plotting_backend`, `with_plots`, `without_plots`, `plot_config` (the harness's
//! `index.html`); `save_baseline`, `retain_baseline` (`compare`, `history`); `with_filter`,
//! `output_directory`, `with_output_color`, `profile_time`; `configure_from_args` and
//! `final_summary` do nothing, and criterion's own flags (`--save-baseline`, `--noplot`, ...)
//! are not the harness's: `cargo bench -- --help` lists these.
//!
//! # Not offered
//! Custom measurements (`with_measurement`, a `Measurement` of your own: `--counters` instead),
//! profilers (`with_profiler`), `Throughput::Bits`, the `async_smol` / `async_std` executors, and
//! the long-deprecated `Benchmark` / `ParameterizedBenchmark` API (gone from criterion 0.4 on).
//!
//! # How it works
//! Benchmark closures borrow their bench function's locals, so they cannot be stored. Listing
//! runs the group functions with no closure called, collecting the ids; a measuring process runs
//! them again and calls only its own benchmark's closure (`registry`). A group's set-up code
//! therefore runs twice per process (list, run), and only the benchmark's own closure is timed.
#![warn(missing_docs)]

pub mod async_executor;
mod bencher;
mod criterion;
mod errors;
mod group;
mod macros;
pub mod measurement;
mod registry;
mod settings;

pub use bencher::{BatchSize, Bencher, LARGE_INPUT_BATCH};
pub use criterion::Criterion;
pub use group::{BenchmarkGroup, BenchmarkId, IntoBenchmarkId};
pub use settings::{AxisScale, Baseline, PlotConfiguration, PlottingBackend, SamplingMode, Throughput};
#[cfg(feature = "real_blackbox")]
pub use std::hint::black_box;

/// criterion 0.5's `black_box`, as a bench written for it gets it: a volatile read of the value
/// (criterion's stable variant), or with the `real_blackbox` feature the compiler's
/// (`std::hint::black_box`, which criterion's feature also selects). The two cost differently:
/// a volatile read stores and reloads the value, which in a per-element loop
/// (unicode-segmentation's `chars/scalar/*`) made criterion's time twice the compiler hint's.
/// The drop-in measures the code criterion measures, so it keeps criterion's choice.
#[cfg(not(feature = "real_blackbox"))]
pub fn black_box<T>(dummy: T) -> T {
    // SAFETY: `dummy` is a valid, aligned value read once; forgetting it leaves the copy as the
    // only owner, so nothing is dropped twice.
    unsafe {
        let ret = std::ptr::read_volatile(&dummy);
        std::mem::forget(dummy);
        ret
    }
}

#[doc(hidden)]
pub mod __private {
    pub use crate::registry::{Group, scenarios};
    pub use harness;
}
