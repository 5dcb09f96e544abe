//! Validation: raw [`RunArgs`] into typed [`RunOptions`], or an error naming the flag and value.

use std::path::PathBuf;
use std::time::Duration;

use super::args::RunArgs;
use crate::errors::Error;
use crate::plan::{Selection, fresh_seed};
use crate::run::RunConfig;

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
    pub config: RunConfig,
    pub out: Option<PathBuf>,
    /// `--history FILE` and its label.
    pub history: Option<(PathBuf, Option<String>)>,
}

fn invalid(flag: &'static str, value: &str, reason: impl Into<String>) -> Error {
    Error::InvalidFlag {
        flag,
        value: value.to_owned(),
        reason: reason.into(),
    }
}

/// Parse a whole number of at least `min`.
pub(crate) fn parse_count(flag: &'static str, value: &str, min: usize) -> Result<usize, Error> {
    let n: usize = value.trim().parse().map_err(|_| invalid(flag, value, "expected a whole number"))?;
    if n < min {
        return Err(invalid(flag, value, format!("must be at least {min}")));
    }
    Ok(n)
}

/// Parse a positive number of seconds.
pub(crate) fn parse_secs(flag: &'static str, value: &str) -> Result<Duration, Error> {
    let s: f64 = value
        .trim()
        .parse()
        .map_err(|_| invalid(flag, value, "expected a number of seconds"))?;
    if !(s.is_finite() && s > 0.0) {
        return Err(invalid(flag, value, "must be a positive number of seconds"));
    }
    Ok(Duration::from_secs_f64(s))
}

/// Parse a seed.
pub(crate) fn parse_seed(flag: &'static str, value: Option<&str>) -> Result<u64, Error> {
    match value {
        None => Ok(fresh_seed()),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| invalid(flag, v, "expected a whole number from 0 to 2^64-1")),
    }
}

impl RunOptions {
    pub(crate) fn from_args(a: &RunArgs) -> Result<Self, Error> {
        let repeat = a.repeat.as_deref().map(|r| parse_count("--repeat", r, 1)).transpose()?;
        let iterations = parse_count("--iterations", &a.iterations, 1)?;
        let warmup = parse_count("--warmup", &a.warmup, 0)?;
        let seed = parse_seed("--seed", a.seed.as_deref())?;
        let timeout = parse_secs("--timeout", &a.timeout)?;
        let max_repeat = parse_count("--max-repeat", &a.max_repeat, 2)?;
        let test_threads = match &a.test_threads {
            Some(t) => parse_count("--test-threads", t, 1)?,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let target_ci = match &a.target_ci {
            None => None,
            Some(v) => {
                let pct: f64 = v
                    .trim()
                    .trim_end_matches('%')
                    .parse()
                    .map_err(|_| invalid("--target-ci", v, "expected a percentage such as 2 or 0.5"))?;
                if !(pct > 0.0 && pct < 100.0) {
                    return Err(invalid("--target-ci", v, "must be between 0 and 100 (exclusive)"));
                }
                Some(pct / 100.0)
            }
        };
        let repeat_measures = repeat.unwrap_or(5);
        if target_ci.is_some() && repeat_measures > max_repeat {
            return Err(invalid(
                "--max-repeat",
                &a.max_repeat,
                format!("is below --repeat {repeat_measures}"),
            ));
        }
        if let (Some(p), Some(_)) = (a.shards.partition, target_ci) {
            // Adaptive repetition decides from each shard's own runs, so shards would not add
            // up to one plan.
            return Err(invalid("--partition", &p.to_string(), "cannot be combined with --target-ci"));
        }
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
            config: RunConfig {
                repeat_checks: repeat.unwrap_or(1),
                repeat_measures,
                iterations,
                warmup,
                seed,
                timeout: Some(timeout),
                test_threads,
                parallel_measurements: a.parallel_measurements,
                target_ci,
                max_repeat,
                scratch: PathBuf::new(),
                command: reproduce_command(seed),
                partition: a.shards.partition,
                resume: None,
            },
            out: a.out.clone().or_else(|| a.shards.resume.clone()),
            history: a.shards.history.clone().map(|db| (db, a.shards.history_label.clone())),
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

/// This process's command line with the seed pinned, so it reproduces the same order.
fn reproduce_command(seed: u64) -> Vec<String> {
    let mut args: Vec<String> = std::env::args().collect();
    let mut i = 1;
    while i < args.len() {
        if args[i] == "--seed" {
            args.drain(i..(i + 2).min(args.len()));
        } else if args[i].starts_with("--seed=") {
            args.remove(i);
        } else {
            i += 1;
        }
    }
    args.push("--seed".into());
    args.push(seed.to_string());
    args
}
