//! Raw arguments of `detect` (clap).

use std::path::PathBuf;
use std::time::Duration;

use super::compare_args::duration;
use super::options::DETECT;
use super::values::count;

/// Options of `detect`: order-dependence and flakiness detection with culprit localization.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("timeout", |a| a.help("Bound on every process, in seconds (a shared process runs many scenarios under it)")))]
#[command(mut_arg("seed", |a| a.help("Seed of the shuffles (printed and stored) [default: fresh]")))]
#[command(mut_args(|a| DETECT.state_in_help(a, None)))]
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
    /// Iterations, warm-up, seed, timeout, output directory.
    #[command(flatten)]
    pub measure: super::args::MeasureArgs,
    /// Seeded shuffles on top of the original order and its reverse (K). A cleaner between
    /// polluter and victim escapes K shuffles with probability (2/3)^K.
    #[arg(long, value_name = "K", value_parser = count::<0>, default_value = "6")]
    pub shuffles: usize,
    /// Isolated runs of each scenario up front (R; measurements get at least 5). Scenarios that
    /// fail or shift anywhere, alone or in a shared order, get more afterwards.
    #[arg(long, value_name = "R", value_parser = count::<1>, default_value = "1")]
    pub isolated: usize,
    /// Time for the whole detect (`90s`, `5m`, `1h`): no process starts once it is spent;
    /// scenarios left undecided are `unknown`, with the runs that would decide them.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub budget: Option<Duration>,
    /// Processes side by side [default: logical cores] (one at a time where a measurement runs).
    #[arg(long, value_name = "N", value_parser = count::<1>)]
    pub test_threads: Option<usize>,
    /// Detect only shard K of N: env groups (and test binaries), which never share a process,
    /// are dealt round-robin to the shards; give every shard the same --seed.
    #[arg(long, value_name = "K/N", value_parser = clap::value_parser!(crate::plan::Partition))]
    pub partition: Option<crate::plan::Partition>,
    /// Exit 0 even when something other than `pass` was found.
    #[arg(long)]
    pub no_fail: bool,
    /// Do not preload libharness_interpose.so (no env/cwd/file observation, so no `mechanism`).
    #[arg(long)]
    pub no_interpose: bool,
}
