//! `BenchError`: why a criterion benchmark could not be listed or run. Each becomes that
//! benchmark's failed result (its message the failure), never a crash of the suite.

use thiserror::Error;

/// A problem with one benchmark or one `criterion_group!` function.
#[derive(Debug, Error)]
pub(crate) enum BenchError {
    /// `Criterion::bench_with_input` needs a function name (criterion panics here too).
    #[error(
        "benchmark id {parameter:?} has no function name: Criterion::bench_with_input needs \
         BenchmarkId::new(function, parameter); BenchmarkId::from_parameter is for groups"
    )]
    ParameterOnly { parameter: String },
    /// An empty name (criterion asserts "Function name must not be empty").
    #[error("benchmark in group {group:?} has an empty function name")]
    EmptyName { group: String },
    /// The group function panicked while its benchmarks were being listed.
    #[error(
        "criterion group function `{group}` panicked while its benchmarks were listed: {message} \
         (benchmarks it reached before the panic are listed; any after it are missing)"
    )]
    GroupPanicked { group: &'static str, message: String },
    /// Listed, but the group functions did not reach it again in the run.
    #[error(
        "benchmark {id:?} was listed but not reached when its group functions ran again: its id \
         must not depend on anything that changes between processes (time, randomness, env)"
    )]
    NotReached { id: String },
}
