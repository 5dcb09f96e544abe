//! Raw arguments of `compare` and `calibrate` (clap) and their validation into
//! [`CompareOptions`] / [`CalibrateOptions`].

use std::path::PathBuf;
use std::time::Duration;

use super::options::COMPARE;
use super::options::invalid;
use super::values::{count, env_pair, fraction, positive_fraction};
use crate::compare::{BaseRef, CalibrateOptions, CompareOptions, DEFAULT_NOISE_FLOOR, RunSettings};
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
    /// GPU sample rules and clock lock.
    #[command(flatten)]
    pub gpu: super::gpu_args::GpuArgs,
}

/// Options of `compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct CompareArgs {
    /// Baseline: a suite binary (interleaved runs) or a result directory (results.json).
    #[arg(long, value_name = "PATH", required_unless_present = "base_ref", conflicts_with = "base_ref")]
    pub baseline: Option<PathBuf>,
    /// Build the baseline from this git ref (a build worktree, cached per commit) and the
    /// candidate from the working tree, both as --bin or --bench says, then compare them.
    #[arg(long, value_name = "REF", conflicts_with = "candidate")]
    pub base_ref: Option<String>,
    /// What --base-ref builds.
    #[command(flatten)]
    pub build: super::build_target_args::BuildTargetArgs,
    /// Candidate: a suite binary or a result directory (default: this suite binary).
    #[arg(long, value_name = "PATH")]
    pub candidate: Option<PathBuf>,
    /// calibration.json from `calibrate`: per-scenario noise bands.
    #[arg(long, value_name = "PATH")]
    pub calibration: Option<PathBuf>,
    /// Margin of practical relevance, in percent: `unchanged` means the interval lies inside
    /// +-margin, `regressed`/`improved` that it lies wholly beyond it (and q <= 0.05).
    #[arg(long, value_name = "PCT", value_parser = positive_fraction, default_value = "5")]
    pub margin: f64,
    /// Margin of counter rows (`--counters`), in percent: counts move between processes by
    /// layout alone (well under 1% in the default suite), so their margin is tighter.
    #[arg(long, value_name = "PCT", value_parser = positive_fraction, default_value = "1")]
    pub counter_margin: f64,
    /// Time for the whole comparison (`3m`, `600s`, `1h`): after the first `--runs` pairs, only
    /// undecided scenarios get more pairs, looked at sequentially with alpha spending.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub budget: Option<Duration>,
    /// Extra A/A pairs (baseline against itself), in percent of each scenario's pairs (at least
    /// 3): when they move beyond chance the machine was too noisy and verdicts are downgraded.
    /// 0 turns the control off [default: 20].
    #[arg(long, value_name = "PCT", value_parser = fraction)]
    pub null_control: Option<f64>,
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

fn settings(a: &SessionArgs) -> Result<RunSettings, Error> {
    let m = a.measure.resolve(&COMPARE);
    Ok(RunSettings {
        runs: a.runs,
        iterations: m.iterations,
        warmup: m.warmup,
        seed: m.seed,
        timeout: Some(m.timeout),
        selection: a.names.selection(),
        gpu: Some(a.gpu.settings()?),
        counters: a.measure.counter_settings()?,
        counter_pairs: a.measure.counter_processes,
    })
}

/// A duration such as `600s`, `3m`, `1h` or `90` (seconds).
pub(super) fn duration(s: &str) -> Result<Duration, String> {
    let v = s.trim();
    let bad = || "expected a duration such as 600s, 3m or 1h".to_owned();
    let (num, unit) = match v.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&v[..i], &v[i..]),
        None => (v, "s"),
    };
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(bad()),
    };
    let n: f64 = num.trim().parse().map_err(|_| bad())?;
    if !(n.is_finite() && n > 0.0 && n * scale < 1e9) {
        return Err("must be a positive duration".to_owned());
    }
    Ok(Duration::from_secs_f64(n * scale))
}

fn this_binary(flag: &'static str) -> Result<PathBuf, Error> {
    std::env::current_exe().map_err(|e| invalid(flag, "<this binary>", format!("cannot locate the current executable: {e}")))
}

/// Validate `compare`'s arguments. `own_suite`: this binary registers scenarios, so it can be
/// the default candidate.
pub(crate) fn compare_options(a: &CompareArgs, own_suite: bool) -> Result<CompareOptions, Error> {
    let settings = settings(&a.session)?;
    if a.base_ref.is_none() && a.build.any() {
        return Err(invalid(
            "--base-ref",
            "",
            "required by --package, --bin, --bench, --features and --manifest-path (they say what it builds)",
        ));
    }
    let base_ref = a.base_ref.as_ref().map(|r| BaseRef {
        git_ref: r.clone(),
        target: a.build.target(),
    });
    let candidate = match (&a.candidate, own_suite) {
        (Some(p), _) => p.clone(),
        // Built from the working tree by `--base-ref`.
        _ if base_ref.is_some() => PathBuf::new(),
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
        baseline: a.baseline.clone().unwrap_or_default(),
        candidate,
        base_ref,
        margin: a.margin,
        counter_margin: a.counter_margin,
        budget: a.budget,
        null_control: a.null_control.unwrap_or(0.2),
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
        settings: settings(&a.session)?,
        sessions: a.sessions,
        floor: a.session.noise_floor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_take_seconds_minutes_and_hours() {
        assert_eq!(duration("600s"), Ok(Duration::from_secs(600)));
        assert_eq!(duration("3m"), Ok(Duration::from_secs(180)));
        assert_eq!(duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(duration("90"), Ok(Duration::from_secs(90)));
        for bad in ["3x", "-1m", "0s", "m"] {
            assert!(duration(bad).is_err(), "{bad}");
        }
    }
}
