//! A suite that registers two scenarios with the same name, from two places: the harness must
//! refuse it (exit 2) and name both places (tests/registry.rs).

use harness::Scenario;

harness::scenario!(Scenario::check("dup/same_name", || ()));
harness::scenario!(Scenario::check("dup/unique", || ()));
harness::scenarios!(|| vec![Scenario::check("dup/same_name", || ())]);

fn main() -> std::process::ExitCode {
    harness::main()
}
