//! The `--allocs` fixtures on the System allocator (no wrapper), for the preload library:
//! `fixture_allocs counts` prints one line per fixture, `name allocations deallocations
//! alloc_bytes peak_bytes leaked_bytes` (a metric that varies prints `varies`), or the reason
//! nothing counts; `fixture_allocs double-free` frees one block twice inside a window.
//!
//! Any other arguments: a suite binary of the same fixtures as measurements (`alloc/*`), for
//! `run --allocs` and `compare --allocs`. `FIXTURE_ALLOCS_EXTRA=1` makes `alloc/none` allocate
//! one 8-byte box a call (compare's candidate: `+1 per call`).

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use harness::Scenario;
use harness::allocs::{AllocSource, AllocValue, measure_calls};

fn line<R>(source: &AllocSource, name: &str, routine: impl FnMut(()) -> R) {
    let m = measure_calls(source, 2, 5, || (), routine);
    let cells: Vec<String> = m
        .metrics
        .iter()
        .map(|x| match x.value {
            AllocValue::Exact(v) => v.to_string(),
            AllocValue::Varies { .. } => "varies".to_owned(),
        })
        .collect();
    println!("{name} {}", cells.join(" "));
}

fn main() -> std::process::ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("counts" | "double-free") => counts(),
        _ => return harness::main(),
    }
    std::process::ExitCode::SUCCESS
}

/// One 8-byte box a call under `FIXTURE_ALLOCS_EXTRA=1`, else nothing.
fn extra() -> Option<Box<u64>> {
    static EXTRA: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    EXTRA
        .get_or_init(|| std::env::var_os("FIXTURE_ALLOCS_EXTRA").is_some_and(|v| v == "1"))
        .then(|| Box::new(black_box(7u64)))
}

// Bad input, only with `FIXTURE_ALLOCS_DOUBLE_FREE=1` (so `run alloc/` stays clean): glibc
// catches the second free and aborts; the crash is the scenario's result.
harness::scenarios!(|| {
    let on = std::env::var_os("FIXTURE_ALLOCS_DOUBLE_FREE").is_some_and(|v| v == "1");
    on.then(|| {
        Scenario::measure("bad/double_free", |b| {
            b.iter(|| {
                // SAFETY: deliberately not: the second free is the bad input the allocator catches.
                unsafe {
                    let p = libc::malloc(black_box(64));
                    libc::free(black_box(p));
                    libc::free(black_box(p));
                }
            })
        })
    })
});

harness::scenarios!(|| vec![
    Scenario::measure("alloc/none", |b| b.iter(|| (black_box(1u64) + 1, extra()))),
    Scenario::measure("alloc/zeroed_4k", |b| b.iter(|| vec![0u8; black_box(4096)])),
    Scenario::measure("alloc/grown", |b| b.iter(|| {
        let mut v = Vec::new();
        for i in 0..100u64 {
            v.push(black_box(i));
        }
        v
    })),
    Scenario::measure("alloc/leak", |b| b.iter(|| {
        black_box(Box::leak(vec![7u8; 100].into_boxed_slice()));
    })),
    Scenario::measure("alloc/every_third", |b| {
        let mut calls = 0u64;
        b.iter(move || {
            calls += 1;
            (calls % 3 == 0).then(|| Box::new(black_box(calls)))
        })
    }),
    // Frees inside the measured call the input `setup` allocated before it: bad input.
    Scenario::measure("alloc/frees_setup", |b| b.iter_batched(|| vec![1u8; 64], |v| drop(black_box(v)))),
    Scenario::measure("alloc/custom", |b| b.iter_custom(|n| {
        let t = std::time::Instant::now();
        for _ in 0..n {
            black_box(vec![0u8; 16]);
        }
        t.elapsed()
    })),
]);

fn counts() {
    let source = match AllocSource::find() {
        Ok(s) => s,
        Err(reason) => {
            println!("{reason}");
            return;
        }
    };
    if std::env::args().nth(1).as_deref() == Some("double-free") {
        source.open();
        // SAFETY: deliberately not: the second free is the bad input the allocator catches.
        unsafe {
            let p = libc::malloc(64);
            libc::free(black_box(p));
            libc::free(black_box(p));
        }
        source.close();
        return;
    }
    line(&source, "none", |()| black_box(1u64) + 1);
    line(&source, "zeroed_4k", |()| vec![0u8; 4096]);
    line(&source, "grown", |()| {
        let mut v = Vec::new();
        for i in 0..100u64 {
            v.push(black_box(i));
        }
        v
    });
    line(&source, "leak", |()| {
        black_box(Box::leak(vec![7u8; 100].into_boxed_slice()));
    });
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
    line(&source, "thread", |()| {
        let r = REQUEST.fetch_add(1, Ordering::AcqRel) + 1;
        while DONE.load(Ordering::Acquire) != r {
            std::hint::spin_loop();
        }
    });
}
