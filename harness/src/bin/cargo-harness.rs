//! `cargo harness run|detect|compare ...`: the harness as a cargo subcommand (cargo runs
//! `cargo-harness harness ...`). Discovery of test binaries lives in `harness::cargo`.

fn main() -> std::process::ExitCode {
    harness::cargo::main()
}
