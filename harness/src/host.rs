//! Collecting [`HostInfo`]: CPU, cores, OS, kernel, rustc, git commit, load, GPU and driver, each
//! GPU's clocks and throttle reasons (the bitmask and its names), and any clock lock the run holds.

use std::process::Command;

use crate::model::{GpuState, HostInfo, parse_throttle_mask, throttle_reason_names};

/// What this run is running on. Cheap: reads /proc and runs `git` (and `nvidia-smi` only where
/// an NVIDIA driver is loaded).
pub fn collect() -> HostInfo {
    let (gpus, gpu_driver) = gpus();
    HostInfo {
        hostname: read_trim("/proc/sys/kernel/hostname").unwrap_or_default(),
        boot_id: read_trim("/proc/sys/kernel/random/boot_id"),
        cpu: cpu_model(),
        logical_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        os: os_name(),
        kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        arch: std::env::consts::ARCH.to_owned(),
        rustc: env!("HARNESS_RUSTC_VERSION").to_owned(),
        git_commit: git_commit(),
        // Not embedded any more (it rebuilt harness at every commit); kept for old results.
        build_commit: None,
        load_start: load_average(),
        load_end: None,
        gpus,
        gpu_driver,
        gpu_start: gpu_state(),
        gpu_end: Vec::new(),
        gpu_clock_lock: crate::gpu_clocks::held(),
        fingerprint: crate::fingerprint::collect(),
    }
}

/// Record what changes over a command: the load average and each GPU's state at its end.
pub fn finish(host: &mut HostInfo) {
    host.load_end = load_average();
    host.gpu_end = gpu_state();
}

/// Fields asked of `nvidia-smi --query-gpu`; the throttle field was renamed (event reasons) in
/// newer drivers, so both spellings are tried.
const GPU_FIELDS: [&str; 2] = [
    "index,name,driver_version,clocks.sm,clocks.mem,clocks_event_reasons.active,temperature.gpu,power.draw",
    "index,name,driver_version,clocks.sm,clocks.mem,clocks_throttle_reasons.active,temperature.gpu,power.draw",
];

/// Each GPU's state now; empty without an NVIDIA driver or `nvidia-smi`.
pub fn gpu_state() -> Vec<GpuState> {
    if !std::path::Path::new("/proc/driver/nvidia").exists() {
        return Vec::new();
    }
    let cuda = Command::new("nvidia-smi")
        .args(["-q", "-x"])
        .output()
        .ok()
        .and_then(|o| xml_tag(&String::from_utf8_lossy(&o.stdout), "cuda_version"));
    for fields in GPU_FIELDS {
        let Ok(out) = Command::new("nvidia-smi")
            .args([format!("--query-gpu={fields}").as_str(), "--format=csv,noheader,nounits"])
            .output()
        else {
            return Vec::new();
        };
        if out.status.success() {
            return parse_gpu_csv(&String::from_utf8_lossy(&out.stdout), cuda.as_deref());
        }
    }
    Vec::new()
}

/// The text of the first `<tag>` element.
fn xml_tag(xml: &str, tag: &str) -> Option<String> {
    let start = xml.find(&format!("<{tag}>"))? + tag.len() + 2;
    let end = start + xml[start..].find(&format!("</{tag}>"))?;
    Some(xml[start..end].trim().to_owned())
}

/// One [`GpuState`] per CSV line of [`GPU_FIELDS`] (`[N/A]` and unparsable numbers are `None`).
fn parse_gpu_csv(text: &str, cuda: Option<&str>) -> Vec<GpuState> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if f.len() < 8 {
                return None;
            }
            let num = |s: &str| s.parse::<f64>().ok();
            Some(GpuState {
                index: f[0].parse().ok()?,
                name: f[1].to_owned(),
                driver: f[2].to_owned(),
                cuda_version: cuda.map(str::to_owned),
                sm_clock_mhz: num(f[3]),
                mem_clock_mhz: num(f[4]),
                throttle_reasons: f[5].starts_with("0x").then(|| f[5].to_owned()),
                throttle_reason_names: parse_throttle_mask(f[5]).map(throttle_reason_names).unwrap_or_default(),
                temperature_c: num(f[6]),
                power_w: num(f[7]),
            })
        })
        .collect()
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

/// Env vars CI sets to the commit it checked out, read before asking git: a run in a tarball or
/// a container without `.git` still records its commit. `HARNESS_COMMIT` overrides.
const COMMIT_VARS: [&str; 4] = ["HARNESS_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT"];

/// The commit this run measured, read at run time (never compiled in, see build.rs).
fn git_commit() -> Option<String> {
    commit_from_env(|k| std::env::var(k).ok()).or_else(commit_from_git)
}

fn commit_from_env(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    COMMIT_VARS
        .iter()
        .filter_map(|k| var(k))
        .map(|v| v.trim().to_owned())
        .find(|v| !v.is_empty())
}

fn commit_from_git() -> Option<String> {
    let out = Command::new("git").args(["rev-parse", "HEAD"]).output().ok()?;
    if !out.status.success() {
        return None;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commit_is_read_at_run_time_ci_vars_first() {
        fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
            move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
        }
        // HARNESS_COMMIT wins over what CI set; an empty one is ignored.
        let both = [("GITHUB_SHA", "abc"), ("HARNESS_COMMIT", "def")];
        assert_eq!(commit_from_env(env(&both)).as_deref(), Some("def"));
        let empty = [("HARNESS_COMMIT", " "), ("GITHUB_SHA", "abc\n")];
        assert_eq!(commit_from_env(env(&empty)).as_deref(), Some("abc"));
        assert_eq!(commit_from_env(env(&[])), None);
        // Nothing is compiled in: a binary reports no build commit, whatever checkout built it.
        assert_eq!(collect().build_commit, None);
    }

    #[test]
    fn gpu_csv_and_cuda_version_parse_with_missing_values() {
        let csv = "0, NVIDIA H200, 570.86.15, 1980, 2619, 0x0000000000000004, 34, 75.52\n1, NVIDIA H200, 570.86.15, [N/A], 2619, [N/A], 35, [N/A]\n";
        let xml = "<nvidia_smi_log><driver_version>570.86.15</driver_version><cuda_version>12.8</cuda_version></nvidia_smi_log>";
        let g = parse_gpu_csv(csv, xml_tag(xml, "cuda_version").as_deref());
        assert_eq!(g.len(), 2);
        assert_eq!(
            (g[0].name.as_str(), g[0].sm_clock_mhz, g[0].power_w),
            ("NVIDIA H200", Some(1980.0), Some(75.52))
        );
        assert_eq!(g[0].throttle_reasons.as_deref(), Some("0x0000000000000004"));
        assert_eq!(g[0].throttle_reason_names, ["sw_power_cap"]);
        assert!(g[1].throttle_reason_names.is_empty());
        assert_eq!(g[1].cuda_version.as_deref(), Some("12.8"));
        assert_eq!((g[1].sm_clock_mhz, g[1].throttle_reasons.as_deref()), (None, None));
        assert!(parse_gpu_csv("garbage\n", None).is_empty());
    }
}
