//! GPU records: [`GpuSettings`] (the sample rules a child applies), [`LockedClocks`] (a clock lock
//! the run held), the names of NVML's clock event ("throttle") reason bits, and [`ThrottleNote`]s
//! (how many GPU samples a scenario discarded, and whether that was most of them).

use serde::{Deserialize, Serialize};

use super::ScenarioSummary;

/// How a GPU measurement picks its samples inside one process (see `docs/statistics.md`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GpuSettings {
    /// Samples whose SM clock ran below this fraction of the device's default SM clock are
    /// discarded and counted (nvbench's default, 0.75); 0 keeps every sample.
    pub throttle_threshold: f64,
    /// A series stops once the relative standard error of its kept samples' mean is at most this
    /// (0.005: 0.5%), after the minimum samples and time.
    pub max_noise: f64,
    /// Device time the kept samples of a series must add up to before it may stop, seconds.
    pub min_time_s: f64,
    /// Wall time after which a series stops whatever its noise, seconds.
    pub timeout_s: f64,
}

impl Default for GpuSettings {
    fn default() -> Self {
        GpuSettings {
            throttle_threshold: 0.75,
            max_noise: 0.005,
            min_time_s: 0.02,
            timeout_s: 5.0,
        }
    }
}

/// The SM clock a run locked the GPU to (`--lock-gpu-clocks`), recorded in the run's host facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockedClocks {
    /// `base` or `max`, as asked for.
    pub mode: String,
    /// The GPU (driver index) that was locked.
    pub gpu: u32,
    /// The SM clock both ends of the lock were set to, MHz.
    pub sm_clock_mhz: f64,
}

/// NVML's clock event reason bits (`nvmlClocksEventReason*`, formerly `nvmlClocksThrottleReason*`)
/// and the names results and reports use for them.
pub const THROTTLE_REASONS: [(u64, &str); 9] = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
];

/// The names of the bits set in `mask`, in bit order; a set bit NVML does not define yet reads
/// `unknown_0x...`. An empty list means no reason: the clocks run as high as they may.
pub fn throttle_reason_names(mask: u64) -> Vec<String> {
    let known: u64 = THROTTLE_REASONS.iter().map(|(bit, _)| bit).sum();
    let mut names: Vec<String> = THROTTLE_REASONS
        .iter()
        .filter(|(bit, _)| mask & bit != 0)
        .map(|(_, name)| (*name).to_owned())
        .collect();
    if mask & !known != 0 {
        names.push(format!("unknown_{:#x}", mask & !known));
    }
    names
}

/// The mask in `nvidia-smi`'s spelling (`0x0000000000000004`); `None` for anything else (`[N/A]`).
pub fn parse_throttle_mask(text: &str) -> Option<u64> {
    let hex = text.trim().strip_prefix("0x")?;
    u64::from_str_radix(hex, 16).ok()
}

/// A process's share above which a series counts as mostly throttled.
pub const MOSTLY_THROTTLED: f64 = 0.5;

/// One series of one GPU scenario whose samples were discarded for running below the threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrottleNote {
    /// The scenario.
    pub scenario: String,
    /// `cold` or `hot`.
    pub series: &'static str,
    /// Samples discarded, over all processes.
    pub discarded: f64,
    /// Samples taken (kept and discarded), over all processes.
    pub samples: f64,
    /// The threshold the samples were held to, MHz (when recorded).
    pub threshold_mhz: Option<f64>,
}

impl ThrottleNote {
    /// Discarded over taken.
    pub fn share(&self) -> f64 {
        if self.samples > 0.0 { self.discarded / self.samples } else { 0.0 }
    }

    /// More than [`MOSTLY_THROTTLED`] of the samples were discarded: a warning, not a detail.
    pub fn is_warning(&self) -> bool {
        self.share() > MOSTLY_THROTTLED
    }

    /// One line for the terminal and the report.
    pub fn text(&self) -> String {
        let threshold = self
            .threshold_mhz
            .map_or("the throttle threshold".to_owned(), |t| format!("{t:.0} MHz"));
        let lead = if self.is_warning() { "warning: mostly throttled: " } else { "" };
        format!(
            "{lead}{}: {} of {} {} samples ({:.0}%) ran below {threshold} (--throttle-threshold) and were discarded",
            self.scenario,
            self.discarded,
            self.samples,
            self.series,
            self.share() * 100.0
        )
    }
}

/// A note for every series of `summaries` that discarded at least one sample, in name order,
/// cold before hot. Reads the `cold_samples` / `samples`, `*discarded_samples` and
/// `sm_clock_threshold_mhz` metrics the GPU timing path records.
pub fn throttle_notes(summaries: &[ScenarioSummary]) -> Vec<ThrottleNote> {
    let mut notes = Vec::new();
    for s in summaries {
        let total = |name: &str| -> Option<f64> {
            let m = s.metrics.iter().find(|m| m.metric == name)?;
            Some(m.values.iter().map(|(_, v)| v).sum())
        };
        let threshold_mhz = s
            .metrics
            .iter()
            .find(|m| m.metric == "sm_clock_threshold_mhz")
            .map(|m| m.stats.center_value);
        for (series, prefix) in [("cold", "cold_"), ("hot", "")] {
            let (Some(discarded), Some(samples)) = (total(&format!("{prefix}discarded_samples")), total(&format!("{prefix}samples")))
            else {
                continue;
            };
            if discarded > 0.0 {
                notes.push(ThrottleNote {
                    scenario: s.scenario.clone(),
                    series,
                    discarded,
                    samples,
                    threshold_mhz,
                });
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_nvml_bit_has_its_name_and_unknown_bits_are_kept() {
        assert!(throttle_reason_names(0).is_empty());
        assert_eq!(throttle_reason_names(0x1), ["gpu_idle"]);
        assert_eq!(throttle_reason_names(0x4 | 0x40), ["sw_power_cap", "hw_thermal_slowdown"]);
        assert_eq!(throttle_reason_names(0x1ff).len(), 9);
        assert_eq!(throttle_reason_names(0x2 | 0x400), ["applications_clocks_setting", "unknown_0x400"]);
        // Every bit named once, each a distinct power of two.
        let bits: u64 = THROTTLE_REASONS.iter().map(|(b, _)| b).sum();
        assert_eq!(bits, 0x1ff);
        assert!(THROTTLE_REASONS.iter().all(|(b, _)| b.is_power_of_two()));
    }

    #[test]
    fn nvidia_smi_masks_parse_and_anything_else_does_not() {
        assert_eq!(parse_throttle_mask("0x0000000000000004"), Some(4));
        assert_eq!(parse_throttle_mask(" 0x0000000000000101 "), Some(0x101));
        assert_eq!(parse_throttle_mask("[N/A]"), None);
        assert_eq!(parse_throttle_mask("0xzz"), None);
    }

    #[test]
    fn settings_missing_from_an_older_request_take_the_defaults() {
        let s: GpuSettings = serde_json::from_str(r#"{"max_noise": 0.01}"#).unwrap();
        assert_eq!(s.max_noise, 0.01);
        assert_eq!(s.throttle_threshold, 0.75);
    }
}
