//! Collecting [`HostInfo`]: CPU, cores, OS, kernel, rustc, git commit, load, GPU and driver.

use std::process::Command;

use crate::model::HostInfo;

/// What this run is running on. Cheap: reads /proc and runs `git` (and `nvidia-smi` only where
/// an NVIDIA driver is loaded).
pub fn collect() -> HostInfo {
    let (gpus, gpu_driver) = gpus();
    HostInfo {
        hostname: read_trim("/proc/sys/kernel/hostname").unwrap_or_default(),
        cpu: cpu_model(),
        logical_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        os: os_name(),
        kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        arch: std::env::consts::ARCH.to_owned(),
        rustc: env!("HARNESS_RUSTC_VERSION").to_owned(),
        git_commit: git_commit(),
        load_start: load_average(),
        load_end: None,
        gpus,
        gpu_driver,
    }
}

/// The 1-minute load average, from /proc/loadavg.
pub fn load_average() -> Option<f64> {
    read_trim("/proc/loadavg")?.split_whitespace().next()?.parse().ok()
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_owned())
}

fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned())
}

fn os_name() -> String {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_owned())
        .unwrap_or_else(|| std::env::consts::OS.to_owned())
}

fn git_commit() -> Option<String> {
    let out = Command::new("git").args(["rev-parse", "HEAD"]).output().ok()?;
    if !out.status.success() {
        return option_env!("HARNESS_BUILD_GIT_COMMIT").map(|c| format!("{c} (at build)"));
    }
    let commit = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    Some(if dirty { format!("{commit}-dirty") } else { commit })
}

fn gpus() -> (Vec<String>, Option<String>) {
    if !std::path::Path::new("/proc/driver/nvidia").exists() {
        return (Vec::new(), None);
    }
    let Ok(out) = Command::new("nvidia-smi")
        .args(["--query-gpu=name,driver_version", "--format=csv,noheader"])
        .output()
    else {
        return (Vec::new(), None);
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut names = Vec::new();
    let mut driver = None;
    for line in text.lines() {
        if let Some((name, drv)) = line.split_once(',') {
            names.push(name.trim().to_owned());
            driver = Some(drv.trim().to_owned());
        }
    }
    (names, driver)
}
