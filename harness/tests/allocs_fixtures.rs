//! The `--allocs` fixture suite: routines with known allocation counts, counted through
//! `harness::CountingAllocator<System>`, asserted exactly. `harness = false`: libtest's own
//! threads must not allocate inside a window (every thread counts), so the fixtures run one
//! after another on the main thread.

#[path = "common/interpose.rs"]
#[allow(dead_code)]
mod common;

use std::alloc::System;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use harness::CountingAllocator;
use harness::allocs::measure::AllocMeasurement;
use harness::allocs::{AllocSource, AllocValue, measure_calls};

#[global_allocator]
static ALLOC: CountingAllocator<System> = CountingAllocator::new(System);

/// `allocations, deallocations, alloc_bytes, peak_bytes, leaked_bytes`, exact per call.
fn exact(m: &AllocMeasurement) -> [u64; 5] {
    let mut out = [0; 5];
    for (slot, metric) in out.iter_mut().zip(&m.metrics) {
        match metric.value {
            AllocValue::Exact(v) => *slot = v,
            ref varies => panic!("{} varies: {varies:?}", metric.name),
        }
    }
    out
}

fn count<R>(source: &AllocSource, routine: impl FnMut(()) -> R) -> AllocMeasurement {
    measure_calls(source, 2, 5, || (), routine)
}

fn main() {
    let source = AllocSource::find().expect("the wrapper is the global allocator");
    assert_eq!(source.label(), "allocs-wrapper");
    let names: Vec<&str> = count(&source, |()| ()).metrics.iter().map(|m| m.name).collect();
    assert_eq!(names, harness::allocs::METRICS);

    // No allocation.
    assert_eq!(exact(&count(&source, |()| black_box(1u64) + 1)), [0, 0, 0, 0, 0]);

    // One zeroed 4 KiB vector, returned (the window covers dropping the output: no leak).
    assert_eq!(exact(&count(&source, |()| vec![0u8; 4096])), [1, 1, 4096, 4096, 0]);

    // A vector grown by push: capacities 4, 8, 16, 32, 64, 128 u64s = one alloc of 32 bytes and
    // five growing reallocs adding 32 + 64 + 128 + 256 + 512 bytes; peak is the last 1024.
    let grown = count(&source, |()| {
        let mut v = Vec::new();
        for i in 0..100u64 {
            v.push(black_box(i));
        }
        v
    });
    assert_eq!(exact(&grown), [6, 1, 1024, 1024, 0]);

    // A deliberate leak of 100 bytes per call.
    let leak = count(&source, |()| {
        black_box(Box::leak(vec![7u8; 100].into_boxed_slice()));
    });
    assert_eq!(exact(&leak), [1, 0, 100, 100, 100]);

    // A thread that allocates: a worker started before the window does the call's allocation;
    // every thread counts. The handshake is two atomics (no channel, which would allocate).
    static REQUEST: AtomicUsize = AtomicUsize::new(0);
    static DONE: AtomicUsize = AtomicUsize::new(0);
    std::thread::spawn(|| {
        let mut seen = 0;
        loop {
            let r = REQUEST.load(Ordering::Acquire);
            if r == seen {
                std::hint::spin_loop();
                continue;
            }
            seen = r;
            drop(black_box(Vec::<u8>::with_capacity(256)));
            DONE.store(r, Ordering::Release);
        }
    });
    let threaded = count(&source, |()| {
        let r = REQUEST.fetch_add(1, Ordering::AcqRel) + 1;
        while DONE.load(Ordering::Acquire) != r {
            std::hint::spin_loop();
        }
    });
    assert_eq!(exact(&threaded), [1, 1, 256, 256, 0]);

    // Not linear: an allocation every third call varies, with its spread, never an exact number.
    let mut k = 0u32;
    let every_third = count(&source, |()| {
        k += 1;
        k.is_multiple_of(3).then(|| Box::new(black_box(k)))
    });
    let allocations = &every_third.metrics[0];
    assert!(
        matches!(allocations.value, AllocValue::Varies { min: 0, max: 1, .. }),
        "{allocations:?}"
    );
    assert!(allocations.display().starts_with("varies 0..1"));

    // Bad input: freeing inside the window what setup allocated outside it is said, not hidden
    // as a negative leak.
    let foreign = measure_calls(&source, 1, 5, || Box::new([1u8; 64]), drop);
    assert_eq!(exact(&foreign), [0, 1, 0, 0, 0]);
    let said = foreign.foreign_free.expect("a foreign free is reported");
    assert!(said.contains("64 bytes"), "{said}");

    preload();
    println!("allocs fixtures: 9 passed");
}

/// The same fixtures on the System allocator through the preload library, in a process of their
/// own; without the preload the binary says why it counts nothing; a double free is a crash.
fn preload() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Command;

    let bin = env!("CARGO_BIN_EXE_fixture_allocs");
    let lib = common::interpose_lib();
    let out = Command::new(bin).arg("counts").env("LD_PRELOAD", &lib).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let row = |name: &str| -> Vec<u64> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in {text}"));
        line.split(' ')
            .skip(1)
            .map(|c| c.parse().unwrap_or_else(|_| panic!("{line}: not exact")))
            .collect()
    };
    // allocations, deallocations, alloc_bytes exact; live bytes are malloc's usable sizes, which
    // round a request up by at most a chunk header and alignment.
    assert_eq!(row("none"), [0, 0, 0, 0, 0]);
    let z = row("zeroed_4k");
    assert_eq!(z[..3], [1, 1, 4096]);
    assert!((4096..4096 + 32).contains(&z[3]) && z[4] == 0, "{z:?}");
    let g = row("grown");
    assert_eq!((g[0], g[1], g[4]), (6, 1, 0), "one malloc, five growing reallocs, one free");
    let l = row("leak");
    assert_eq!(l[..3], [1, 0, 100]);
    assert!((100..132).contains(&l[4]), "{l:?}");
    let t = row("thread");
    assert_eq!(t[..3], [1, 1, 256], "the worker thread's allocation counts");

    let absent = Command::new(bin).arg("counts").env_remove("LD_PRELOAD").output().unwrap();
    let said = String::from_utf8(absent.stdout).unwrap();
    assert!(said.starts_with("not counted: preload absent"), "{said}");

    let crash = Command::new(bin).arg("double-free").env("LD_PRELOAD", &lib).output().unwrap();
    assert_eq!(
        crash.status.signal(),
        Some(libc::SIGABRT),
        "glibc catches the double free: {:?}",
        crash.status
    );
}
