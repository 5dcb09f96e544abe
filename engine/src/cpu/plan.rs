//! The process-wide matmul [`Plan`] cache: warmed by earlier [`super::matmul`] calls, queried by [`cached_plan`].
//!
//! This is shared engine state on purpose: a plan built by one piece of work is found by every later one
//! in the same process, just as real runtimes cache kernel choices and tuned tilings. Anything that checks
//! [`cached_plan`] or [`plan_cache_len`] therefore depends on what ran before it in the process; that is
//! what the harness's order-dependence detection is demonstrated on. Nothing ever evicts a plan.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

/// How a matmul's output is divided between threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Split {
    /// Each thread computes a block of output columns (wide outputs such as 32 x 1024).
    Columns,
    /// Each thread computes a block of output rows (tall outputs).
    Rows,
}

/// The thread split chosen for one `m x k x n` shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Plan {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Which output dimension threads divide.
    pub split: Split,
    /// Most threads worth using: below ~4 MFLOP per thread a spawn costs more than it saves.
    pub max_threads: usize,
}

/// FLOPs a thread must get before spawning it pays off (a spawn and join is tens of microseconds).
const MIN_FLOPS_PER_THREAD: u64 = 4_000_000;

impl Plan {
    pub(crate) fn build(m: usize, k: usize, n: usize) -> Plan {
        let flops = super::matmul::matmul_flops(m, k, n);
        let by_work = (flops / MIN_FLOPS_PER_THREAD).max(1);
        // Column blocks keep all of A (small for decode-like m) hot in every thread's cache.
        let split = if n >= m { Split::Columns } else { Split::Rows };
        let divisible = match split {
            Split::Columns => n.div_ceil(16),
            Split::Rows => m.div_ceil(8),
        };
        let max_threads = by_work.min(divisible as u64).clamp(1, 256) as usize;
        Plan {
            m,
            k,
            n,
            split,
            max_threads,
        }
    }
}

type Cache = Mutex<HashMap<(usize, usize, usize), Plan>>;

static PLANS: OnceLock<Cache> = OnceLock::new();

fn cache() -> std::sync::MutexGuard<'static, HashMap<(usize, usize, usize), Plan>> {
    // A panic while holding the lock cannot leave a half-written plan (insert is the only write).
    PLANS.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner)
}

/// The plan for a shape, building and caching it on first use in this process.
pub(crate) fn plan_for(m: usize, k: usize, n: usize) -> Plan {
    *cache().entry((m, k, n)).or_insert_with(|| Plan::build(m, k, n))
}

/// The plan for `m x k x n` if an earlier matmul in this process built it; `None` in a fresh process.
pub fn cached_plan(m: usize, k: usize, n: usize) -> Option<Plan> {
    cache().get(&(m, k, n)).copied()
}

/// Number of shapes planned so far in this process (grows with every new matmul shape, never shrinks).
pub fn plan_cache_len() -> usize {
    cache().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_pick_split_and_threads_from_shape() {
        let p = Plan::build(1, 256, 256);
        assert_eq!((p.split, p.max_threads), (Split::Columns, 1));
        let p = Plan::build(32, 1024, 1024);
        assert_eq!(p.split, Split::Columns);
        assert!(p.max_threads >= 2);
        assert_eq!(Plan::build(4096, 64, 8).split, Split::Rows);
    }

    #[test]
    fn plan_for_warms_the_cache() {
        // A shape no other test uses, so the process-wide state is ours to observe.
        let shape = (3, 7, 11);
        assert_eq!(cached_plan(shape.0, shape.1, shape.2), None);
        let plan = plan_for(shape.0, shape.1, shape.2);
        assert_eq!(cached_plan(shape.0, shape.1, shape.2), Some(plan));
        assert!(plan_cache_len() >= 1);
    }
}
