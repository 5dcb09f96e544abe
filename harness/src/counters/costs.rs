//! `CacheCosts`: Callgrind's per-call events with its simulated caches, and the metrics made
//! from them (`instructions`, `estimated_cycles`).

/// The simulated caches, fixed so that counts do not depend on the host's caches (the values
/// gungraun and CodSpeed use): I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines.
pub(crate) const CACHE_ARGS: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"];

/// How `estimated_cycles` weighs hits (the Itamar-Turner-Trauring model gungraun uses).
pub(crate) const CYCLES_MODEL: &str = "L1 hits + 5 x LL hits + 35 x RAM accesses";

/// One call's events: instructions, data reads and writes, and misses per cache level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CacheCosts {
    pub ir: u64,
    pub dr: u64,
    pub dw: u64,
    pub i1mr: u64,
    pub d1mr: u64,
    pub d1mw: u64,
    pub ilmr: u64,
    pub dlmr: u64,
    pub dlmw: u64,
}

impl CacheCosts {
    /// Accesses that missed the last level: served by memory.
    pub(crate) fn ram(&self) -> u64 {
        self.ilmr + self.dlmr + self.dlmw
    }

    /// Accesses that missed L1 but hit the last level.
    pub(crate) fn ll_hits(&self) -> u64 {
        (self.i1mr + self.d1mr + self.d1mw).saturating_sub(self.ram())
    }

    /// Accesses that hit L1.
    pub(crate) fn l1_hits(&self) -> u64 {
        (self.ir + self.dr + self.dw).saturating_sub(self.i1mr + self.d1mr + self.d1mw)
    }

    /// [`CYCLES_MODEL`].
    pub(crate) fn estimated_cycles(&self) -> u64 {
        self.l1_hits() + 5 * self.ll_hits() + 35 * self.ram()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimated_cycles_weigh_each_level_once() {
        // 100 instructions + 50 data accesses; 10 L1 misses of which 4 went to RAM.
        let c = CacheCosts {
            ir: 100,
            dr: 30,
            dw: 20,
            i1mr: 3,
            d1mr: 5,
            d1mw: 2,
            ilmr: 1,
            dlmr: 2,
            dlmw: 1,
        };
        assert_eq!((c.l1_hits(), c.ll_hits(), c.ram()), (140, 6, 4));
        assert_eq!(c.estimated_cycles(), 140 + 30 + 140);
    }
}
