//! Raw command-line arguments (clap). libtest's flags are accepted as libtest spells them, so
//! cargo-nextest and habits from `cargo test` work unchanged.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Arg, ArgAction};

use super::builder::{builder_args, defaulted, given, group, many, one, switch, value, value_enum};
use super::options::{RUN, SMOKE};
use super::values::{count, positive_fraction, secs, seed};
use crate::counters::CounterMode;

/// A scenario harness: each scenario in fresh processes, in a seeded shuffled order, with a
/// confidence interval on every measurement.
#[cfg(feature = "cli")]
#[derive(Debug, clap::Parser)]
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
#[cfg(feature = "cli")]
#[derive(Debug, clap::Subcommand)]
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

#[cfg(not(feature = "cli"))]
pub use super::suite_args::{SuiteArgs as Args, SuiteCommand as Command};

/// Options of `report`.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// The directory holding results.json / detect.json / compare.json.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// libtest's name filters, shared by every command that selects scenarios.
#[derive(Debug, Clone, Default)]
pub struct FilterArgs {
    /// Scenarios (or tests) whose names contain any of these (all when none).
    pub filters: Vec<String>,
    /// Filters must match names exactly.
    pub exact: bool,
    /// Skip scenarios whose names contain this (repeatable; exact with --exact).
    pub skip: Vec<String>,
}
builder_args!(FilterArgs, "FilterArgs");

impl FilterArgs {
    fn augment(cmd: clap::Command) -> clap::Command {
        let filters = Arg::new("filters")
            .value_name("FILTERS")
            .num_args(1..)
            .value_parser(clap::value_parser!(String))
            .action(ArgAction::Append)
            .help("Scenarios (or tests) whose names contain any of these (all when none)");
        let skip = value(
            "skip",
            "skip",
            "FILTER",
            clap::value_parser!(String),
            "Skip scenarios whose names contain this (repeatable; exact with --exact)",
        )
        .action(ArgAction::Append);
        group(
            cmd,
            "FilterArgs",
            [filters, switch("exact", "exact", "Filters must match names exactly"), skip],
        )
    }

    fn from_matches(m: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(FilterArgs {
            filters: many(m, "filters"),
            exact: given(m, "exact"),
            skip: many(m, "skip"),
        })
    }

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One line per test with a header and a count.
    Pretty,
    /// `name: test` lines only.
    Terse,
    /// JSON (accepted for compatibility; listing prints terse-style lines).
    Json,
}
value_enum!(Format {
    Pretty => "pretty", "One line per test with a header and a count",
    Terse => "terse", "`name: test` lines only",
    Json => "json", "JSON (accepted for compatibility; listing prints terse-style lines)",
});

/// Measurement options shared by `run`, `detect` and `compare`. Each command has its own
/// defaults ([`MeasureDefaults`](super::options::MeasureDefaults), stated in its help), applied
/// in `options.rs`; `None` here means "not given". Flags and help: [`MeasureArgs::augment`].
#[derive(Debug, Clone, Default)]
pub struct MeasureArgs {
    /// `--iterations M`.
    pub iterations: Option<usize>,
    /// `--warmup W`.
    pub warmup: Option<usize>,
    /// `--seed S`.
    pub seed: Option<u64>,
    /// `--timeout SECS`.
    pub timeout: Option<Duration>,
    /// `--out DIR`.
    pub out: Option<PathBuf>,
    /// `--counters[=SOURCE]`.
    pub counters: Option<CounterMode>,
    /// `--allocs`.
    pub allocs: bool,
    /// `--counter-processes N`.
    pub counter_processes: usize,
    /// `--counter-iterations M`.
    pub counter_iterations: usize,
    /// `--counter-warmup W`.
    pub counter_warmup: usize,
}
builder_args!(MeasureArgs, "MeasureArgs");

