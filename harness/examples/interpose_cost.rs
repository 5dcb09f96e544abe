//! What preloading `libharness_interpose.so` costs, as harness measurements: run by
//! `scripts/interpose_overhead.sh` through `compare`, the candidate side with the preload in its
//! environment (so the measuring child and every process it starts load the library).
//!
//! - `interpose/libtest_200_noop`: one shared libtest process running the 200 no-op tests of
//!   `noop_libtest` serially, as detect's shared runs do (start-up, one thread and one record per
//!   test, libtest's own `getenv`s);
//! - `interpose/getenv_1000_same`: 1000 `getenv` calls of one variable (recorded once per thread:
//!   the library keeps a small cache of reads it already wrote);
//! - `interpose/getenv_1000_distinct`: 1000 `getenv` calls over 1000 names (nearly every call
//!   writes a record: the cost of one record).

use std::process::{Command, Stdio};

use harness::Scenario;

harness::scenarios!(|| vec![
    Scenario::measure("interpose/libtest_200_noop", |b| {
        let bin = std::env::var_os("INTERPOSE_COST_LIBTEST").expect("INTERPOSE_COST_LIBTEST names noop_libtest");
        b.iter(|| {
            let status = Command::new(&bin)
                .args(["--test-threads=1", "-q"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("noop_libtest runs");
            assert!(status.success());
        })
    })
    .iterations(5)
    .warmup(1),
    Scenario::measure("interpose/getenv_1000_same", |b| {
        b.iter(|| {
            for _ in 0..1000 {
                std::hint::black_box(std::env::var_os("INTERPOSE_COST_UNSET"));
            }
        })
    }),
    Scenario::measure("interpose/getenv_1000_distinct", |b| {
        let names: Vec<String> = (0..1000).map(|i| format!("INTERPOSE_COST_UNSET_{i}")).collect();
        b.iter(|| {
            for n in &names {
                std::hint::black_box(std::env::var_os(n));
            }
        })
    }),
]);

fn main() -> std::process::ExitCode {
    harness::main()
}
