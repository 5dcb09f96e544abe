//! The scenario suites: `cargo run --release -p scenarios` runs the default suite.

mod cuda;

use harness::{Scenario, Throughput};

harness::scenario!(Scenario::check("smoke/passes", || ()));
harness::scenario!(Scenario::measure("smoke/sum_1k", |b| {
    let v: Vec<u64> = (0..1000).collect();
    b.throughput(Throughput::Bytes(8000));
    b.iter(|| v.iter().sum::<u64>())
}));

fn main() -> std::process::ExitCode {
    harness::main()
}
