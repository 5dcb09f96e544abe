//! Validation: raw [`RunArgs`] into typed [`RunOptions`], the shared measurement options into
//! [`Measure`] under each command's [`MeasureDefaults`], or an error naming the flag and value.

use std::path::PathBuf;
use std::time::Duration;

use super::args::{MeasureArgs, RunArgs};
use crate::counters::{CounterSettings, CounterSource};
use crate::errors::Error;
use crate::plan::{Selection, fresh_seed};
use crate::run::RunConfig;

/// One command's defaults for the shared measurement options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MeasureDefaults {
    /// Who uses them, as the help text says it.
    pub who: &'static str,
    pub iterations: usize,
    pub warmup: usize,
    pub timeout_s: u64,
}

/// `run` and the default command.
pub(crate) const RUN: MeasureDefaults = MeasureDefaults {
    who: "",
    iterations: 20,
    warmup: 3,
    timeout_s: 300,
};
#[cfg(feature = "cli")]
/// `detect`: many processes per scenario, so fewer iterations and a tighter bound.
pub(crate) const DETECT: MeasureDefaults = MeasureDefaults {
    who: "",
    iterations: 10,
    warmup: 2,
    timeout_s: 60,
};
#[cfg(feature = "cli")]
/// `compare` and `calibrate`.
pub(crate) const COMPARE: MeasureDefaults = RUN;
/// A smoke test under `cargo test` or cargo-nextest: each scenario once, quickly.
pub(crate) const SMOKE: MeasureDefaults = MeasureDefaults {
    who: "under cargo test or nextest",
    iterations: 1,
    warmup: 0,
    timeout_s: 300,
};

impl MeasureDefaults {
    /// `a`'s help with these defaults (and `also`'s, where they differ) appended, so each
    /// command's `--help` states its own.
    pub(crate) fn state_in_help(&self, a: clap::Arg, also: Option<&MeasureDefaults>) -> clap::Arg {
        let value = |d: &MeasureDefaults| match a.get_id().as_str() {
            "iterations" => Some(d.iterations.to_string()),
            "warmup" => Some(d.warmup.to_string()),
            "timeout" => Some(d.timeout_s.to_string()),
            _ => None,
        };
        let Some(mine) = value(self) else { return a };
        let mut text = format!("[default: {mine}");
        if let Some(other) = also.and_then(|o| value(o).filter(|v| *v != mine).map(|v| (o.who, v))) {
            text.push_str(&format!("; {}: {}", other.0, other.1));
        }
        text.push(']');
        let help = a.get_help().map(|h| format!("{h} {text}")).unwrap_or(text);
        a.help(help)
    }
}

/// The shared measurement options, with defaults applied.
#[derive(Debug, Clone)]
pub(crate) struct Measure {
    pub iterations: usize,
    pub warmup: usize,
    pub seed: u64,
    pub timeout: Duration,
    pub out: Option<PathBuf>,
}

impl MeasureArgs {
    /// These options under a command's defaults (a fresh seed when none was given).
    pub(crate) fn resolve(&self, d: &MeasureDefaults) -> Measure {
        Measure {
            iterations: self.iterations.unwrap_or(d.iterations),
            warmup: self.warmup.unwrap_or(d.warmup),
            seed: self.seed.unwrap_or_else(fresh_seed),
            timeout: self.timeout.unwrap_or(Duration::from_secs(d.timeout_s)),
            out: self.out.clone(),
        }
    }
}

impl MeasureArgs {
    /// `--counters` resolved to a source that counts here, or why none does.
    pub(crate) fn counter_settings(&self) -> Result<Option<CounterSettings>, Error> {
        // Not finding the library is no error: a binary with CountingAllocator needs none,
        // and any other says per measurement why it was not counted.
        let allocs = self.allocs.then(|| CounterSettings {
            source: CounterSource::Allocs {
                preload: crate::allocs::embedded::preload(),
            },
            iterations: self.counter_iterations,
            warmup: self.counter_warmup,
            allocs: None,
        });
        let Some(mode) = self.counters else { return Ok(allocs) };
        Ok(Some(CounterSettings {
            source: CounterSource::resolve(mode)?,
            iterations: self.counter_iterations,
            warmup: self.counter_warmup,
            allocs: allocs.map(Box::new),
        }))
    }
}

/// Which binary's scenarios to run.
#[derive(Debug, Clone)]
pub(crate) enum TargetChoice {
    Own,
    Suite(PathBuf),
    Libtest(PathBuf),
}

/// Validated `run` options.
#[derive(Debug, Clone)]
pub(crate) struct RunOptions {
    pub target: TargetChoice,
    pub selection: Selection,
    /// `--bench`: measurements only.
    pub measures_only: bool,
    pub config: RunConfig,
    pub out: Option<PathBuf>,
    /// `--history FILE` and its label (always `None` without the `history` feature).
    #[cfg_attr(not(feature = "history"), allow(dead_code))]
    pub history: Option<(PathBuf, Option<String>)>,
}

pub(crate) fn invalid(flag: &'static str, value: &str, reason: impl Into<String>) -> Error {
    Error::InvalidFlag {
        flag,
        value: value.to_owned(),
        reason: reason.into(),
    }
}

/// `--min-time`'s default under `--bench`: a machine's speed that changes over seconds (as one
/// VM's did, docs/criterion.md) shows in a run this long; criterion spends 8 s on each benchmark.
pub(crate) const BENCH_MIN_TIME: std::time::Duration = std::time::Duration::from_secs(10);

