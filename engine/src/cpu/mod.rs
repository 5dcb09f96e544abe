//! CPU kernels over f32, f16 and bf16 ([`Element`]): [`add`], [`matmul`], [`gather`], [`reduce_mean_rows`],
//! plus the machine ceilings in [`peak`] and the process-wide matmul [`plan`] cache.
//!
//! Every kernel takes its thread count explicitly (`threads`, at least 1) and has an `_into` form that
//! writes a caller-owned buffer (no allocation in the measured path); [`configured_threads`] is
//! `ENGINE_THREADS` from the frozen [`crate::config::RuntimeConfig`]. Byte counters (and FLOPs for
//! matmul) sit next to each kernel (`matmul_flops`, `add_bytes`, ...) so scenarios can turn times into
//! throughput.

mod add;
mod dtype;
mod gather;
mod matmul;
pub mod peak;
pub mod plan;
mod reduce;
#[cfg(test)]
mod test_helpers;
mod threads;

pub use add::{add, add_bytes, add_into};
pub use dtype::Element;
pub use gather::{gather, gather_bytes, gather_into};
pub use matmul::{matmul, matmul_bytes, matmul_flops, matmul_into};
pub use plan::{Plan, Split, cached_plan, plan_cache_len};
pub use reduce::{reduce_bytes, reduce_mean_rows, reduce_mean_rows_into};
pub use threads::configured_threads;
