//! Raw command-line arguments (clap). libtest's flags are accepted as libtest spells them, so
//! cargo-nextest and habits from `cargo test` work unchanged.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use super::options::{RUN, SMOKE};
use super::values::{count, positive_fraction, secs, seed};
use crate::counters::CounterMode;

/// A scenario harness: each scenario in fresh processes, in a seeded shuffled order, with a
/// confidence interval on every measurement.
#[derive(Debug, Parser)]
#[command(version, about, args_conflicts_with_subcommands = true)]
pub struct Args {
    /// What to do (default: run).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of the default `run`.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run scenarios, each repetition in a fresh process (the default).
    Run(RunArgs),
    /// Find scenarios (or #[test]s) whose result depends on what ran before them, and the culprits.
    Detect(super::detect_args::DetectArgs),
    /// Compare two builds (binaries, interleaved in random A/B pairs, or result directories).
    Compare(super::compare_args::CompareArgs),
    /// Name the commit between --good and --bad that changed a scenario's measurement, even under noise.
    Bisect(super::bisect_args::BisectArgs),
    /// Run a binary against itself to measure each scenario's noise band (calibration.json).
    Calibrate(super::compare_args::CalibrateArgs),
    /// Keep finished runs in a SQLite history and find change points across them.
    History(super::history_args::HistoryArgs),
    /// Rebuild one result set from the shard directories of a `--partition`ed run.
    Merge(super::history_args::MergeArgs),
    /// Re-render index.html of a run, detect or compare directory from its results files.
    Report(ReportArgs),
}

/// Options of `report`.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// The directory holding results.json / detect.json / compare.json.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// libtest's name filters, shared by every command that selects scenarios.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FilterArgs {
    /// Scenarios (or tests) whose names contain any of these (all when none).
    pub filters: Vec<String>,
    /// Filters must match names exactly.
    #[arg(long)]
    pub exact: bool,
    /// Skip scenarios whose names contain this (repeatable; exact with --exact).
    #[arg(long, value_name = "FILTER")]
    pub skip: Vec<String>,
}

impl FilterArgs {
    /// A selection by these filters; ignored-state flags are the caller's.
    pub(crate) fn selection(&self) -> crate::plan::Selection {
        crate::plan::Selection {
            filters: self.filters.clone(),
            exact: self.exact,
            skip: self.skip.clone(),
            ..Default::default()
        }
    }
}

/// libtest's `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One line per test with a header and a count.
    Pretty,
    /// `name: test` lines only.
    Terse,
    /// JSON (accepted for compatibility; listing prints terse-style lines).
    Json,
}

/// Measurement options shared by `run`, `detect` and `compare`. Each command has its own
/// defaults ([`MeasureDefaults`](super::options::MeasureDefaults), stated in its help), applied
/// in `options.rs`; `None` here means "not given".
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MeasureArgs {
    /// Measured in-process iterations per measurement process.
    #[arg(long, value_name = "M", value_parser = count::<1>)]
    pub iterations: Option<usize>,
    /// Discarded warm-up iterations per measurement process (0: none, and each sample is one call).
    #[arg(long, value_name = "W", value_parser = count::<0>)]
    pub warmup: Option<usize>,
    /// Seed of the shuffled order (printed and stored) [default: fresh].
    #[arg(long, value_name = "S", value_parser = seed)]
    pub seed: Option<u64>,
    /// Per-process timeout in seconds (a scenario's own timeout wins).
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub timeout: Option<Duration>,
    /// Output directory [default: reports/<timestamp>/, with reports/latest pointing at it].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Count each measurement's calls beside its wall time: `instructions` (and under valgrind
    /// `estimated_cycles`, under perf `cycles` and `cache_misses`). `auto` [the default when
    /// the flag has no value]: perf where hardware counters count, else valgrind. Under
    /// valgrind each measurement gets --counter-processes processes of its own, run in
    /// parallel (one per core), each --counter-warmup uncounted and --counter-iterations
    /// counted calls, with --timeout x10. Scenarios marked uncounted (CUDA) are not counted.
    #[arg(long, value_name = "SOURCE", num_args = 0..=1, require_equals = true, default_missing_value = "auto")]
    pub counters: Option<CounterMode>,
    /// Count each measurement's allocations per call (`allocations`, `deallocations`,
    /// `alloc_bytes`, `peak_bytes`, `leaked_bytes`) in --counter-processes processes of its own
    /// (wall-time processes stay unperturbed), each --counter-warmup uncounted calls then N and
    /// 2N counted ones (N = --counter-iterations): exact where every call counted the same and
    /// the 2N calls twice the N, else `varies`. Counts through the malloc recorder harness
    /// carries, in LD_PRELOAD (HARNESS_INTERPOSE_LIB names another), or the binary's
    /// harness::CountingAllocator (docs/allocations.md). With --counters, both are recorded,
    /// each in processes of its own.
    #[arg(long)]
    pub allocs: bool,
    /// Counting processes per measurement under valgrind at most: `run` stops at two where they
    /// counted alike (compare and calibrate: counting pairs per scenario, run before the
    /// wall-time pairs).
    #[arg(long, value_name = "N", value_parser = count::<1>, default_value_t = 3)]
    pub counter_processes: usize,
    /// Counted calls per counting process under valgrind (each its own Callgrind dump); a
    /// routine whose warm-up call took long under valgrind gets as many as fit in 3 s of CPU,
    /// at least 3, or 2 when those two counted the same instructions.
    #[arg(long, value_name = "M", value_parser = count::<1>, default_value_t = 5)]
    pub counter_iterations: usize,
    /// Uncounted warm-up calls before them.
    #[arg(long, value_name = "W", value_parser = count::<0>, default_value_t = 1)]
    pub counter_warmup: usize,
}

