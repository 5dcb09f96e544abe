//! Records the compiler version and git commit at build time, for host info in every report.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=HARNESS_RUSTC_VERSION={version}");
    if let Ok(o) = Command::new("git").args(["rev-parse", "HEAD"]).output()
        && o.status.success()
    {
        println!(
            "cargo:rustc-env=HARNESS_BUILD_GIT_COMMIT={}",
            String::from_utf8_lossy(&o.stdout).trim()
        );
    }
    // Rebuild when the checked-out commit moves, so the fallback commit is never stale.
    if let Ok(o) = Command::new("git").args(["rev-parse", "--git-dir"]).output() {
        let dir = String::from_utf8_lossy(&o.stdout).trim().to_owned();
        if o.status.success() && !dir.is_empty() {
            println!("cargo:rerun-if-changed={dir}/HEAD");
            println!("cargo:rerun-if-changed={dir}/refs/heads");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
