//! Records the compiler version at build time, for host info in every report, and compiles the
//! allocation recorder (`src/allocs/preload/`) that `--allocs` preloads into counting processes.
//!
//! The git commit is deliberately not embedded: a value that moves with every checkout would
//! rebuild harness, and every crate above it, at every commit a `bisect` or `--base-ref` builds.
//! The commit a run measured is read at run time instead (`host::git_commit`).
//!
//! The recorder is one file of `core`-only Rust, compiled with the same rustc into a 14 KB
//! cdylib (about 0.3 s) that harness embeds: `--allocs` then works in any crate with no setup,
//! without cargo building a workspace cdylib. Where it cannot be compiled (not Linux, a linker
//! that refuses) harness embeds nothing and says why at run time; the build never fails for it.

use std::path::PathBuf;
use std::process::Command;

const RECORDER_SOURCES: [&str; 2] = ["src/allocs/preload/cdylib.rs", "src/allocs/preload/recorder.rs"];

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=HARNESS_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    for s in RECORDER_SOURCES {
        println!("cargo:rerun-if-changed={s}");
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("libharness_allocs.so");
    let why_not = match build_recorder(&rustc, &out) {
        Ok(()) => String::new(),
        Err(e) => {
            println!("cargo:warning=harness: no allocation recorder embedded (--allocs needs HARNESS_INTERPOSE_LIB): {e}");
            let _ = std::fs::write(&out, b"");
            e
        }
    };
    println!("cargo:rustc-env=HARNESS_RECORDER_WHY_NOT={}", why_not.replace('\n', " "));
}

fn build_recorder(rustc: &str, out: &std::path::Path) -> Result<(), String> {
    let target = std::env::var("TARGET").unwrap_or_default();
    if !target.contains("linux") {
        return Err(format!("target {target} is not Linux (the recorder is an LD_PRELOAD library)"));
    }
    let mut cmd = Command::new(rustc);
    cmd.args([
        "--crate-type=cdylib",
        "--crate-name=harness_allocs",
        "--edition=2024",
        "-Copt-level=2",
        "-Cpanic=abort",
        "-Cstrip=debuginfo",
        "--target",
        &target,
        "-o",
    ])
    .arg(out)
    .arg(RECORDER_SOURCES[0]);
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        cmd.arg(format!("-Clinker={linker}"));
    }
    let o = cmd.output().map_err(|e| format!("running {rustc}: {e}"))?;
    if !o.status.success() {
        return Err(format!("{rustc} failed: {}", String::from_utf8_lossy(&o.stderr).trim()));
    }
    Ok(())
}
