//! [`KvCache`]: a paged allocator for per-sequence key/value memory, in fixed-size pages from one pool.
//!
//! A sequence owns a list of pages; appending tokens takes pages from the free list only when the last
//! page is full, and freeing returns them all. Every failing operation (pool exhausted, unknown or
//! already-freed sequence) returns an error and leaves the cache exactly as it was: no partial growth, no
//! corrupted free list. Sequence ids are never reused, so a double free is always detected.

use std::collections::HashMap;
use std::fmt;

use crate::errors::KvCacheError;

/// Pool geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageConfig {
    /// Tokens stored in one page.
    pub tokens_per_page: usize,
    /// Bytes of key/value data per token (all layers and heads together).
    pub bytes_per_token: usize,
    /// Pages in the pool.
    pub total_pages: usize,
}

impl PageConfig {
    /// Bytes in one page.
    pub fn page_bytes(&self) -> usize {
        self.tokens_per_page * self.bytes_per_token
    }
}

/// A live sequence's handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeqId(u64);

impl fmt::Display for SeqId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Index of a page in the pool.
pub type PageId = u32;

#[derive(Debug, Default)]
struct Sequence {
    pages: Vec<PageId>,
    len: usize,
}

/// The paged pool: backing bytes, a free list and the live sequences.
#[derive(Debug)]
pub struct KvCache {
    config: PageConfig,
    storage: Vec<u8>,
    free: Vec<PageId>,
    seqs: HashMap<SeqId, Sequence>,
    next_id: u64,
}

impl KvCache {
    /// A pool of `config.total_pages` zeroed pages; every field must be positive.
    pub fn new(config: PageConfig) -> Result<Self, KvCacheError> {
        for (field, value) in [
            ("tokens_per_page", config.tokens_per_page),
            ("bytes_per_token", config.bytes_per_token),
            ("total_pages", config.total_pages),
        ] {
            if value == 0 {
                return Err(KvCacheError::InvalidConfig { field, value });
            }
        }
        if config.total_pages > PageId::MAX as usize {
            return Err(KvCacheError::InvalidConfig {
                field: "total_pages",
                value: config.total_pages,
            });
        }
        let bytes = config
            .page_bytes()
            .checked_mul(config.total_pages)
            .ok_or(KvCacheError::InvalidConfig {
                field: "total_pages",
                value: config.total_pages,
            })?;
        Ok(KvCache {
            config,
            storage: vec![0; bytes],
            // Reversed so pages are handed out from 0 upwards (the free list pops from the back).
            free: (0..config.total_pages as PageId).rev().collect(),
            seqs: HashMap::new(),
            next_id: 0,
        })
    }

    /// The pool geometry.
    pub fn config(&self) -> PageConfig {
        self.config
    }

    /// Pages needed to hold `tokens` tokens.
    pub fn pages_for(&self, tokens: usize) -> usize {
        tokens.div_ceil(self.config.tokens_per_page)
    }

    /// Pages in the pool.
    pub fn total_pages(&self) -> usize {
        self.config.total_pages
    }

    /// Pages not owned by any sequence.
    pub fn free_pages(&self) -> usize {
        self.free.len()
    }

    /// Sequences allocated and not yet freed.
    pub fn live_sequences(&self) -> usize {
        self.seqs.len()
    }

    /// A new sequence holding `tokens` tokens (0 is allowed and takes no page).
    pub fn allocate(&mut self, tokens: usize) -> Result<SeqId, KvCacheError> {
        let pages = self.take_pages(self.pages_for(tokens))?;
        let id = SeqId(self.next_id);
        self.next_id += 1;
        self.seqs.insert(id, Sequence { pages, len: tokens });
        Ok(id)
    }

    /// Appends `tokens` tokens to `seq`, taking pages only when its last page fills; all or nothing.
    pub fn append(&mut self, seq: SeqId, tokens: usize) -> Result<(), KvCacheError> {
        let len = self.seq(seq)?.len;
        let have = self.seq(seq)?.pages.len();
        let need = self.pages_for(len + tokens) - have;
        let mut pages = self.take_pages(need)?;
        let s = self.seqs.get_mut(&seq).expect("checked live above");
        s.pages.append(&mut pages);
        s.len += tokens;
        Ok(())
    }

    /// Frees `seq` and returns its pages to the pool; a second free of the same id is an error.
    pub fn free(&mut self, seq: SeqId) -> Result<(), KvCacheError> {
        let s = self.seqs.remove(&seq).ok_or(KvCacheError::UnknownSequence { seq: seq.0 })?;
        self.free.extend(s.pages);
        Ok(())
    }

    /// Tokens in `seq`.
    pub fn seq_len(&self, seq: SeqId) -> Result<usize, KvCacheError> {
        Ok(self.seq(seq)?.len)
    }

