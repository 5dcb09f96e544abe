//! A real run of the `fixture_report` suite, shared by the report tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the fixture suite (seed 7, 8 processes per measurement) into `dir/out`; returns the
/// process output and the output directory.
pub fn fixture_run(dir: &Path) -> (Output, PathBuf) {
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_fixture_report"))
        .args([
            "--out",
            out.to_str().unwrap(),
            "--seed",
            "7",
            "--repeat",
            "8",
            "--iterations",
            "5",
            "--warmup",
            "1",
        ])
        .env("FIXTURE_REPORT_STATE", &state)
        .output()
        .unwrap();
    (o, out)
}
