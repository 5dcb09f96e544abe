//! Raw arguments of `compare` and `calibrate` (clap) and their validation into
//! [`CompareOptions`] / [`CalibrateOptions`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::options::{parse_count, parse_secs, parse_seed};
use crate::compare::{BaseRef, CalibrateOptions, CompareOptions, DEFAULT_NOISE_FLOOR, RunSettings};
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
    #[arg(long, value_name = "PATH", required_unless_present = "base_ref", conflicts_with = "base_ref")]
    pub baseline: Option<PathBuf>,
    /// Build the baseline from this git ref (temporary worktree) and the candidate from the working
    /// tree, both `cargo build --release -p PACKAGE --bin BIN`, then compare them.
    #[arg(long, value_name = "REF", conflicts_with = "candidate")]
    pub base_ref: Option<String>,
    /// Package built for `--base-ref`.
    #[arg(long, value_name = "NAME", default_value = "scenarios", requires = "base_ref")]
    pub package: String,
    /// Binary built for `--base-ref` (default: the package's name).
    #[arg(long, value_name = "NAME", requires = "base_ref")]
    pub bin: Option<String>,
    /// Candidate: a suite binary or a result directory (default: this suite binary).
    #[arg(long, value_name = "PATH")]
    pub candidate: Option<PathBuf>,
    /// calibration.json from `calibrate`: per-scenario noise bands.
    #[arg(long, value_name = "PATH")]
    pub calibration: Option<PathBuf>,
    /// Margin of practical relevance, in percent: `unchanged` means the interval lies inside
    /// +-margin, `regressed`/`improved` that it lies wholly beyond it (and q <= 0.05).
    #[arg(long, value_name = "PCT", default_value = "5")]
    pub margin: String,
    /// Time for the whole comparison (`3m`, `600s`, `1h`): after the first `--runs` pairs, only
    /// undecided scenarios get more pairs, looked at sequentially with alpha spending.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,
    /// Extra A/A pairs (baseline against itself), in percent of each scenario's pairs (at least
    /// 3): when they move beyond chance the machine was too noisy and verdicts are downgraded.
    /// 0 turns the control off.
    #[arg(long, value_name = "PCT", default_value = "20")]
    pub null_control: String,
    /// Exit with status 1 when any scenario regressed (for CI gating).
    #[arg(long)]
    pub fail_on_regression: bool,
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

/// A duration such as `600s`, `3m`, `1h` or `90` (seconds).
fn parse_duration(flag: &'static str, value: &str) -> Result<Duration, Error> {
    let v = value.trim();
    let (num, unit) = match v.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&v[..i], &v[i..]),
        None => (v, "s"),
    };
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(invalid(flag, value, "expected a duration such as 600s, 3m or 1h")),
    };
    let n: f64 = num.trim().parse().map_err(|_| invalid(flag, value, "expected a duration such as 600s, 3m or 1h"))?;
    if !(n.is_finite() && n > 0.0) {
        return Err(invalid(flag, value, "must be a positive duration"));
    }
    Ok(Duration::from_secs_f64(n * scale))
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
    let base_ref = a.base_ref.as_ref().map(|r| BaseRef {
        git_ref: r.clone(),
        package: a.package.clone(),
        bin: a.bin.clone().unwrap_or_else(|| a.package.clone()),
    });
    let candidate = match (&a.candidate, own_suite) {
        (Some(p), _) => p.clone(),
        // Built from the working tree by `--base-ref`.
        _ if base_ref.is_some() => PathBuf::new(),
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
        baseline: a.baseline.clone().unwrap_or_default(),
        candidate,
        base_ref,
        out: a.session.out.clone(),
        command: command(settings.seed),
        settings,
        calibration: a.calibration.clone(),
        floor,
        margin: match parse_pct("--margin", &a.margin)? {
            0.0 => return Err(invalid("--margin", &a.margin, "must be above 0: unchanged needs a margin to lie inside")),
            m => m,
        },
        budget: a.budget.as_deref().map(|b| parse_duration("--budget", b)).transpose()?,
        null_control: parse_pct("--null-control", &a.null_control)?,
        fail_on_regression: a.fail_on_regression,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_take_seconds_minutes_and_hours_and_name_the_flag_when_bad() {
        assert_eq!(parse_duration("--budget", "600s").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("--budget", "3m").unwrap(), Duration::from_secs(180));
        assert_eq!(parse_duration("--budget", "1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("--budget", "90").unwrap(), Duration::from_secs(90));
        for bad in ["3x", "-1m", "0s", "m"] {
            let e = parse_duration("--budget", bad).unwrap_err().to_string();
            assert!(e.contains("--budget"), "{e}");
        }
    }
}