    /// Pages of `seq`, in token order.
    pub fn pages(&self, seq: SeqId) -> Result<&[PageId], KvCacheError> {
        Ok(&self.seq(seq)?.pages)
    }

    /// The `bytes_per_token` bytes of token `pos` of `seq`.
    pub fn token(&self, seq: SeqId, pos: usize) -> Result<&[u8], KvCacheError> {
        let at = self.token_offset(seq, pos)?;
        Ok(&self.storage[at..at + self.config.bytes_per_token])
    }

    /// The `bytes_per_token` bytes of token `pos` of `seq`, writable.
    pub fn token_mut(&mut self, seq: SeqId, pos: usize) -> Result<&mut [u8], KvCacheError> {
        let at = self.token_offset(seq, pos)?;
        Ok(&mut self.storage[at..at + self.config.bytes_per_token])
    }

    /// Checks that every page is either free or owned by exactly one live sequence, and that each sequence
    /// holds exactly the pages its length needs. Returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut owner = vec![None; self.config.total_pages];
        for &p in &self.free {
            let slot = owner.get_mut(p as usize).ok_or(format!("free page {p} out of range"))?;
            if slot.replace("free list").is_some() {
                return Err(format!("page {p} is on the free list twice"));
            }
        }
        for (id, s) in &self.seqs {
            if s.pages.len() != self.pages_for(s.len) {
                return Err(format!("sequence {id} of {} tokens holds {} pages", s.len, s.pages.len()));
            }
            for &p in &s.pages {
                let slot = owner.get_mut(p as usize).ok_or(format!("page {p} of sequence {id} out of range"))?;
                if let Some(other) = slot.replace("a sequence") {
                    return Err(format!("page {p} of sequence {id} is also owned by {other}"));
                }
            }
        }
        match owner.iter().position(Option::is_none) {
            Some(p) => Err(format!("page {p} leaked: neither free nor owned")),
            None => Ok(()),
        }
    }

    fn seq(&self, seq: SeqId) -> Result<&Sequence, KvCacheError> {
        self.seqs.get(&seq).ok_or(KvCacheError::UnknownSequence { seq: seq.0 })
    }

    fn take_pages(&mut self, n: usize) -> Result<Vec<PageId>, KvCacheError> {
        if n > self.free.len() {
            return Err(KvCacheError::PoolExhausted {
                requested: n,
                free: self.free.len(),
                total: self.config.total_pages,
            });
        }
        Ok(self.free.split_off(self.free.len() - n))
    }

    fn token_offset(&self, seq: SeqId, pos: usize) -> Result<usize, KvCacheError> {
        let s = self.seq(seq)?;
        if pos >= s.len {
            return Err(KvCacheError::PositionOutOfRange {
                seq: seq.0,
                pos,
                len: s.len,
            });
        }
        let page = s.pages[pos / self.config.tokens_per_page] as usize;
        Ok(page * self.config.page_bytes() + (pos % self.config.tokens_per_page) * self.config.bytes_per_token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn cache(total_pages: usize) -> KvCache {
        KvCache::new(PageConfig {
            tokens_per_page: 16,
            bytes_per_token: 8,
            total_pages,
        })
        .unwrap()
    }

    #[test]
    fn allocate_grow_free_returns_every_page() {
        let mut c = cache(10);
        let a = c.allocate(17).unwrap();
        assert_eq!(c.pages(a).unwrap().len(), 2);
        c.append(a, 15).unwrap();
        assert_eq!(
            (c.seq_len(a).unwrap(), c.pages(a).unwrap().len()),
            (32, 2),
            "fills the last page first"
        );
        c.append(a, 1).unwrap();
        assert_eq!(c.pages(a).unwrap().len(), 3);
        let b = c.allocate(0).unwrap();
        assert_eq!(c.pages(b).unwrap().len(), 0);
        c.append(b, 1).unwrap();
        assert_eq!(c.free_pages(), 6);
        c.check_invariants().unwrap();
        c.free(a).unwrap();
        c.free(b).unwrap();
        assert_eq!((c.free_pages(), c.live_sequences()), (10, 0));
        c.check_invariants().unwrap();
    }

    #[test]
    fn double_free_is_an_error_and_corrupts_nothing() {
        let mut c = cache(4);
        let a = c.allocate(20).unwrap();
        let b = c.allocate(5).unwrap();
        c.free(a).unwrap();
        assert_eq!(c.free(a), Err(KvCacheError::UnknownSequence { seq: 0 }));
        assert_eq!(c.free_pages(), 3, "the second free returned no page");
        c.check_invariants().unwrap();
        // The pages freed once are reused by a new sequence without clashing with b.
        let d = c.allocate(48).unwrap();
        assert_ne!(d, a, "ids are never reused");
        assert!(c.pages(d).unwrap().iter().all(|p| !c.pages(b).unwrap().contains(p)));
        c.check_invariants().unwrap();
        assert!(c.free(a).is_err() && c.append(a, 1).is_err() && c.token(a, 0).is_err());
    }

    #[test]
    fn exhaustion_is_an_error_and_changes_nothing() {
        let mut c = cache(3);
        let a = c.allocate(32).unwrap();
        assert_eq!(
            c.allocate(17),
            Err(KvCacheError::PoolExhausted {
                requested: 2,
                free: 1,
                total: 3
            })
        );
        assert_eq!(
            c.append(a, 33),
            Err(KvCacheError::PoolExhausted {
                requested: 3,
                free: 1,
                total: 3
            })
        );
        assert_eq!((c.seq_len(a).unwrap(), c.free_pages(), c.live_sequences()), (32, 1, 1));
        c.check_invariants().unwrap();
        c.append(a, 16).unwrap();
        assert_eq!(c.free_pages(), 0);
        c.check_invariants().unwrap();
    }

    #[test]
    fn token_bytes_are_per_sequence_and_survive_growth() {
        let mut c = cache(8);
        let a = c.allocate(3).unwrap();
        let b = c.allocate(3).unwrap();
        c.token_mut(a, 2).unwrap().fill(0xAA);
        c.token_mut(b, 2).unwrap().fill(0xBB);
        c.append(a, 40).unwrap();
        assert_eq!(c.token(a, 2).unwrap(), [0xAA; 8]);
        assert_eq!(c.token(b, 2).unwrap(), [0xBB; 8]);
        assert_eq!(c.token(b, 3), Err(KvCacheError::PositionOutOfRange { seq: b.0, pos: 3, len: 3 }));
    }

    #[test]
    fn bad_config_names_the_field() {
        let err = KvCache::new(PageConfig {
            tokens_per_page: 16,
            bytes_per_token: 0,
            total_pages: 4,
        })
        .unwrap_err();
        assert_eq!(
            err,
            KvCacheError::InvalidConfig {
                field: "bytes_per_token",
                value: 0
            }
        );
        assert!(err.to_string().contains("bytes_per_token = 0"));
    }

    /// Many seeded random operations, checked against a model of sequence lengths and the invariants after
    /// every step; failed operations must leave the cache unchanged.
    #[test]
    fn random_operations_keep_invariants_and_leak_nothing() {
        for seed in 0..8 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut c = cache(64);
            let mut model: HashMap<SeqId, usize> = HashMap::new();
            let mut dead: Vec<SeqId> = Vec::new();
            for step in 0..2000 {
                let before = c.free_pages();
                let live: Vec<SeqId> = {
                    let mut v: Vec<_> = model.keys().copied().collect();
                    v.sort_by_key(|s| s.0);
                    v
                };
                match rng.random_range(0..10) {
                    0..=2 => {
                        let tokens = rng.random_range(0..200);
                        match c.allocate(tokens) {
                            Ok(id) => {
                                model.insert(id, tokens);
                            }
                            Err(KvCacheError::PoolExhausted { .. }) => {
                                assert_eq!(c.free_pages(), before)
                            }
                            Err(e) => panic!("seed {seed} step {step}: {e}"),
                        }
                    }
                    3..=5 if !live.is_empty() => {
                        let id = live[rng.random_range(0..live.len())];
                        let tokens = rng.random_range(0..60);
                        match c.append(id, tokens) {
                            Ok(()) => *model.get_mut(&id).unwrap() += tokens,
                            Err(KvCacheError::PoolExhausted { .. }) => {
                                assert_eq!(c.free_pages(), before)
                            }
                            Err(e) => panic!("seed {seed} step {step}: {e}"),
                        }
                    }
                    6..=7 if !live.is_empty() => {
                        let id = live[rng.random_range(0..live.len())];
                        c.free(id).unwrap();
                        model.remove(&id);
                        dead.push(id);
                    }
                    8 if !dead.is_empty() => {
                        let id = dead[rng.random_range(0..dead.len())];
                        assert_eq!(c.free(id), Err(KvCacheError::UnknownSequence { seq: id.0 }));
                        assert_eq!(c.free_pages(), before);
                    }
                    _ => assert!(c.free(SeqId(u64::MAX)).is_err()),
                }
                c.check_invariants().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
                let owned: usize = model.values().map(|&t| c.pages_for(t)).sum();
                assert_eq!(c.free_pages() + owned, c.total_pages());
                for (id, &len) in &model {
                    assert_eq!(c.seq_len(*id).unwrap(), len);
                }
            }
            for id in model.keys() {
                c.free(*id).unwrap();
            }
            assert_eq!((c.free_pages(), c.live_sequences()), (c.total_pages(), 0), "seed {seed}: leak");
        }
    }
}
