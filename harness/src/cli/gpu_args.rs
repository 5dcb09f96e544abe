//! The GPU flags of `run`, `compare` and `calibrate` (clap) and their validation into
//! [`GpuSettings`] and an optional clock lock.

use std::time::Duration;

use super::builder::{builder_args, defaulted, group, one, value};
use super::options::invalid;
use super::values::{fraction, positive_fraction, secs};
use crate::errors::Error;
use crate::gpu_clocks::{ClockLock, LockMode};
use crate::model::GpuSettings;

/// How GPU measurements (`Bencher::iter_gpu`) pick their samples; see docs/gpu.md. Flags and
/// help: [`GpuArgs::augment`].
#[derive(Debug, Clone)]
pub struct GpuArgs {
    /// `--throttle-threshold PCT`, as a fraction.
    pub throttle_threshold: f64,
    /// `--max-noise PCT`, as a fraction.
    pub max_noise: f64,
    /// `--gpu-min-time SECS`.
    pub gpu_min_time: Duration,
    /// `--gpu-timeout SECS`.
    pub gpu_timeout: Duration,
    /// `--lock-gpu-clocks CLOCK`.
    pub lock_gpu_clocks: Option<LockMode>,
}
builder_args!(GpuArgs, "GpuArgs");

impl GpuArgs {
    pub(super) fn augment(cmd: clap::Command) -> clap::Command {
        let args = [
            value(
                "throttle_threshold",
                "throttle-threshold",
                "PCT",
                fraction,
                "Discard GPU samples whose SM clock ran below this percentage of the device's default SM \
                 clock, and count them (0 keeps every sample)",
            )
            .default_value("75"),
            value(
                "max_noise",
                "max-noise",
                "PCT",
                positive_fraction,
                "Stop a GPU series once the relative standard error of its mean is within this percentage \
                 (after --iterations kept samples and --gpu-min-time)",
            )
            .default_value("0.5"),
            value(
                "gpu_min_time",
                "gpu-min-time",
                "SECS",
                secs,
                "Device time of kept samples a GPU series gathers before it may stop, seconds",
            )
            .default_value("0.02"),
            value(
                "gpu_timeout",
                "gpu-timeout",
                "SECS",
                secs,
                "Wall time after which a GPU series stops whatever its noise, seconds",
            )
            .default_value("5"),
            value(
                "lock_gpu_clocks",
                "lock-gpu-clocks",
                "CLOCK",
                clap::value_parser!(LockMode),
                "Lock every GPU's SM clock for the command to its base or max clock (nvidia-smi -lgc; needs \
                 root, refused otherwise), reset at the end, recorded in the results' host facts",
            ),
        ];
        group(cmd, "GpuArgs", args)
    }

    pub(super) fn from_matches(m: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(GpuArgs {
            throttle_threshold: defaulted(m, "throttle_threshold")?,
            max_noise: defaulted(m, "max_noise")?,
            gpu_min_time: defaulted(m, "gpu_min_time")?,
            gpu_timeout: defaulted(m, "gpu_timeout")?,
            lock_gpu_clocks: one(m, "lock_gpu_clocks"),
        })
    }

    /// The validated sample rules.
    pub(crate) fn settings(&self) -> Result<GpuSettings, Error> {
        if self.gpu_min_time > self.gpu_timeout {
            return Err(invalid(
                "--gpu-min-time",
                &format!("{}", self.gpu_min_time.as_secs_f64()),
                format!("is longer than --gpu-timeout {}", self.gpu_timeout.as_secs_f64()),
            ));
        }
        Ok(GpuSettings {
            throttle_threshold: self.throttle_threshold,
            max_noise: self.max_noise,
            min_time_s: self.gpu_min_time.as_secs_f64(),
            timeout_s: self.gpu_timeout.as_secs_f64(),
        })
    }

    /// Takes the clock lock asked for, if any (held until the returned guard drops), or refuses.
    pub(crate) fn lock(&self) -> Result<Option<ClockLock>, Error> {
        self.lock_gpu_clocks.map(crate::gpu_clocks::lock).transpose()
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        gpu: GpuArgs,
    }

    fn parse(args: &[&str]) -> Result<GpuSettings, String> {
        let cli = Cli::try_parse_from(std::iter::once("h").chain(args.iter().copied())).map_err(|e| e.to_string())?;
        cli.gpu.settings().map_err(|e| e.to_string())
    }

    #[test]
    fn the_flag_defaults_are_the_settings_defaults() {
        assert_eq!(parse(&[]).unwrap(), GpuSettings::default());
    }

    #[test]
    fn percentages_become_fractions_and_bad_values_name_the_flag() {
        let s = parse(&["--throttle-threshold", "90", "--max-noise", "1%", "--gpu-timeout", "2"]).unwrap();
        assert_eq!((s.throttle_threshold, s.max_noise, s.timeout_s), (0.9, 0.01, 2.0));
        assert_eq!(parse(&["--throttle-threshold", "0"]).unwrap().throttle_threshold, 0.0);
        let e = parse(&["--throttle-threshold", "120"]).unwrap_err();
        assert!(e.contains("--throttle-threshold") && e.contains("120"), "{e}");
        assert!(parse(&["--max-noise", "0"]).unwrap_err().contains("--max-noise"));
        let e = parse(&["--gpu-min-time", "3", "--gpu-timeout", "2"]).unwrap_err();
        assert!(e.contains("--gpu-min-time") && e.contains("--gpu-timeout 2"), "{e}");
    }

    #[test]
    fn the_lock_takes_base_or_max_only() {
        let cli = Cli::try_parse_from(["h", "--lock-gpu-clocks", "max"]).unwrap();
        assert_eq!(cli.gpu.lock_gpu_clocks, Some(LockMode::Max));
        let e = Cli::try_parse_from(["h", "--lock-gpu-clocks", "turbo"]).unwrap_err().to_string();
        assert!(e.contains("base") && e.contains("max"), "{e}");
    }
}
