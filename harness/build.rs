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
    // Rebuild when the checked-out commit moves, so the fallback commit is never stale: watch
    // HEAD and the branch it names (not all of refs/heads, which every commit on any branch of a
    // shared repository touches). In a linked worktree HEAD is in its own git dir and branches
    // in the common one; a path that does not exist would make cargo rerun this script (and
    // rebuild harness) every time, so only existing paths are named.
    let git_path = |flag: &str| {
        Command::new("git")
            .args(["rev-parse", "--path-format=absolute", flag])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
    };
    let head = git_path("--git-dir").map(|d| d.join("HEAD"));
    let branch = head.as_ref().and_then(|h| {
        let text = std::fs::read_to_string(h).ok()?;
        let name = text.trim().strip_prefix("ref: ")?.to_owned();
        let common = git_path("--git-common-dir")?;
        let loose = common.join(&name);
        Some(if loose.exists() { loose } else { common.join("packed-refs") })
    });
    for path in [head, branch].into_iter().flatten().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
}
