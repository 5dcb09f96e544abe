//! Paged KV-cache measurements (`kv_cache/alloc_dealloc_pages`, `kv_cache/grow_sequence`) and checks that
//! no page leaks or is shared under random workloads (`check/kv_cache/`).

use engine::kv_cache::{KvCache, PageConfig, SeqId};
use harness::{Bencher, Scenario};

use crate::inputs::SplitMix;

/// 16 tokens per page, a pool of 4096 pages (65536 tokens). 64 bytes per token keeps the pool cheap to
/// allocate in every process; the allocator's work depends on page counts, not on page size.
const GEOMETRY: PageConfig = PageConfig {
    tokens_per_page: 16,
    bytes_per_token: 64,
    total_pages: 4096,
};
/// Tokens of one prompt in the alloc/free measurement (128 pages).
const PROMPT: usize = 2048;
/// Tokens a sequence grows by, one decode step at a time.
const DECODE_STEPS: usize = 1024;

harness::scenarios!(|| vec![
    Scenario::measure("kv_cache/alloc_dealloc_pages", alloc_dealloc),
    Scenario::measure("kv_cache/grow_sequence", grow_sequence),
    Scenario::check("check/kv_cache/no_leak", no_leak),
    Scenario::check("check/kv_cache/failures_leave_pool_unchanged", failures_leave_pool_unchanged),
]);

fn cache() -> KvCache {
    KvCache::new(GEOMETRY).expect("valid geometry")
}

/// One prompt's pages allocated and freed: ns per pair (`latency_ns`).
fn alloc_dealloc(b: &mut Bencher) {
    let mut c = cache();
    // A few live sequences, so the free list is not in its pristine order.
    let live: Vec<SeqId> = (0..8).map(|_| c.allocate(1000).expect("fits")).collect();
    c.free(live[3]).expect("live");
    b.iter(|| {
        let s = c.allocate(PROMPT).expect("fits");
        c.free(s).expect("live");
    });
}

/// A sequence grown by `DECODE_STEPS` single-token appends, then freed: ns per grown sequence.
fn grow_sequence(b: &mut Bencher) {
    let mut c = cache();
    b.iter(|| {
        let s = c.allocate(0).expect("empty fits");
        for _ in 0..DECODE_STEPS {
            c.append(s, 1).expect("fits");
        }
        c.free(s).expect("live");
    });
}

/// A random mix of allocations, appends and frees (with every refused operation mixed in): the
/// invariants hold after each step, and freeing everything returns every page.
fn no_leak() -> Result<(), String> {
    let small = PageConfig {
        total_pages: 64,
        ..GEOMETRY
    };
    let mut c = KvCache::new(small).map_err(|e| e.to_string())?;
    let mut rng = SplitMix::new(31);
    let mut live: Vec<SeqId> = Vec::new();
    let mut freed: Vec<SeqId> = Vec::new();
    for step in 0..5000 {
        let op = rng.below(10);
        // Results are ignored on purpose: refusals (pool exhausted, double free) are part of the mix,
        // and the invariants below must hold either way.
        match op {
            0..=3 => {
                if let Ok(s) = c.allocate(rng.below(120)) {
                    live.push(s);
                }
            }
            4..=6 if !live.is_empty() => {
                let s = live[rng.below(live.len())];
                let _ = c.append(s, rng.below(40));
            }
            7 | 8 if !live.is_empty() => {
                let s = live.swap_remove(rng.below(live.len()));
                c.free(s).map_err(|e| format!("step {step}: freeing live sequence {s}: {e}"))?;
                freed.push(s);
            }
            _ if !freed.is_empty() => {
                let s = freed[rng.below(freed.len())];
                if c.free(s).is_ok() {
                    return Err(format!("step {step}: double free of sequence {s} accepted"));
                }
            }
            _ => {}
        }
        c.check_invariants().map_err(|e| format!("step {step}: {e}"))?;
    }
    for s in live {
        c.free(s).map_err(|e| e.to_string())?;
    }
    c.check_invariants()?;
    if c.free_pages() != c.total_pages() || c.live_sequences() != 0 {
        return Err(format!(
            "after freeing everything: {} of {} pages free, {} sequences live",
            c.free_pages(),
            c.total_pages(),
            c.live_sequences()
        ));
    }
    Ok(())
}

/// An allocation or append the pool cannot satisfy is refused whole: no page moves, no length changes.
fn failures_leave_pool_unchanged() -> Result<(), String> {
    let mut c = KvCache::new(PageConfig {
        total_pages: 10,
        ..GEOMETRY
    })
    .map_err(|e| e.to_string())?;
    let s = c.allocate(100).map_err(|e| e.to_string())?; // 7 pages
    let before = (
        c.free_pages(),
        c.seq_len(s).map_err(|e| e.to_string())?,
        c.pages(s).map_err(|e| e.to_string())?.to_vec(),
    );
    if c.allocate(100).is_ok() {
        return Err("allocated 7 pages with 3 free".into());
    }
    if c.append(s, 100).is_ok() {
        return Err("grew from 7 to 13 pages with 3 free".into());
    }
    let after = (
        c.free_pages(),
        c.seq_len(s).map_err(|e| e.to_string())?,
        c.pages(s).map_err(|e| e.to_string())?.to_vec(),
    );
    if before != after {
        return Err(format!(
            "refused operations changed the pool: (free, len, pages) {before:?} -> {after:?}"
        ));
    }
    c.check_invariants()
}
