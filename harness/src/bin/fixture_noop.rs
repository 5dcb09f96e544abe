//! 200 no-op checks: the suite the harness's per-run overhead is measured on.

harness::scenarios!(|| (0..200)
    .map(|i| harness::Scenario::check(format!("noop/{i:03}"), || ()))
    .collect::<Vec<_>>());

fn main() -> std::process::ExitCode {
    harness::main()
}
