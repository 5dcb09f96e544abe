//! Runs `examples/freeze_probe` as real child processes: the debug build must panic when a frozen knob
//! changes, the release build (guard compiled out) must keep the frozen value.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

const MESSAGE: &str = "ENGINE_CUDA_GRAPH changed after the runtime config was frozen: frozen \"1\", now \"0\". \
     The config is read once per process; run this phase in a process of its own (harness env matrix)";

/// Builds the probe with its own target dir under cargo's per-package temp dir, so it never waits on the
/// lock of the build that is running these tests.
fn build_probe(release: bool) -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("freeze-probe");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "--quiet", "-p", "engine", "--example", "freeze_probe", "--target-dir"])
        .arg(&target);
    if release {
        cmd.arg("--release");
    }
    let start = Instant::now();
    let status = cmd.status().expect("cargo runs");
    assert!(status.success(), "building freeze_probe (release: {release}) failed");
    eprintln!("built freeze_probe (release: {release}) in {:.1?}", start.elapsed());
    target
        .join(if release { "release" } else { "debug" })
        .join("examples")
        .join(exe("freeze_probe"))
}

fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// The debug probe that `cargo test` built next to this test (`target/debug/examples`), else a fresh build.
fn debug_probe() -> PathBuf {
    let this = std::env::current_exe().expect("test exe path");
    // target/debug/deps/config_freeze-HASH -> target/debug/examples/freeze_probe
    let beside = this
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("examples").join(exe("freeze_probe")));
    match beside {
        // Under `cargo test --release` the probe beside us is a release build, without the guard.
        Some(p) if cfg!(debug_assertions) && p.exists() => p,
        _ => build_probe(false),
    }
}

fn run(probe: &Path) -> Output {
    run_with(probe, "cpu")
}

fn run_with(probe: &Path, ep: &str) -> Output {
    Command::new(probe)
        .env("ENGINE_EP", ep)
        .env_remove("ENGINE_THREADS")
        .env("ENGINE_CUDA_GRAPH", "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("probe runs")
}

#[test]
fn debug_build_panics_naming_the_changed_knob() {
    let out = run(&debug_probe());
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(101), "expected a panic; stdout {stdout} stderr {stderr}");
    assert!(stdout.contains("frozen cuda_graph=true"), "{stdout}");
    assert!(stderr.contains(MESSAGE), "{stderr}");
    assert!(!stdout.contains("after change"), "the second read must not return: {stdout}");
}

#[test]
fn bad_knob_value_panics_naming_variable_value_and_accepted_values() {
    let out = run_with(&debug_probe(), "gpu");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{stderr}");
    assert!(
        stderr.contains("ENGINE_EP=\"gpu\" is not valid: expected `cpu` or `cuda`"),
        "{stderr}"
    );
}

#[test]
fn release_build_keeps_the_frozen_value_without_panicking() {
    let out = run(&build_probe(true));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "stdout {stdout} stderr {stderr}");
    assert!(stdout.contains("after change ENGINE_CUDA_GRAPH=0: cuda_graph=true"), "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
