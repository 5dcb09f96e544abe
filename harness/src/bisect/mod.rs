//! `bisect`: name the commit between a good and a bad one that changed a scenario's measurement,
//! even when the measurement is noisy.
//!
//! [`range`] resolves and checks the commits; [`builds`] gets each commit's suite binary (through
//! compare's per-commit cache) and whether the scenario is in it; with counters, [`exact`] is a
//! plain binary search; with wall time, [`noisy`] runs probabilistic bisection over the
//! [`posterior`], each step an interleaved comparison against both ends through compare's
//! interleaver and estimator ([`measure`]); [`pipeline`] drives a search and writes as it goes;
//! [`output`] and [`html`] are bisect.json, bisect.md and index.html. See docs/bisect.md.
//!
//! May import `compare` (builder, interleaver, estimator), `execute`, `events`, `model`, `stats`
//! and `report`'s writers; never `cli` (it returns a `BisectOutcome`).

mod builds;
mod exact;
mod html;
mod measure;
mod noisy;
mod output;
mod pipeline;
mod posterior;
mod range;

#[cfg(test)]
mod noisy_sim;

pub(crate) use pipeline::{BisectOptions, files, plan_bisect, run_bisect};

/// Steps a search over commits `0..=last` may take when no `--budget` stops it first: three
/// times the halvings, plus room to measure a few commits again.
pub(crate) fn default_max_steps(last: usize) -> usize {
    let halvings = (usize::BITS - last.max(1).leading_zeros()) as usize;
    3 * halvings + 6
}
