//! Running scenarios in fresh processes: the parent side (`process`, `target`), the child side
//! (`child`) and the wire format between them (`protocol`).
//!
//! Every way a child can end (pass, fail, skip, signal, timeout, silent exit, garbage on the
//! result channel) becomes an [`Outcome`](crate::model::Outcome); none of them ends the harness.
//!
//! [`Executor`] is the one path by which `run`, `detect` and `compare` start a process. May import
//! `model`, `events`, `errors` and (child side) `suite`; never `plan`, `report` or a command.

pub(crate) mod child;
mod executor;
mod libtest;
mod process;
pub(crate) mod protocol;
mod signal;
mod suite_binary;
mod target;

pub use executor::{ExecConfig, Executor, JobScenario, Launch, ProcessJob};
pub(crate) use libtest::LibtestBinary;
pub use process::{ProcessEnd, ProcessOutput, Usage};
pub(crate) use process::{ProcessSpec, run_process, run_process_whole};
pub(crate) use signal::signal_name;
pub use suite_binary::SuiteBinary;
pub use target::{ProcessResult, ScenarioResult, Target, TargetRequest};
