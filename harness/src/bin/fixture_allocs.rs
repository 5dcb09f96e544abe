//! The `--allocs` fixtures on the System allocator (no wrapper), for the preload library:
//! `fixture_allocs counts` prints one line per fixture, `name allocations deallocations
//! alloc_bytes peak_bytes leaked_bytes` (a metric that varies prints `varies`), or the reason
//! nothing counts; `fixture_allocs double-free` frees one block twice inside a window.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

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

fn main() {
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
