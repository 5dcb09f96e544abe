//! A libtest-mimic trial that needs valgrind: ignored with the reason where it is missing, a
//! failure where CI requires it (`HARNESS_REQUIRE_VALGRIND=1`, set by .ci/run).

use std::process::Command;

use libtest_mimic::{Completion, Failed, Trial};

pub const REQUIRE_VAR: &str = "HARNESS_REQUIRE_VALGRIND";

pub fn installed() -> bool {
    Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success())
}

pub fn trial(name: &'static str, test: impl FnOnce() + Send + 'static) -> Trial {
    Trial::ignorable_test(name, move || {
        if installed() {
            test();
            Ok(Completion::Completed)
        } else if std::env::var_os(REQUIRE_VAR).is_some_and(|v| v == "1") {
            Err(Failed::from(format!(
                "{REQUIRE_VAR}=1 but valgrind is not installed (apt-get install valgrind)"
            )))
        } else {
            Ok(Completion::ignored_with(format!(
                "valgrind not installed; apt-get install valgrind, {REQUIRE_VAR}=1 makes this a failure"
            )))
        }
    })
}
