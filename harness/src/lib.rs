//! harness: scenarios (checks and measurements) run in fresh processes, in a seeded shuffled
//! order, repeated, with a confidence interval on every measurement.
//!
//! Pipeline: `suite` (what users write: [`Scenario`], [`Bencher`], the `scenario!` macros) -> [`plan`] (which runs, what order) -> [`execute`]
//! (one process per run) -> [`events`] -> [`report`]; [`model`] holds the records every stage
//! passes along and [`stats`] the statistics.
#![warn(missing_docs)]

pub mod allocs;
#[cfg(feature = "cli")]
pub(crate) mod bisect;
#[cfg(feature = "cargo")]
pub mod cargo;
pub(crate) mod cli;
mod clock;
#[cfg(feature = "cli")]
pub(crate) mod compare;
pub mod counters;
pub mod detect;
pub mod errors;
pub mod events;
pub mod execute;
pub mod explain;
pub(crate) mod fingerprint;
mod fnv;
pub(crate) mod gpu_clocks;
#[cfg(feature = "history")]
pub(crate) mod history;
pub(crate) mod host;
#[cfg(feature = "cli")]
pub(crate) mod merge;
pub mod model;
pub mod plan;
pub mod report;
mod reproduce;
pub(crate) mod run;
pub mod stats;
mod suite;

pub use allocs::CountingAllocator;
pub use model::{Better, Unit};
/// The speed probe every CPU-timed measurement reads at its start and end (nanoseconds): public
/// so a tool run beside the harness (criterion, for scripts/criterion_agreement.sh) can be
/// bracketed by the same reading.
pub use suite::speed_probe::read as speed_probe;
pub use suite::{Bencher, Caches, CheckResult, GpuSample, GpuTimer, Scenario, Source, Throughput, skip};

use std::process::ExitCode;

/// The entry point of a suite binary: `fn main() -> ExitCode { harness::main() }`.
///
/// In a child started by the harness it runs the requested scenarios and exits; otherwise it is
/// the command line (`run`, `--list`, ...).
pub fn main() -> ExitCode {
    let scenarios = match suite::registered() {
        Ok(scenarios) => scenarios,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(cli::ExitCodes::for_error(&e));
        }
    };
    let variants: Vec<suite::Variant> = scenarios.iter().flat_map(Scenario::variants).collect();
    let mut args = std::env::args();
    match args.nth(1).as_deref() {
        Some(execute::protocol::CHILD_ARG) => {
            let request = args.next().unwrap_or_default();
            ExitCode::from(execute::child::run_child(&request, &variants) as u8)
        }
        Some(execute::protocol::LIST_ARG) => {
            cli::print_json_list(&variants);
            ExitCode::SUCCESS
        }
        _ => cli::run(&variants),
    }
}

#[doc(hidden)]
pub mod __private {
    pub use crate::suite::Registration;
    pub use inventory;
}
