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

/// The block freed: glibc raises its thresholds only for a freed block up to 32 MiB, and never
/// touches this one, so it costs address space, not resident memory.
const SETTLE_BYTES: usize = 16 << 20;

/// Put the allocator's thresholds where a long-running process has them: one untouched block
/// above the mmap threshold, allocated and freed. Harmless under another allocator.
pub(crate) fn settle() {
    std::hint::black_box(Vec::<u8>::with_capacity(SETTLE_BYTES));
}

#[cfg(test)]
mod tests {
    use std::process::Command;

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
            if mode == "settled" {
                super::settle();
            }
            println!("faults={}", faults_of_a_reused_block());
            return;
        }
        let probe = |mode: &str| -> i64 {
            let out = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "suite::allocator::tests::a_settled_allocator_keeps_freed_memory_for_the_next_call",
                ])
                .args(["--nocapture", "--test-threads=1"])
                .env("HARNESS_SETTLE_PROBE", mode)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            // libtest prints the test's name on the same line, before the probe's output.
            let after = text.split("faults=").nth(1).unwrap_or_else(|| panic!("{text}"));
            after.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
        };
        let (fresh, settled) = (probe("fresh"), probe("settled"));
        assert!(fresh >= 50, "a fresh process maps the block anew: {fresh} faults");
        assert!(settled <= 5, "a settled one reuses kept pages: {settled} faults");
    }
}
