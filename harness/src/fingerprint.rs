//! The environment fingerprint: what changes a measurement besides the code (CPU model and
//! flags, kernel, rustc, valgrind, allocator, GPU and driver), recorded in every run's host facts
//! so that comparing runs from different environments says so instead of passing silently.

use std::collections::BTreeMap;
use std::process::Command;

/// Fingerprint of this process's environment; a fact that cannot be read is left out.
pub fn collect() -> BTreeMap<String, String> {
    let mut f = BTreeMap::new();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
    };
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            f.insert(k.to_owned(), v);
        }
    };
    put("cpu_model", field("model name"));
    put("cpu_flags", field("flags"));
    put(
        "kernel",
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .ok()
            .map(|s| s.trim().to_owned()),
    );
    put("rustc", Some(env!("HARNESS_RUSTC_VERSION").to_owned()));
    put("valgrind", first_line("valgrind", &["--version"]));
    put("allocator", allocator());
    put(
        "gpu",
        first_line("nvidia-smi", &["--query-gpu=name,driver_version", "--format=csv,noheader"]),
    );
    f
}

/// A preloaded allocator, when one is named in `LD_PRELOAD`, else the C library's malloc with
/// its version (glibc's thresholds and arenas change between versions). A binary's own global
/// allocator cannot be seen from outside.
fn allocator() -> Option<String> {
    let pre = std::env::var("LD_PRELOAD").unwrap_or_default();
    let preloaded = ["jemalloc", "tcmalloc", "mimalloc"].into_iter().find(|a| pre.contains(a));
    preloaded.map(str::to_owned).or_else(libc_malloc)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn libc_malloc() -> Option<String> {
    // SAFETY: returns a pointer to a static NUL-terminated string.
    let v = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    Some(format!("glibc {} malloc", v.to_string_lossy()))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn libc_malloc() -> Option<String> {
    None
}

fn first_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status.success().then(|| text.lines().next().unwrap_or("").trim().to_owned())
}

/// What differs between two fingerprints, one line a fact; a fact only one side recorded does
/// not count (older files lack fingerprints). CPU flags say which flags came and went.
#[cfg(feature = "history")]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub fn differences(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, va) in a {
        let Some(vb) = b.get(k) else { continue };
        if va == vb {
            continue;
        }
        if k == "cpu_flags" {
            let sa: std::collections::BTreeSet<&str> = va.split_whitespace().collect();
            let sb: std::collections::BTreeSet<&str> = vb.split_whitespace().collect();
            let gone: Vec<&str> = sa.difference(&sb).copied().collect();
            let came: Vec<&str> = sb.difference(&sa).copied().collect();
            out.push(format!("cpu_flags: only baseline {gone:?}, only candidate {came:?}"));
        } else {
            out.push(format!("{k}: {va} -> {vb}"));
        }
    }
    out
}

/// A warning naming what differs, or `None` when the fingerprints agree.
#[cfg(feature = "cli")]
pub fn warning(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Option<String> {
    let d = differences(a, b);
    (!d.is_empty()).then(|| {
        format!(
            "the environment fingerprints differ, so a change may come from the environment, not the code: {}",
            d.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn differences_name_what_changed_and_ignore_one_sided_facts() {
        let a = fp(&[("kernel", "6.1"), ("cpu_flags", "sse avx2"), ("rustc", "1.90"), ("gpu", "H100")]);
        let b = fp(&[("kernel", "6.8"), ("cpu_flags", "sse avx512f"), ("rustc", "1.90")]);
        let d = differences(&a, &b);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d.contains(&"kernel: 6.1 -> 6.8".to_owned()));
        assert!(d[0].contains("\"avx2\"") && d[0].contains("\"avx512f\""), "{d:?}");
        assert!(warning(&a, &a).is_none());
        assert!(warning(&a, &b).unwrap().contains("kernel: 6.1 -> 6.8"));
    }

    #[test]
    fn this_host_has_a_fingerprint() {
        let f = collect();
        assert!(f.contains_key("rustc"), "{f:?}");
        if cfg!(all(target_os = "linux", target_env = "gnu")) && std::env::var_os("LD_PRELOAD").is_none() {
            assert!(
                f["allocator"].starts_with("glibc 2."),
                "the C library's malloc, with its version: {f:?}"
            );
        }
    }
}
