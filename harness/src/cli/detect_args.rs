//! Raw arguments of `detect` (clap).

use std::path::PathBuf;

/// Options of `detect`: order-dependence and flakiness detection with culprit localization.
#[derive(Debug, Clone, clap::Args)]
pub struct DetectArgs {
    /// Name filters, libtest-style.
    #[command(flatten)]
    pub names: super::args::FilterArgs,
    /// Include ignored scenarios.
    #[arg(long)]
    pub include_ignored: bool,
    /// A libtest test binary (e.g. target/debug/deps/foo-<hash>); repeatable, each binary's tests
    /// are a separate universe (never in one process).
    #[arg(long, value_name = "PATH", conflicts_with = "suite_bin")]
    pub test_bin: Vec<PathBuf>,
    /// Another harness suite binary (default: this binary's own scenarios).
    #[arg(long, value_name = "PATH")]
    pub suite_bin: Option<PathBuf>,
    /// Bound on every process, in seconds (a shared process runs many scenarios under it).
    #[arg(long, value_name = "SECS", default_value = "60")]
    pub timeout: String,
    /// Output directory (default: reports/<timestamp>/, with reports/latest pointing at it).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of the shuffles (printed and stored; default: fresh).
    #[arg(long, value_name = "S")]
    pub seed: Option<String>,
    /// Seeded shuffles on top of the original order and its reverse (K). A cleaner between
    /// polluter and victim escapes K shuffles with probability (2/3)^K.
    #[arg(long, value_name = "K", default_value = "6")]
    pub shuffles: String,
    /// Isolated runs of each scenario (R; measurements get at least 5).
    #[arg(long, value_name = "R", default_value = "3")]
    pub isolated: String,
    /// Measured in-process iterations per measurement process.
    #[arg(long, value_name = "M", default_value = "10")]
    pub iterations: String,
    /// Discarded warm-up iterations per measurement process.
    #[arg(long, value_name = "W", default_value = "2")]
    pub warmup: String,
    /// Detect only shard K of N: env groups (and test binaries), which never share a process,
    /// are dealt round-robin to the shards; give every shard the same --seed.
    #[arg(long, value_name = "K/N", value_parser = clap::value_parser!(crate::plan::Partition))]
    pub partition: Option<crate::plan::Partition>,
    /// Exit 0 even when something other than `pass` was found.
    #[arg(long)]
    pub no_fail: bool,
}