impl RunOptions {
    pub(crate) fn from_args(a: &RunArgs) -> Result<Self, Error> {
        a.criterion.refused()?;
        let mut m = a.measure.resolve(&RUN);
        if let Some(n) = a.criterion.sample_size {
            eprintln!("note: criterion's --sample-size {n} is taken as --iterations {n} (samples per process)");
            m.iterations = n;
        }
        let repeat_measures = a.repeat.unwrap_or(5);
        if a.target_ci.is_some() && repeat_measures > a.max_repeat {
            return Err(invalid(
                "--max-repeat",
                &a.max_repeat.to_string(),
                format!("is below --repeat {repeat_measures}"),
            ));
        }
        if let (Some(p), Some(_)) = (a.shards.partition, a.target_ci) {
            // Adaptive repetition decides from each shard's own runs, so shards would not add
            // up to one plan.
            return Err(invalid("--partition", &p.to_string(), "cannot be combined with --target-ci"));
        }
        if let (Some(p), Some(t)) = (a.shards.partition, a.min_time.filter(|t| !t.is_zero())) {
            return Err(invalid(
                "--partition",
                &p.to_string(),
                format!("cannot be combined with --min-time {}", t.as_secs_f64()),
            ));
        }
        // Under `cargo bench` a measurement's processes span BENCH_MIN_TIME, as criterion's
        // samples span its measurement time; not where `--repeat N` pins the count, nor
        // sharded, where shards must add up to one plan.
        let min_time = match a.min_time {
            Some(t) => Some(t).filter(|t| !t.is_zero()),
            None if a.bench && a.repeat.is_none() && a.shards.partition.is_none() => Some(BENCH_MIN_TIME),
            None => None,
        };
        let target = match (&a.suite_bin, &a.test_bin) {
            (Some(p), _) => TargetChoice::Suite(existing("--suite-bin", p)?),
            (_, Some(p)) => TargetChoice::Libtest(existing("--test-bin", p)?),
            _ => TargetChoice::Own,
        };
        Ok(RunOptions {
            target,
            selection: Selection {
                ignored_only: a.ignored,
                include_ignored: a.include_ignored,
                ..a.names.selection()
            },
            measures_only: a.bench,
            config: RunConfig {
                repeat_checks: a.repeat.unwrap_or(1),
                repeat_measures,
                iterations: m.iterations,
                warmup: m.warmup,
                seed: m.seed,
                timeout: Some(m.timeout),
                test_threads: a
                    .test_threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                parallel_measurements: a.parallel_measurements,
                target_ci: a.target_ci,
                max_repeat: a.max_repeat,
                min_time,
                scratch: PathBuf::new(),
                command: crate::reproduce::this_command(m.seed),
                partition: a.shards.partition,
                resume: None,
                gpu: Some(a.gpu.settings()?),
                counters: a.measure.counter_settings()?,
                counter_processes: a.measure.counter_processes,
                // Both set once the output directory exists (`cli/mod.rs`).
                speed_memory: None,
                out: PathBuf::new(),
            },
            out: m.out.or_else(|| a.shards.resume.clone()),
            history: match &a.shards.history {
                // Refused before the run, not after it, in a build that cannot store it.
                Some(_) if !cfg!(feature = "history") => {
                    return Err(Error::NotBuiltIn {
                        what: "the history (`--history`)",
                        feature: "history",
                    });
                }
                h => h.clone().map(|db| (db, a.shards.history_label.clone())),
            },
        })
    }
}

pub(crate) fn existing(flag: &'static str, p: &std::path::Path) -> Result<PathBuf, Error> {
    if p.is_file() {
        Ok(p.to_owned())
    } else {
        Err(invalid(flag, &p.display().to_string(), "no such file"))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::super::args::{Args, Command};

    fn help_of(cmd: &str) -> String {
        use clap::CommandFactory;
        let mut c = Args::command();
        let sub = c.find_subcommand_mut(cmd).expect("subcommand exists");
        sub.render_long_help().to_string()
    }

    fn measure_of(args: &[&str]) -> super::Measure {
        let parsed = Args::try_parse_from(args).expect("parses");
        match parsed.command {
            Some(Command::Detect(d)) => d.measure.resolve(&super::DETECT),
            Some(Command::Compare(c)) => c.session.measure.resolve(&super::COMPARE),
            Some(Command::Run(r)) => r.measure.resolve(&super::RUN),
            None => parsed.run.measure.resolve(&super::RUN),
            _ => unreachable!(),
        }
    }

    #[test]
    fn each_command_keeps_its_own_defaults_and_says_so() {
        let run = measure_of(&["h", "run"]);
        assert_eq!((run.iterations, run.warmup, run.timeout.as_secs()), (20, 3, 300));
        let detect = measure_of(&["h", "detect"]);
        assert_eq!((detect.iterations, detect.warmup, detect.timeout.as_secs()), (10, 2, 60));
        let compare = measure_of(&["h", "compare", "--baseline", "x"]);
        assert_eq!((compare.iterations, compare.warmup, compare.timeout.as_secs()), (20, 3, 300));
        let given = measure_of(&["h", "detect", "--timeout", "1.5", "--warmup", "0", "--seed", "7"]);
        assert_eq!((given.timeout.as_millis(), given.warmup, given.seed), (1500, 0, 7));
        let detect_help = help_of("detect");
        assert!(
            detect_help.contains("[default: 60]") && detect_help.contains("[default: 10]"),
            "{detect_help}"
        );
        assert!(!detect_help.contains("[default: 300]"), "{detect_help}");
        let run_help = help_of("run");
        assert!(run_help.contains("[default: 300]"), "{run_help}");
        assert!(run_help.contains("[default: 20; under cargo test or nextest: 1]"), "{run_help}");
        assert!(help_of("compare").contains("[default: 300]"));
    }
}
