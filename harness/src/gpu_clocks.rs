//! `--lock-gpu-clocks base|max`: hold every GPU's SM clock at one value for a command, through
//! `nvidia-smi -lgc`, and give it back (`-rgc`) when the [`ClockLock`] guard drops. [`held`] is
//! what `host::collect` records in the run's meta.
//!
//! Locking changes a device setting for every process on the machine, so it needs root and is
//! refused, before anything runs, with the reason (exit 2) when this process is not root, when
//! there is no `nvidia-smi`, or when the driver declines. `base` is the default applications
//! clock (`clocks.default_applications.graphics`), `max` the highest SM clock (`clocks.max.sm`).
//! A command killed by a signal cannot reset the clocks: `nvidia-smi -rgc` does it by hand.

use std::process::Command;
use std::sync::Mutex;

use crate::errors::Error;
use crate::model::LockedClocks;

/// Which clock to lock to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LockMode {
    /// The default applications (base) clock.
    Base,
    /// The highest SM clock.
    Max,
}
crate::cli::builder::value_enum!(LockMode {
    Base => "base", "The default applications (base) clock",
    Max => "max", "The highest SM clock",
});

impl LockMode {
    fn name(self) -> &'static str {
        match self {
            LockMode::Base => "base",
            LockMode::Max => "max",
        }
    }
}

static HELD: Mutex<Vec<LockedClocks>> = Mutex::new(Vec::new());

/// The locks this process holds now (empty when none).
pub(crate) fn held() -> Vec<LockedClocks> {
    HELD.lock().map(|h| h.clone()).unwrap_or_default()
}

/// Holds the locks; dropping it resets every locked GPU's clocks.
#[derive(Debug)]
pub(crate) struct ClockLock {
    gpus: Vec<u32>,
}

impl Drop for ClockLock {
    fn drop(&mut self) {
        for gpu in &self.gpus {
            let reset = Command::new("nvidia-smi").args(["-i", &gpu.to_string(), "-rgc"]).output();
            if !reset.is_ok_and(|o| o.status.success()) {
                eprintln!("warning: could not reset GPU {gpu}'s clocks; run `nvidia-smi -i {gpu} -rgc`");
            }
        }
        if let Ok(mut h) = HELD.lock() {
            h.clear();
        }
    }
}

fn refuse(mode: LockMode, reason: impl Into<String>) -> Error {
    Error::InvalidFlag {
        flag: "--lock-gpu-clocks",
        value: mode.name().to_owned(),
        reason: reason.into(),
    }
}

/// Locks every GPU to `mode`'s clock, or says why it will not.
pub(crate) fn lock(mode: LockMode) -> Result<ClockLock, Error> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    permitted(unsafe { libc::geteuid() }).map_err(|r| refuse(mode, r))?;
    let out = Command::new("nvidia-smi")
        .args([
            "--query-gpu=index,clocks.default_applications.graphics,clocks.max.sm",
            "--format=csv,noheader,nounits",
        ])
        .output()
        .map_err(|e| refuse(mode, format!("no NVIDIA GPU to lock: nvidia-smi could not be run ({e})")))?;
    if !out.status.success() {
        return Err(refuse(
            mode,
            format!("nvidia-smi failed: {}", String::from_utf8_lossy(&out.stderr).trim()),
        ));
    }
    let targets = lock_targets(mode, &String::from_utf8_lossy(&out.stdout)).map_err(|r| refuse(mode, r))?;
    let mut guard = ClockLock { gpus: Vec::new() };
    for (gpu, mhz) in targets {
        let clock = format!("{mhz:.0},{mhz:.0}");
        let set = Command::new("nvidia-smi")
            .args(["-i", &gpu.to_string(), "-lgc", &clock])
            .output()
            .map_err(|e| refuse(mode, format!("nvidia-smi -lgc could not be run ({e})")))?;
        if !set.status.success() {
            // `guard` drops here and resets the GPUs already locked.
            let said = format!("{}{}", String::from_utf8_lossy(&set.stdout), String::from_utf8_lossy(&set.stderr));
            return Err(refuse(
                mode,
                format!("the driver declined to lock GPU {gpu} at {clock} MHz: {}", said.trim()),
            ));
        }
        guard.gpus.push(gpu);
        if let Ok(mut h) = HELD.lock() {
            h.push(LockedClocks {
                mode: mode.name().to_owned(),
                gpu,
                sm_clock_mhz: mhz,
            });
        }
    }
    Ok(guard)
}

/// Only root may change a clock that every process on the machine runs at.
fn permitted(euid: u32) -> Result<(), String> {
    if euid == 0 {
        Ok(())
    } else {
        Err(format!(
            "locking GPU clocks needs root (it changes the clock for every process on this machine); this process runs as uid {euid}. \
             Run without --lock-gpu-clocks, or as root"
        ))
    }
}

/// `(gpu, MHz)` per line of `index, default applications clock, max SM clock`.
fn lock_targets(mode: LockMode, csv: &str) -> Result<Vec<(u32, f64)>, String> {
    let mut targets = Vec::new();
    for line in csv.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let (Some(gpu), Some(base), Some(max)) = (
            f.first().and_then(|v| v.parse::<u32>().ok()),
            f.get(1).and_then(|v| v.parse::<f64>().ok()),
            f.get(2).and_then(|v| v.parse::<f64>().ok()),
        ) else {
            return Err(format!("nvidia-smi gave no clocks to lock to: {line:?}"));
        };
        targets.push((gpu, if mode == LockMode::Base { base } else { max }));
    }
    if targets.is_empty() {
        return Err("nvidia-smi lists no GPU".to_owned());
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_other_than_root_is_refused_with_the_reason() {
        assert!(permitted(0).is_ok());
        let why = permitted(1000).unwrap_err();
        assert!(why.contains("needs root") && why.contains("uid 1000"), "{why}");
        let err = refuse(LockMode::Max, why).to_string();
        assert!(err.contains("--lock-gpu-clocks") && err.contains("\"max\""), "{err}");
    }

    #[test]
    fn base_and_max_read_their_own_column() {
        let csv = "0, 1755, 1980\n1, 1755, 1980\n";
        assert_eq!(lock_targets(LockMode::Base, csv).unwrap(), [(0, 1755.0), (1, 1755.0)]);
        assert_eq!(lock_targets(LockMode::Max, csv).unwrap(), [(0, 1980.0), (1, 1980.0)]);
        let na = lock_targets(LockMode::Max, "0, [N/A], [N/A]\n").unwrap_err();
        assert!(na.contains("no clocks to lock to") && na.contains("[N/A]"), "{na}");
        assert!(lock_targets(LockMode::Base, "\n").is_err());
    }

    #[test]
    fn nothing_is_recorded_as_held_without_a_lock() {
        assert!(held().is_empty());
    }
}
