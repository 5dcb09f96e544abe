//! Allocations per call (`--allocs`): `allocations`, `alloc_bytes`, `peak_bytes`, `leaked_bytes`
//! (and `deallocations`), counted exactly inside a window the measuring process opens around
//! each measured call, on every thread.
//!
//! - [`window`]: the process-wide counters a window reads (atomics; every thread counts).
//! - [`CountingAllocator`]: the opt-in `#[global_allocator]` wrapper that feeds them.
//! - [`source`]: where counts come from in this process: the wrapper, the preload library
//!   (`harness_interpose`, found with `dlsym(RTLD_DEFAULT)`), or nowhere ("not counted", never 0).
//! - [`measure`]: warm-up, then blocks of N and 2N calls; a metric is exact only when every call
//!   counted the same and the 2N block is twice the N block, else it `varies` with its spread.
//! - [`embedded`]: the recorder (`preload/recorder.rs`, the preload's hooks) this binary carries,
//!   written out for `LD_PRELOAD`, so counting needs no setup in any crate.
//! - [`cell`]: a compare side's value as a count per call (`1 alloc`, `4096 B`).
//! - [`decide`]: compare and history decide exact rows exactly (1 -> 2 regressed, 0 -> 1 "+1 per
//!   call", identical unchanged with no interval); rows that vary go to the ordinary statistics.

pub mod cell;
pub mod decide;
pub mod embedded;
pub mod measure;
pub mod source;
pub mod window;
mod wrapper;

pub use decide::{AllocChange, decide};
pub use measure::{AllocMetric, AllocValue, measure_calls};
pub use source::AllocSource;
pub use window::Counts;
pub use wrapper::CountingAllocator;

/// The metric names, in report order: a contract (CSV columns, JSON `name`s, history series).
pub const METRICS: [&str; 5] = ["allocations", "deallocations", "alloc_bytes", "peak_bytes", "leaked_bytes"];
