//! The interposer library for tests that run detect: `cargo test` does not build a workspace
//! `cdylib` it does not depend on, so build it (a no-op when fresh) beside this test's profile.

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/libharness_interpose.so`, built if needed.
pub fn interpose_lib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf(); // target/<profile>
    let target_dir = profile_dir.parent().unwrap();
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "harness_interpose", "--target-dir"])
        .arg(target_dir);
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("running cargo build -p harness_interpose");
    assert!(status.success(), "cargo build -p harness_interpose: {status}");
    let lib = profile_dir.join("libharness_interpose.so");
    assert!(lib.is_file(), "{} after cargo build", lib.display());
    lib
}

/// The newest test binary `<stem>-<hash>` cargo built next to this one.
pub fn test_binary(stem: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    std::fs::read_dir(deps)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with(&format!("{stem}-")) && p.extension().is_none()
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| panic!("{stem} test binary (alone: cargo test -p harness --test {stem} --no-run)"))
}
