//! A small inference-runtime core for the harness to measure: a process-frozen config, CPU kernels,
//! token sampling and a paged KV cache.
//!
//! - [`config`] module: [`config::runtime_config`] returns the [`config::RuntimeConfig`] parsed once per process
//!   from `ENGINE_EP`, `ENGINE_CUDA_GRAPH` and `ENGINE_THREADS` (table: [`config::KNOBS`]). A bad value
//!   is a [`errors::ConfigError`] naming the variable. Debug builds panic if a knob's variable changes
//!   after the freeze ([`config::find_changed`] is the pure comparison); release builds skip the check.
//!   Phases that need a different config must therefore run in processes of their own.
//! - [`cpu`] module: `add`, `matmul`, `gather` and `reduce_mean_rows` over `f32`, `half::f16` and `half::bf16`
//!   ([`cpu::Element`]), each with an explicit `threads` argument and an `_into` form writing a caller's
//!   buffer; [`cpu::configured_threads`] is `ENGINE_THREADS`; byte and FLOP counters (`matmul_flops`, ...);
//!   machine ceilings in [`cpu::peak`] (FMA GFLOP/s, triad GB/s). The matmul plan cache in [`cpu::plan`]
//!   is process-wide state warmed by earlier matmuls: [`cpu::cached_plan`] finds only shapes an earlier
//!   call in the same process planned, and [`cpu::plan_cache_len`] only grows. Results that read it
//!   depend on what ran before them.
//! - [`sampling`] module: [`sampling::LogitsProcessor`]s (temperature, repetition penalty, top-k, top-p, min-p)
//!   composed in a [`sampling::Chain`], and a [`sampling::Sampler`] that picks greedily or from a seeded
//!   `ChaCha8Rng` (same seed, same tokens). Top-k uses partial selection
//!   ([`sampling::top_k_indices`]); [`sampling::top_k_indices_full_sort`] is its reference.
//! - [`kv_cache`] module: [`kv_cache::KvCache`], a pool of fixed-size pages that sequences allocate, grow and
//!   free; exhaustion and double free are errors that leave the pool unchanged, and
//!   [`kv_cache::KvCache::check_invariants`] verifies no page is leaked or shared.
//! - [`cuda`] module: CUDA through cudarc, loaded at run time. [`cuda::availability`] says whether a
//!   driver and device are there (never panics); a VMM-backed [`cuda::DeviceKvCache`]; a
//!   [`cuda::DecodeStep`] replayed from a CUDA graph unless `ENGINE_CUDA_GRAPH=0`; with the
//!   `test-support` feature, [`cuda::TestStream`].
//! - [`errors`] module: one `thiserror` enum per module.
#![warn(missing_docs)]

pub mod config;
pub mod cpu;
pub mod cuda;
pub mod errors;
pub mod kv_cache;
pub mod sampling;