/// Options of `run`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_args(|a| RUN.state_in_help(a, Some(&SMOKE))))]
pub struct RunArgs {
    /// Name filters, libtest-style.
    #[command(flatten)]
    pub names: FilterArgs,
    /// Run only ignored scenarios.
    #[arg(long)]
    pub ignored: bool,
    /// Run ignored scenarios too.
    #[arg(long)]
    pub include_ignored: bool,
    /// List scenarios instead of running them.
    #[arg(long)]
    pub list: bool,
    /// Listing format (libtest's).
    #[arg(long, value_enum, default_value = "pretty")]
    pub format: Format,
    /// Run the measurements only (what `cargo bench` asks for: it passes this flag). Without
    /// it, a suite that cargo runs as a test or bench target (`cargo test --benches`) runs each
    /// scenario once as a smoke test, with libtest's output.
    #[arg(long)]
    pub bench: bool,
    /// Parallel processes for checks [default: logical cores].
    #[arg(long, value_name = "N", value_parser = count::<1>)]
    pub test_threads: Option<usize>,
    /// Accepted for libtest compatibility: output is always captured per process and kept.
    #[arg(long)]
    pub nocapture: bool,
    /// Accepted for libtest compatibility.
    #[arg(long)]
    pub show_output: bool,
    /// Accepted for libtest compatibility.
    #[arg(short, long)]
    pub quiet: bool,
    /// Accepted for libtest compatibility.
    #[arg(long, value_name = "WHEN")]
    pub color: Option<String>,

    /// Isolated processes per scenario [default: 1 per check, 5 per measurement].
    #[arg(long, value_name = "N", value_parser = count::<1>)]
    pub repeat: Option<usize>,
    /// Iterations, warm-up, seed, timeout, output directory.
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Keep adding isolated runs of each measurement until its 95% interval's half-width is
    /// within this percentage of its centre (or --max-repeat is reached).
    #[arg(long, value_name = "PCT", value_parser = positive_fraction)]
    pub target_ci: Option<f64>,
    /// Cap on processes per measurement under --target-ci.
    #[arg(long, value_name = "N", value_parser = count::<2>, default_value = "30")]
    pub max_repeat: usize,
    /// Let measurements run beside other processes (default: alone).
    #[arg(long)]
    pub parallel_measurements: bool,
    /// Run the scenarios of another suite binary instead of this one's.
    #[arg(long, value_name = "PATH", conflicts_with = "test_bin")]
    pub suite_bin: Option<PathBuf>,
    /// Run the #[test]s of an ordinary libtest binary, one process each.
    #[arg(long, value_name = "PATH")]
    pub test_bin: Option<PathBuf>,
    /// --partition, --resume, --history.
    #[command(flatten)]
    pub shards: super::history_args::ShardArgs,
    /// GPU sample rules and clock lock.
    #[command(flatten)]
    pub gpu: super::gpu_args::GpuArgs,
    /// criterion's flags, mapped or refused.
    #[command(flatten)]
    pub criterion: super::criterion_args::CriterionArgs,
}
