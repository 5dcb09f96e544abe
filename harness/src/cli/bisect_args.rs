//! Raw arguments of `bisect` (clap) and their validation into [`BisectOptions`].

use std::time::Duration;

use super::args::MeasureArgs;
use super::compare_args::duration;
use super::options::{MeasureDefaults, invalid};
use super::values::{count, fraction, positive_fraction};
use crate::bisect::BisectOptions;
use crate::compare::DEFAULT_NOISE_FLOOR;
use crate::errors::Error;

/// `bisect`'s defaults for the shared measurement options: compare's.
pub(crate) const BISECT: MeasureDefaults = super::options::COMPARE;
/// Pairs against each end per wall-time step.
const WALL_RUNS: usize = 10;
/// Instruction counts move by far less than wall time between identical builds.
const COUNTER_FLOOR: f64 = 0.005;

/// Options of `bisect`.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("out", |a| a.required(true).help("Output directory: bisect.json, bisect.md, index.html, results.jsonl")))]
#[command(mut_arg("seed", |a| a.help("Seed of the pair schedules (printed and stored) [default: fresh]")))]
#[command(mut_args(|a| BISECT.state_in_help(a, None)))]
pub struct BisectArgs {
    /// A commit (or any git ref) where the scenario's value is as it was.
    #[arg(long, value_name = "REF")]
    pub good: String,
    /// A later commit (descendant of --good) where the value had changed.
    #[arg(long, value_name = "REF")]
    pub bad: String,
    /// The scenario, by its exact name as --list prints it.
    #[arg(long, value_name = "NAME")]
    pub scenario: String,
    /// The metric followed [default: allocations with --allocs, instructions with --counters, else
    /// latency_ns].
    #[arg(long, value_name = "M")]
    pub metric: Option<String>,
    /// What is built at each commit.
    #[command(flatten)]
    pub build: super::build_target_args::BuildTargetArgs,
    /// Time for the whole search (`30m`, `600s`, `1h`): it stops there and says how sure it is.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub budget: Option<Duration>,
    /// Interleaved pairs against each end per step [default: 10]; with --counters, processes per
    /// commit [default: --counter-processes].
    #[arg(long, value_name = "N", value_parser = count::<2>)]
    pub runs: Option<usize>,
    /// Changes within +-PCT between good and bad mean no commit moved it [default: 2; with
    /// --counters 0.5].
    #[arg(long, value_name = "PCT", value_parser = fraction)]
    pub noise_floor: Option<f64>,
    /// The probability, in percent, at which a commit is named (exit 0) [default: 95].
    #[arg(long, value_name = "PCT", value_parser = positive_fraction)]
    pub confidence: Option<f64>,
    /// Iterations, warm-up, seed, timeout, output directory, and --counters: follow counted
    /// instructions instead of wall time, a plain binary search of about log2(n) builds.
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// Validate `bisect`'s arguments.
pub(crate) fn bisect_options(a: &BisectArgs) -> Result<BisectOptions, Error> {
    let m = a.measure.resolve(&BISECT);
    let counters = a.measure.counter_settings()?;
    let counting = counters.is_some();
    if a.scenario.trim().is_empty() {
        return Err(invalid("--scenario", &a.scenario, "must name a scenario"));
    }
    let confidence = a.confidence.unwrap_or(0.95);
    let metric = a.metric.clone().unwrap_or_else(|| {
        match (a.measure.allocs, counting) {
            (true, _) => "allocations",
            (false, true) => "instructions",
            (false, false) => "latency_ns",
        }
        .to_owned()
    });
    if confidence <= 0.5 {
        return Err(invalid("--confidence", &format!("{}", confidence * 100.0), "must be above 50"));
    }
    Ok(BisectOptions {
        good: a.good.clone(),
        bad: a.bad.clone(),
        scenario: a.scenario.clone(),
        target: a.build.target(),
        // With --allocs and --counters, the source that counts the metric followed.
        counters: counters.map(|c| c.for_metric(&metric)),
        metric,
        budget: a.budget,
        runs: a.runs.unwrap_or(if counting { a.measure.counter_processes } else { WALL_RUNS }),
        floor: a.noise_floor.unwrap_or(if counting { COUNTER_FLOOR } else { DEFAULT_NOISE_FLOOR }),
        confidence,
        iterations: m.iterations,
        warmup: m.warmup,
        timeout: m.timeout,
        seed: m.seed,
        out: m.out.ok_or_else(|| invalid("--out", "", "required"))?,
        command: crate::reproduce::this_command(m.seed),
    })
}
