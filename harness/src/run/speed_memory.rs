//! The full speed a run met, remembered for later runs on the same host and boot.
//!
//! A run judges each process's speed probe against the run's own fastest (`model/slowed.rs`),
//! which fails where the whole run met a slowed machine: its fastest is then a slowed one and
//! nothing is flagged. A short bench binary (3 s) fits inside one slowed stretch of this VM. So a
//! run that met full speed leaves it in a file beside its output directory, and a later run whose
//! fastest stays over `SLOWED_FACTOR` times it is judged against it instead.
//!
//! The file is the output directory's parent's `.harness-full-speed.json` (`reports/` for the
//! default output, shared by the bench binaries of one `cargo bench`), or `HARNESS_SPEED_MEMORY`
//! (a path, or `off`). It holds for one boot of one CPU model, and for [`MAX_AGE_S`] after a run
//! last met it: a VM moved to a slower host without a reboot stops being judged against the old
//! one within hours rather than never.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::clock;
use crate::model::{HostInfo, Outcome, RememberedSpeed, RunRecord, SLOWED_FACTOR, fastest_probe};

/// The environment variable that moves the file (a path) or turns the memory off (`off`).
pub const ENV: &str = "HARNESS_SPEED_MEMORY";
/// How to turn it off, for messages.
pub const OFF_HINT: &str = "HARNESS_SPEED_MEMORY=off";
/// The file's name beside a run's output directory.
pub const FILE_NAME: &str = ".harness-full-speed.json";
/// How long a remembered speed holds after a run last met it.
pub const MAX_AGE_S: u64 = 6 * 3600;
/// Processes at a run's fastest before the run may set the memory: one fast moment is not the
/// machine's full speed.
const MIN_AT_FULL_SPEED: usize = 5;

/// The memory file for a run writing to `out`: `HARNESS_SPEED_MEMORY`, else beside `out`.
pub fn location(out: &Path) -> Option<PathBuf> {
    location_given(out, std::env::var_os(ENV))
}

fn location_given(out: &Path, env: Option<std::ffi::OsString>) -> Option<PathBuf> {
    match env {
        Some(v) if v == "off" => None,
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => {
            let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            Some(parent.join(FILE_NAME))
        }
    }
}

fn now_s() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The remembered speed in `file` if it holds for `host` now: same boot and CPU, confirmed
/// within [`MAX_AGE_S`]. A missing or unreadable file is no memory.
pub fn read(file: &Path, host: &HostInfo) -> Option<RememberedSpeed> {
    let m: RememberedSpeed = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    holds(&m, host, now_s()).then_some(m)
}

fn holds(m: &RememberedSpeed, host: &HostInfo, now: u64) -> bool {
    host.boot_id.as_deref() == Some(m.boot_id.as_str())
        && host.cpu == m.cpu
        && now.saturating_sub(m.confirmed_unix_s) <= MAX_AGE_S
        && m.probe_ns.is_finite()
        && m.probe_ns > 0.0
}

/// What this run leaves: its fastest, where at least [`MIN_AT_FULL_SPEED`] processes met it and it
/// is within `SLOWED_FACTOR` of `prior` (the lower of the two is kept); `None` where the run
/// never met full speed (the memory stays as it was) or the host has no boot id.
pub fn next(records: &[RunRecord], prior: Option<&RememberedSpeed>, host: &HostInfo, by: &Path, now: u64) -> Option<RememberedSpeed> {
    let boot_id = host.boot_id.clone()?;
    let own = fastest_probe(records)?;
    let at_full = records
        .iter()
        .filter(|r| r.outcome == Outcome::Passed)
        .filter_map(RunRecord::speed_probe)
        .filter(|[s, e]| s.min(*e) <= SLOWED_FACTOR * own)
        .count();
    if at_full < MIN_AT_FULL_SPEED {
        return None;
    }
    let prior = prior.filter(|p| holds(p, host, now)).map(|p| p.probe_ns);
    if prior.is_some_and(|p| own > SLOWED_FACTOR * p) {
        return None;
    }
    Some(RememberedSpeed {
        probe_ns: prior.map_or(own, |p| p.min(own)),
        boot_id,
        cpu: host.cpu.clone(),
        confirmed_at: clock::rfc3339(UNIX_EPOCH + std::time::Duration::from_secs(now)),
        confirmed_unix_s: now,
        by: by.display().to_string(),
    })
}

/// Leave this run's full speed in `file` (written whole, then renamed: a run reading it meanwhile
/// sees the old file or the new one). Errors are returned for the caller to name, never fatal:
/// the memory only adds flags to later runs.
pub fn remember(file: &Path, records: &[RunRecord], prior: Option<&RememberedSpeed>, host: &HostInfo, by: &Path) -> std::io::Result<()> {
    let Some(m) = next(records, prior, host, by, now_s()) else {
        return Ok(());
    };
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_vec_pretty(&m).map_err(std::io::Error::other)?)?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
#[path = "speed_memory_tests.rs"]
mod tests;
