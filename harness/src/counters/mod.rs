//! Counters: deterministic (or near) measurement sources beside wall time, so that compare,
//! history and bisect can decide where wall time on a shared machine cannot.
//!
//! - [`CounterSource`] resolves `--counters[=auto|valgrind|perf]` in the parent (`source`).
//! - Under valgrind a measurement gets processes of its own, started under Callgrind with
//!   instrumentation off; the child's `Bencher` switches it on around the measured routine's calls
//!   and reads one dump per call (`callgrind`, `client_request`, `costs`).
//! - Under perf the processes that measure wall time also count, around each timed sample
//!   (`perf`).
//!
//! Either way the counts leave the child as ordinary metrics (`instructions`, `estimated_cycles`
//! or `cycles`, ...) stamped with their source, on the one child-protocol and event path.

mod callgrind;
mod client_request;
mod costs;
mod counting;
#[cfg(feature = "perf")]
mod perf;
#[cfg(not(feature = "perf"))]
#[path = "perf_off.rs"]
mod perf;
mod profile;
mod source;

pub(crate) use counting::{CountRequest, Counting};
pub(crate) use source::valgrind_args;
pub use source::{CounterMode, CounterSettings, CounterSource, VALGRIND_TIMEOUT_FACTOR};

/// Whether counting processes counted alike: none failed, every counter metric took one value
/// in all of them, and there was one. Such counts are exact: more processes would repeat them
/// (`run` stops at two, `compare` after two pairs).
pub(crate) fn counted_alike<'a>(runs: impl IntoIterator<Item = &'a crate::model::RunRecord>) -> bool {
    let mut seen: std::collections::BTreeMap<&str, f64> = std::collections::BTreeMap::new();
    let mut any = false;
    for r in runs {
        if r.outcome.is_failure() {
            return false;
        }
        for m in r.metrics.iter().filter(|m| m.source.is_some()) {
            any = true;
            if *seen.entry(m.name.as_str()).or_insert(m.value) != m.value {
                return false;
            }
        }
    }
    any
}
