//! Raw arguments of `compare` and `calibrate` (clap) and their validation into
//! [`CompareOptions`] / [`CalibrateOptions`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::options::{parse_count, parse_secs, parse_seed};
use crate::compare::{CalibrateOptions, CompareOptions, DEFAULT_NOISE_FLOOR, RunSettings};
use crate::errors::Error;

/// Options every interleaved session shares.
#[derive(Debug, Clone, clap::Args)]
pub struct SessionArgs {
    /// Name filters, libtest-style.
    #[command(flatten)]
    pub names: super::args::FilterArgs,
    /// A/B pairs per scenario (one process per run).
    #[arg(long, value_name = "N", default_value = "10")]
    pub runs: String,
    /// Measured in-process iterations per process.
    #[arg(long, value_name = "M", default_value = "20")]
    pub iterations: String,
    /// Discarded warm-up iterations per process.
    #[arg(long, value_name = "W", default_value = "3")]
    pub warmup: String,
    /// Seed of the pair schedule (printed and stored; default: fresh).
    #[arg(long, value_name = "S")]
    pub seed: Option<String>,
    /// Per-process timeout in seconds (a scenario's own timeout wins).
    #[arg(long, value_name = "SECS", default_value = "300")]
    pub timeout: String,
    /// Output directory (default: reports/<timestamp>/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Smallest noise band, in percent: changes inside it are never regressions.
    #[arg(long, value_name = "PCT", default_value = "2")]
    pub noise_floor: String,
}

/// Options of `compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct CompareArgs {
    /// Baseline: a suite binary (interleaved runs) or a result directory (results.json).
    #[arg(long, value_name = "PATH")]
    pub baseline: PathBuf,
    /// Candidate: a suite binary or a result directory (default: this suite binary).
    #[arg(long, value_name = "PATH")]
    pub candidate: Option<PathBuf>,
    /// calibration.json from `calibrate`: per-scenario noise bands.
    #[arg(long, value_name = "PATH")]
    pub calibration: Option<PathBuf>,
    /// Exit with status 1 when any scenario regressed (for CI gating).
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Also judge each process's resources: peak_rss_bytes, cpu_user_ns, cpu_system_ns (lower is
    /// better). Off by default: they add rows to the multiple-testing correction.
    #[arg(long)]
    pub resources: bool,
    /// List under "what this cannot catch" the rows whose minimal detectable effect exceeds this percentage.
    #[arg(long, value_name = "PCT", default_value = "5")]
    pub mde_report: String,
    /// Env for baseline processes only, K=V (repeatable).
    #[arg(long, value_name = "K=V")]
    pub baseline_env: Vec<String>,
    /// Env for candidate processes only, K=V (repeatable): compare an env knob on one binary.
    #[arg(long, value_name = "K=V")]
    pub candidate_env: Vec<String>,
    /// Session options.
    #[command(flatten)]
    pub session: SessionArgs,
}

/// Options of `calibrate`.
#[derive(Debug, Clone, clap::Args)]
pub struct CalibrateArgs {
    /// The suite binary to run against itself (default: this suite binary).
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// A/A sessions, run one after another.
    #[arg(long, value_name = "S", default_value = "5")]
    pub sessions: String,
    /// Session options (`--runs` is pairs per session).
    #[command(flatten)]
    pub session: SessionArgs,
}

fn invalid(flag: &'static str, value: &str, reason: &str) -> Error {
    Error::InvalidFlag {
        flag,
        value: value.to_owned(),
        reason: reason.to_owned(),
    }
}

/// A percentage such as `2`, `2%` or `0.5`, as a fraction in [0, 1).
fn parse_pct(flag: &'static str, value: &str) -> Result<f64, Error> {
    let pct: f64 = value
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| invalid(flag, value, "expected a percentage such as 2 or 0.5"))?;
    if !(pct.is_finite() && (0.0..100.0).contains(&pct)) {
        return Err(invalid(flag, value, "must be from 0 to 100 (exclusive)"));
    }
    Ok(pct / 100.0)
}

fn parse_env(flag: &'static str, values: &[String]) -> Result<BTreeMap<String, String>, Error> {
    values
        .iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
            _ => Err(invalid(flag, kv, "expected NAME=VALUE")),
        })
        .collect()
}

fn settings(a: &SessionArgs, min_runs: usize) -> Result<RunSettings, Error> {
    Ok(RunSettings {
        runs: parse_count("--runs", &a.runs, min_runs)?,
        iterations: parse_count("--iterations", &a.iterations, 1)?,
        warmup: parse_count("--warmup", &a.warmup, 0)?,
        seed: parse_seed("--seed", a.seed.as_deref())?,
        timeout: Some(parse_secs("--timeout", &a.timeout)?),
        selection: a.names.selection(),
    })
}

/// This process's command line with the seed pinned.
fn command(seed: u64) -> Vec<String> {
    let mut args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--seed") {
        args.drain(i..(i + 2).min(args.len()));
    }
    args.retain(|a| !a.starts_with("--seed="));
    args.extend(["--seed".to_owned(), seed.to_string()]);
    args
}

fn this_binary(flag: &'static str) -> Result<PathBuf, Error> {
    std::env::current_exe().map_err(|e| invalid(flag, "<this binary>", &format!("cannot locate the current executable: {e}")))
}

/// Validate `compare`'s arguments. `own_suite`: this binary registers scenarios, so it can be
/// the default candidate.
pub(crate) fn compare_options(a: &CompareArgs, own_suite: bool) -> Result<CompareOptions, Error> {
    let settings = settings(&a.session, 2)?;
    let candidate = match (&a.candidate, own_suite) {
        (Some(p), _) => p.clone(),
        (None, true) => this_binary("--candidate")?,
        (None, false) => return Err(invalid("--candidate", "", "required: this binary has no scenarios of its own")),
    };
    let floor = parse_pct("--noise-floor", &a.session.noise_floor)?;
    if floor == 0.0 {
        eprintln!("warning: --noise-floor 0: any significant change counts, however small");
    }
    if floor != DEFAULT_NOISE_FLOOR {
        eprintln!(
            "note: noise floor {:.2}% (default {:.0}%)",
            floor * 100.0,
            DEFAULT_NOISE_FLOOR * 100.0
        );
    }
    Ok(CompareOptions {
        baseline: a.baseline.clone(),
        candidate,
        out: a.session.out.clone(),
        command: command(settings.seed),
        settings,
        calibration: a.calibration.clone(),
        floor,
        fail_on_regression: a.fail_on_regression,
        resources: a.resources,
        mde_report: parse_pct("--mde-report", &a.mde_report)?,
        baseline_env: parse_env("--baseline-env", &a.baseline_env)?,
        candidate_env: parse_env("--candidate-env", &a.candidate_env)?,
    })
}

/// Validate `calibrate`'s arguments.
pub(crate) fn calibrate_options(a: &CalibrateArgs, own_suite: bool) -> Result<CalibrateOptions, Error> {
    let binary = match (&a.binary, own_suite) {
        (Some(p), _) => super::options::existing("--binary", p)?,
        (None, true) => this_binary("--binary")?,
        (None, false) => return Err(invalid("--binary", "", "required: this binary has no scenarios of its own")),
    };
    Ok(CalibrateOptions {
        binary,
        out: a.session.out.clone(),
        settings: settings(&a.session, 2)?,
        sessions: parse_count("--sessions", &a.sessions, 2)?,
        floor: parse_pct("--noise-floor", &a.session.noise_floor)?,
    })
}