impl MeasureArgs {
    fn augment(cmd: clap::Command) -> clap::Command {
        let counters = value(
            "counters",
            "counters",
            "SOURCE",
            clap::value_parser!(CounterMode),
            "Count each measurement's calls beside its wall time: `instructions` (and under valgrind \
             `estimated_cycles`, under perf `cycles` and `cache_misses`). `auto` [the default when the \
             flag has no value]: perf where hardware counters count, else valgrind. Under valgrind each \
             measurement gets --counter-processes processes of its own, run in parallel (one per core), \
             each --counter-warmup uncounted and --counter-iterations counted calls, with --timeout x10. \
             Scenarios marked uncounted (CUDA) are not counted",
        )
        .num_args(0..=1)
        .require_equals(true)
        .default_missing_value("auto");
        let allocs = switch(
            "allocs",
            "allocs",
            "Count each measurement's allocations per call (`allocations`, `deallocations`, \
             `alloc_bytes`, `peak_bytes`, `leaked_bytes`) in --counter-processes processes of its own \
             (wall-time processes stay unperturbed), each --counter-warmup uncounted calls then N and 2N \
             counted ones (N = --counter-iterations): exact where every call counted the same and the 2N \
             calls twice the N, else `varies`. Counts through the malloc recorder harness carries, in \
             LD_PRELOAD (HARNESS_INTERPOSE_LIB names another), or the binary's harness::CountingAllocator \
             (docs/allocations.md). With --counters, both are recorded, each in processes of its own",
        );
        let args = [
            value(
                "iterations",
                "iterations",
                "M",
                count::<1>,
                "Measured in-process iterations per measurement process",
            ),
            value(
                "warmup",
                "warmup",
                "W",
                count::<0>,
                "Discarded warm-up iterations per measurement process (0: none, and each sample is one call)",
            ),
            value(
                "seed",
                "seed",
                "S",
                seed,
                "Seed of the shuffled order (printed and stored) [default: fresh]",
            ),
            value(
                "timeout",
                "timeout",
                "SECS",
                secs,
                "Per-process timeout in seconds (a scenario's own timeout wins)",
            ),
            value(
                "out",
                "out",
                "DIR",
                clap::value_parser!(PathBuf),
                "Output directory [default: reports/<timestamp>/, with reports/latest pointing at it]",
            ),
            counters,
            allocs,
            value(
                "counter_processes",
                "counter-processes",
                "N",
                count::<1>,
                "Counting processes per measurement under valgrind at most: `run` stops at two where they \
                 counted alike (compare and calibrate: counting pairs per scenario, run before the wall-time \
                 pairs)",
            )
            .default_value("3"),
            value(
                "counter_iterations",
                "counter-iterations",
                "M",
                count::<1>,
                "Counted calls per counting process under valgrind (each its own Callgrind dump); a routine \
                 whose warm-up call took long under valgrind gets as many as fit in 3 s of CPU, at least 3, \
                 or 2 when those two counted the same instructions",
            )
            .default_value("5"),
            value(
                "counter_warmup",
                "counter-warmup",
                "W",
                count::<0>,
                "Uncounted warm-up calls before them",
            )
            .default_value("1"),
        ];
        group(cmd, "MeasureArgs", args)
    }

    fn from_matches(m: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(MeasureArgs {
            iterations: one(m, "iterations"),
            warmup: one(m, "warmup"),
            seed: one(m, "seed"),
            timeout: one(m, "timeout"),
            out: one(m, "out"),
            counters: one(m, "counters"),
            allocs: given(m, "allocs"),
            counter_processes: defaulted(m, "counter_processes")?,
            counter_iterations: defaulted(m, "counter_iterations")?,
            counter_warmup: defaulted(m, "counter_warmup")?,
        })
    }
}

/// Options of `run`. Flags and help: [`RunArgs::augment`]; a suite binary without the `cli`
/// feature parses them too ([`SuiteArgs`](super::suite_args::SuiteArgs)).
#[derive(Debug, Clone)]
pub struct RunArgs {
    /// Name filters, libtest-style.
    pub names: FilterArgs,
    /// `--ignored`.
    pub ignored: bool,
    /// `--include-ignored`.
    pub include_ignored: bool,
    /// `--list`.
    pub list: bool,
    /// `--format`.
    pub format: Format,
    /// `--bench`.
    pub bench: bool,
    /// `--test-threads N`.
    pub test_threads: Option<usize>,
    /// `--nocapture`.
    pub nocapture: bool,
    /// `--show-output`.
    #[allow(dead_code, reason = "accepted for libtest compatibility, never read")]
    pub show_output: bool,
    /// `-q`, `--quiet`.
    #[allow(dead_code, reason = "accepted for libtest compatibility, never read")]
    pub quiet: bool,
    /// `--color WHEN`.
    #[allow(dead_code, reason = "accepted for libtest compatibility, never read")]
    pub color: Option<String>,
    /// `--repeat N`.
    pub repeat: Option<usize>,
    /// Iterations, warm-up, seed, timeout, output directory.
    pub measure: MeasureArgs,
    /// `--target-ci PCT`.
    pub target_ci: Option<f64>,
    /// `--max-repeat N`.
    pub max_repeat: usize,
    /// `--min-time SECS`.
    pub min_time: Option<std::time::Duration>,
    /// `--parallel-measurements`.
    pub parallel_measurements: bool,
    /// `--suite-bin PATH`.
    pub suite_bin: Option<PathBuf>,
    /// `--test-bin PATH`.
    pub test_bin: Option<PathBuf>,
    /// --partition, --resume, --history.
    pub shards: super::history_args::ShardArgs,
    /// GPU sample rules and clock lock.
    pub gpu: super::gpu_args::GpuArgs,
    /// criterion's flags, mapped or refused.
    pub criterion: super::criterion_args::CriterionArgs,
}
builder_args!(RunArgs, "RunArgs");

