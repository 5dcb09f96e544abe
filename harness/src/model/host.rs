//! `HostInfo`: what a run ran on, recorded in every results file.

use serde::{Deserialize, Serialize};

/// The machine, toolchain and source a run ran on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Host name.
    pub hostname: String,
    /// This boot of the host (`/proc/sys/kernel/random/boot_id`): a full speed remembered from
    /// an earlier run holds within one boot only (`run/speed_memory.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id: Option<String>,
    /// CPU model name.
    pub cpu: String,
    /// Logical cores available to this process.
    pub logical_cores: usize,
    /// OS name and version.
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// Architecture, e.g. `x86_64`.
    pub arch: String,
    /// `rustc -V` of the compiler that built the harness.
    pub rustc: String,
    /// Commit the run measured, read at run time: `HARNESS_COMMIT` or a CI variable
    /// (`GITHUB_SHA`, ...), else git in the working directory (`-dirty` when it had changes).
    pub git_commit: Option<String>,
    /// Commit the harness was compiled from, in results written before issue 26; no longer
    /// recorded (embedding it rebuilt harness at every commit). Kept so old results still read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_commit: Option<String>,
    /// 1-minute load average when the run started.
    pub load_start: Option<f64>,
    /// 1-minute load average when the run ended.
    pub load_end: Option<f64>,
    /// GPU names, if a GPU driver is present.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<String>,
    /// GPU driver version, if present.
    pub gpu_driver: Option<String>,
    /// Each GPU's state when the command started (NVIDIA driver loaded only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_start: Vec<GpuState>,
    /// Each GPU's state when the command ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_end: Vec<GpuState>,
    /// The SM clock each GPU was held at for the run (`--lock-gpu-clocks`); empty when clocks
    /// were left free.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_clock_lock: Vec<super::LockedClocks>,
    /// What changes a measurement besides the code (`crate::fingerprint`): name -> value.
    /// Empty in files written before it existed.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub fingerprint: std::collections::BTreeMap<String, String>,
}

/// One GPU's identity and clocks at one moment (`nvidia-smi --query-gpu`): a clock or throttle
/// reason that differs between start and end says the runs did not all see the same GPU.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuState {
    /// Index as the driver numbers it.
    pub index: u32,
    /// Product name.
    pub name: String,
    /// Driver version.
    pub driver: String,
    /// The highest CUDA version the driver supports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_version: Option<String>,
    /// Current SM clock, MHz.
    pub sm_clock_mhz: Option<f64>,
    /// Current memory clock, MHz.
    pub mem_clock_mhz: Option<f64>,
    /// Active clock throttle (event) reasons, as the driver's bitmask (e.g. `0x0000000000000004`).
    pub throttle_reasons: Option<String>,
    /// The same reasons by name (`gpu_idle`, `sw_power_cap`, ...; see `model::THROTTLE_REASONS`);
    /// empty when none is active or the mask is unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle_reason_names: Vec<String>,
    /// Temperature, degrees Celsius.
    pub temperature_c: Option<f64>,
    /// Power draw, watts.
    pub power_w: Option<f64>,
}
