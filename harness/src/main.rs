//! The `harness` binary: the CLI with no scenarios of its own (point it at a suite or test
//! binary with --suite-bin / --test-bin, or use detect / compare / report).

fn main() -> std::process::ExitCode {
    harness::main()
}