impl RunArgs {
    pub(super) fn augment(cmd: clap::Command) -> clap::Command {
        const LIBTEST: &str = "Accepted for libtest compatibility";
        // The derive gave `run`'s group no members (its fields are flattened or follow them).
        let cmd = cmd.group(clap::ArgGroup::new("RunArgs").multiple(true));
        let cmd = FilterArgs::augment(cmd).args([
            switch("ignored", "ignored", "Run only ignored scenarios"),
            switch("include_ignored", "include-ignored", "Run ignored scenarios too"),
            switch("list", "list", "List scenarios instead of running them"),
            value(
                "format",
                "format",
                "FORMAT",
                clap::value_parser!(Format),
                "Listing format (libtest's)",
            )
            .default_value("pretty"),
            switch(
                "bench",
                "bench",
                "Run the measurements only (what `cargo bench` asks for: it passes this flag). Without it, \
                 a suite that cargo runs as a test or bench target (`cargo test --benches`) runs each \
                 scenario once as a smoke test, with libtest's output",
            ),
            value(
                "test_threads",
                "test-threads",
                "N",
                count::<1>,
                "Parallel processes for checks [default: logical cores]",
            ),
            switch(
                "nocapture",
                "nocapture",
                "Accepted for libtest compatibility: output is always captured per process and kept",
            ),
            switch("show_output", "show-output", LIBTEST),
            switch("quiet", "quiet", LIBTEST).short('q'),
            value("color", "color", "WHEN", clap::value_parser!(String), LIBTEST),
            value(
                "repeat",
                "repeat",
                "N",
                count::<1>,
                "Isolated processes per scenario [default: 1 per check, 5 per measurement]",
            ),
        ]);
        let cmd = MeasureArgs::augment(cmd).args([
            value(
                "target_ci",
                "target-ci",
                "PCT",
                positive_fraction,
                "Keep adding isolated runs of each measurement until its 95% interval's half-width is within \
                 this percentage of its centre (or --max-repeat is reached)",
            ),
            value(
                "max_repeat",
                "max-repeat",
                "N",
                count::<2>,
                "Cap on processes per measurement under --target-ci and --min-time; processes left out for a \
                 slowed machine (a speed probe read it slower) do not count, up to as many again",
            )
            .default_value("30"),
            value(
                "min_time",
                "min-time",
                "SECS",
                super::values::secs_or_zero,
                "Spread each measurement's processes over at least this long: rounds of more processes, \
                 shuffled among the others, until the run has lasted it (or --max-repeat), so a machine \
                 whose speed changes meanwhile shows as processes that disagree [default: 10 under \
                 --bench without --repeat, else 0]",
            ),
            switch(
                "parallel_measurements",
                "parallel-measurements",
                "Let measurements run beside other processes (default: alone)",
            ),
            value(
                "suite_bin",
                "suite-bin",
                "PATH",
                clap::value_parser!(PathBuf),
                "Run the scenarios of another suite binary instead of this one's",
            )
            .conflicts_with("test_bin"),
            value(
                "test_bin",
                "test-bin",
                "PATH",
                clap::value_parser!(PathBuf),
                "Run the #[test]s of an ordinary libtest binary, one process each",
            ),
        ]);
        let cmd = super::history_args::ShardArgs::augment(cmd);
        let cmd = super::gpu_args::GpuArgs::augment(cmd);
        let cmd = super::criterion_args::CriterionArgs::augment(cmd);
        cmd.about("Options of `run`")
            .long_about(None)
            .mut_args(|a| RUN.state_in_help(a, Some(&SMOKE)))
    }

    pub(super) fn from_matches(m: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(RunArgs {
            names: FilterArgs::from_matches(m)?,
            ignored: given(m, "ignored"),
            include_ignored: given(m, "include_ignored"),
            list: given(m, "list"),
            format: defaulted(m, "format")?,
            bench: given(m, "bench"),
            test_threads: one(m, "test_threads"),
            nocapture: given(m, "nocapture"),
            show_output: given(m, "show_output"),
            quiet: given(m, "quiet"),
            color: one(m, "color"),
            repeat: one(m, "repeat"),
            measure: MeasureArgs::from_matches(m)?,
            target_ci: one(m, "target_ci"),
            max_repeat: defaulted(m, "max_repeat")?,
            min_time: one(m, "min_time"),
            parallel_measurements: given(m, "parallel_measurements"),
            suite_bin: one(m, "suite_bin"),
            test_bin: one(m, "test_bin"),
            shards: super::history_args::ShardArgs::from_matches(m)?,
            gpu: super::gpu_args::GpuArgs::from_matches(m)?,
            criterion: super::criterion_args::CriterionArgs::from_matches(m)?,
        })
    }
}
