//! The allocator's state before a measurement: where a long-running process has it.
//!
//! glibc's malloc adapts to a process's history. At start it serves blocks above 128 KiB with
//! mmap and gives free memory at the top of the heap back to the OS above 128 KiB. Once a block
//! served by mmap is freed, the mmap threshold rises to that block's size and the trim threshold
//! to twice it. A long-running process (criterion's, which frees large vectors in its analysis
//! before later benchmarks) has raised them long ago; a fresh measuring process has not, so
//! memory freed between samples goes back to the OS and the next timed call takes it again
//! (brk, page faults). dary_heap's `append` of 2 500 into 97 500 `u32` took 27 µs per call that
//! way against criterion's 16.5 µs; after [`settle`] it took 16.7 µs (docs/criterion.md).
//!
//! A fresh process's heap is also laid out the same way every time: the same inputs land at the
//! same page offsets, so a routine sensitive to where its data sits (a loop storing to the stack
//! while it reads the input, hit by 4K aliasing) gives every process the same number and
//! criterion's process another. unicode-segmentation's `chars/scalar/*` read 0.56-0.78x
//! criterion's with all five processes within 1% of each other. [`settle`] therefore also shifts
//! later allocations by an offset of the process's own (16-byte steps up to 4 KiB, from its run
//! id, so a rerun of the plan repeats it): the processes sample layouts, the interval covers
//! them, and a row whose number depends on the layout says so ("processes disagree").

/// The block freed: glibc raises its thresholds only for a freed block up to 32 MiB, and never
/// touches this one, so it costs address space, not resident memory.
const SETTLE_BYTES: usize = 16 << 20;

/// Put the allocator's thresholds where a long-running process has them (one untouched block
/// above the mmap threshold, allocated and freed), then shift later allocations by `layout`'s
/// offset with a small block kept for the life of the process. Harmless under another allocator.
pub(crate) fn settle(layout: u64) {
    std::hint::black_box(Vec::<u8>::with_capacity(SETTLE_BYTES));
    // Above the sizes glibc keeps in per-size free lists, so the block comes from the top of the
    // heap, right before what the process allocates next.
    let pad = 8192 + 16 * (layout % 256) as usize;
    std::mem::forget(std::hint::black_box(Vec::<u8>::with_capacity(pad)));
}

/// A process's layout from its run id (FNV-1a): different processes, different offsets; the
/// same plan, the same ones.
pub(crate) fn layout_of(id: &str) -> u64 {
    crate::fnv::fnv1a(id.as_bytes())
}

#[cfg(test)]
mod tests {
    /// Minor page faults of this thread while a 400 KB block is allocated, filled and freed
    /// after an identical one was: a settled allocator serves it from memory it kept.
    fn faults_of_a_reused_block() -> i64 {
        let faults = || {
            // SAFETY: getrusage fills the struct it is given.
            let mut u: libc::rusage = unsafe { std::mem::zeroed() };
            unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
            u.ru_minflt
        };
        drop(std::hint::black_box(vec![1u8; 400_000]));
        let before = faults();
        drop(std::hint::black_box(vec![1u8; 400_000]));
        faults() - before
    }

    /// The probe runs in a fresh process of this test binary (the thresholds only ever rise, so
    /// any earlier test in this process could have raised them): unsettled, the second block is
    /// a fresh mapping (about 100 faults of 4 KiB pages); settled, it reuses the first's pages.
    #[test]
    fn a_settled_allocator_keeps_freed_memory_for_the_next_call() {
        if let Ok(mode) = std::env::var("HARNESS_SETTLE_PROBE") {
            if let Some(layout) = mode.strip_prefix("layout=") {
                super::settle(layout.parse().unwrap());
                let after = std::hint::black_box(vec![1u8; 40_000]);
                println!("offset={}", after.as_ptr() as usize % 4096);
                return;
            }
            if mode == "settled" {
                super::settle(0);
            }
            println!("faults={}", faults_of_a_reused_block());
            return;
        }
        let probe = |mode: &str| -> i64 { probe_value(mode, "faults=") };
        let (fresh, settled) = (probe("fresh"), probe("settled"));
        assert!(fresh >= 50, "a fresh process maps the block anew: {fresh} faults");
        assert!(settled <= 5, "a settled one reuses kept pages: {settled} faults");
        // Layouts: a later allocation's page offset moves with the process's layout.
        let offsets: std::collections::BTreeSet<i64> = [0, 1, 7, 100, 255]
            .iter()
            .map(|l| probe_value(&format!("layout={l}"), "offset="))
            .collect();
        assert_eq!(offsets.len(), 5, "five layouts, five page offsets: {offsets:?}");
        assert_eq!(super::layout_of("r1"), super::layout_of("r1"));
        assert_ne!(super::layout_of("r1") % 256, super::layout_of("r2") % 256);
    }

    fn probe_value(mode: &str, key: &str) -> i64 {
        let text = crate::suite::rerun_test_alone(
            "suite::allocator::tests::a_settled_allocator_keeps_freed_memory_for_the_next_call",
            ("HARNESS_SETTLE_PROBE", mode),
        );
        // libtest prints the test's name on the same line, before the probe's output.
        let after = text.split(key).nth(1).unwrap_or_else(|| panic!("{text}"));
        after.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
    }
}
