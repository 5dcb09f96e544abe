//! A small inference-runtime core for the harness to measure.
#![warn(missing_docs)]

pub mod config;
pub mod cpu;
pub mod errors;
pub mod kv_cache;
pub mod sampling;
