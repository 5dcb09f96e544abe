//! Records the compiler version at build time, for host info in every report.
//!
//! The git commit is deliberately not embedded: a value that moves with every checkout would
//! rebuild harness, and every crate above it, at every commit a `bisect` or `--base-ref` builds.
//! The commit a run measured is read at run time instead (`host::git_commit`).

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=HARNESS_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
