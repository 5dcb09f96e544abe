//! `HostInfo`: what a run ran on, recorded in every results file.

use serde::{Deserialize, Serialize};

/// The machine, toolchain and source a run ran on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// Host name.
    pub hostname: String,
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
    /// Git commit of the workspace (with `-dirty` when the tree had changes), if known.
    pub git_commit: Option<String>,
    /// 1-minute load average when the run started.
    pub load_start: Option<f64>,
    /// 1-minute load average when the run ended.
    pub load_end: Option<f64>,
    /// GPU names, if a GPU driver is present.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<String>,
    /// GPU driver version, if present.
    pub gpu_driver: Option<String>,
}
