//! Raw arguments of `compare` and `calibrate` (clap) and their validation into
//! [`CompareOptions`] / [`CalibrateOptions`].

use std::path::PathBuf;

use super::options::COMPARE;
use super::options::invalid;
use super::values::{count, env_pair, fraction};
use crate::compare::{CalibrateOptions, CompareOptions, DEFAULT_NOISE_FLOOR, RunSettings};
use crate::errors::Error;

/// Options every interleaved session shares.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("seed", |a| a.help("Seed of the pair schedule (printed and stored) [default: fresh]")))]
#[command(mut_args(|a| COMPARE.state_in_help(a, None)))]
pub struct SessionArgs {
    /// Name filters, libtest-style.
    #[command(flatten)]
    pub names: super::args::FilterArgs,
    /// A/B pairs per scenario (one process per run).
    #[arg(long, value_name = "N", value_parser = count::<2>, default_value = "10")]
    pub runs: usize,
    /// Iterations, warm-up, seed, timeout, output directory.
    #[command(flatten)]
    pub measure: super::args::MeasureArgs,
    /// Smallest noise band, in percent: changes inside it are never regressions.
    #[arg(long, value_name = "PCT", value_parser = fraction, default_value = "2")]
    pub noise_floor: f64,
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
    #[arg(long, value_name = "PCT", value_parser = fraction, default_value = "5")]
    pub mde_report: f64,
    /// Env for baseline processes only, K=V (repeatable).
    #[arg(long, value_name = "K=V", value_parser = env_pair)]
    pub baseline_env: Vec<(String, String)>,
    /// Env for candidate processes only, K=V (repeatable): compare an env knob on one binary.
    #[arg(long, value_name = "K=V", value_parser = env_pair)]
    pub candidate_env: Vec<(String, String)>,
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
    #[arg(long, value_name = "S", value_parser = count::<2>, default_value = "5")]
    pub sessions: usize,
    /// Session options (`--runs` is pairs per session).
    #[command(flatten)]
    pub session: SessionArgs,
}

fn settings(a: &SessionArgs) -> RunSettings {
    let m = a.measure.resolve(&COMPARE);
    RunSettings {
        runs: a.runs,
        iterations: m.iterations,
        warmup: m.warmup,
        seed: m.seed,
        timeout: Some(m.timeout),
        selection: a.names.selection(),
    }
}

fn this_binary(flag: &'static str) -> Result<PathBuf, Error> {
    std::env::current_exe().map_err(|e| invalid(flag, "<this binary>", format!("cannot locate the current executable: {e}")))
}

/// Validate `compare`'s arguments. `own_suite`: this binary registers scenarios, so it can be
/// the default candidate.
pub(crate) fn compare_options(a: &CompareArgs, own_suite: bool) -> Result<CompareOptions, Error> {
    let settings = settings(&a.session);
    let candidate = match (&a.candidate, own_suite) {
        (Some(p), _) => p.clone(),
        (None, true) => this_binary("--candidate")?,
        (None, false) => return Err(invalid("--candidate", "", "required: this binary has no scenarios of its own")),
    };
    let floor = a.session.noise_floor;
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
        out: a.session.measure.out.clone(),
        command: crate::reproduce::this_command(settings.seed),
        settings,
        calibration: a.calibration.clone(),
        floor,
        fail_on_regression: a.fail_on_regression,
        resources: a.resources,
        mde_report: a.mde_report,
        baseline_env: a.baseline_env.iter().cloned().collect(),
        candidate_env: a.candidate_env.iter().cloned().collect(),
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
        out: a.session.measure.out.clone(),
        settings: settings(&a.session),
        sessions: a.sessions,
        floor: a.session.noise_floor,
    })
}
