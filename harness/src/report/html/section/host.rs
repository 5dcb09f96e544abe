//! The host: machine, OS, toolchain, git commit, load and GPUs (clocks, throttle reasons by name,
//! a clock lock) of whichever section has them.

use std::fmt::Write;

use super::super::escape::escape as e;
use crate::model::HostInfo;
use crate::report::{clock_lock_line, gpu_state_line};

/// The `host` section.
pub(crate) fn host(out: &mut String, h: &HostInfo) {
    out.push_str("<section id=\"host\"><h2>Host</h2><dl class=\"facts\">");
    let load = |l: Option<f64>| l.map_or("?".into(), |l| format!("{l:.2}"));
    let rows = [
        ("host", h.hostname.clone()),
        ("cpu", format!("{} ({} logical cores)", h.cpu, h.logical_cores)),
        ("os", format!("{} {} {}", h.os, h.kernel, h.arch)),
        ("rustc", h.rustc.clone()),
        ("git", h.git_commit.clone().unwrap_or_else(|| "unknown".into())),
        // Only older results carry a build commit (no longer compiled in): "n/a" rather than
        // "unknown", which would read as a lookup that failed.
        ("built from", h.build_commit.clone().unwrap_or_else(|| "n/a (not recorded)".into())),
        (
            "load (1 min)",
            format!("{} at start, {} at end", load(h.load_start), load(h.load_end)),
        ),
        (
            "gpu",
            if h.gpus.is_empty() {
                "none".into()
            } else {
                format!("{} (driver {})", h.gpus.join(", "), h.gpu_driver.as_deref().unwrap_or("?"))
            },
        ),
    ];
    for (k, v) in rows {
        let _ = write!(out, "<dt>{k}</dt><dd>{}</dd>", e(&v));
    }
    for (when, states) in [("gpu at start", &h.gpu_start), ("gpu at end", &h.gpu_end)] {
        for g in states {
            let _ = write!(out, "<dt>{when}</dt><dd>{}</dd>", e(&gpu_state_line(g)));
        }
    }
    if let Some(lock) = clock_lock_line(h) {
        let _ = write!(out, "<dt>gpu clocks</dt><dd>{}</dd>", e(&lock));
    }
    out.push_str("</dl></section>");
}
