//! `summarize`: the one call per scenario x metric that turns per-process values into a `Summary`.
//!
//! The unit of repetition is the process (Kalibera & Jones, ISMM 2013; Georges, Buytaert &
//! Eeckhout, OOPSLA 2007): the caller reduces each process's iterations to one value first, and
//! may pass the iterations themselves for diagnostics only (variance split, autocorrelation).

use serde::{Deserialize, Serialize};

use super::autocorr::mean_lag1_autocorrelation;
use super::dist::t_quantile;
use super::errors::{StatsError, check_probability};
use super::interval::Interval;
use super::median_ci::median_interval;
use super::outliers::tukey_outliers;
// The API lists these with `Summary`; they live with the code that computes them.
pub use super::outliers::{Outlier, Severity};
use super::sample::{Sample, check_finite, quantile_sorted};
pub use super::variance_split::VarianceSplit;
use super::variance_split::variance_split;

/// Which central value a summary reports and builds its interval around.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Center {
    /// `exp(mean(ln x))`, for positive, time-like metrics whose noise is multiplicative.
    GeometricMean,
    /// The plain mean, for metrics that can be zero or negative.
    ArithmeticMean,
}

/// "Unstable" when at least this many severe outliers are flagged...
pub const UNSTABLE_MIN_SEVERE: usize = 2;
/// ...and they make up at least this share of the processes (so 2 of 30, 5 of 100).
pub const UNSTABLE_SEVERE_SHARE: f64 = 0.05;
/// "Unstable" when the mean lag-1 autocorrelation of the iterations exceeds this: at rho = 0.5
/// an AR(1) series is worth a third of its length in independent values, the in-process state
/// is drifting rather than fluctuating.
pub const UNSTABLE_AUTOCORR: f64 = 0.5;
/// "Unstable" when, in at least [`UNSTABLE_MIN_SEVERE`] processes making up
/// [`UNSTABLE_SEVERE_SHARE`] of n, the samples over twice the process's median hold more than
/// this share of its total: spikes then put the process's mean above 1/(1 - 0.2) = 1.25x its
/// spike-free time, outside the agreement band the criterion drop-in promises.
pub const UNSTABLE_SPIKE_SHARE: f64 = 0.2;
/// "Unstable" when the middle half of the processes (first to third quartile) span over this
/// factor (four processes or more, positive values): the number then depends on the process
/// (code layout, where the allocator put the inputs, a neighbour), and no one value in the
/// interval stands for it. One process off alone (a preemption) is the outlier rule's. Between 5
/// processes with 5% noise it never fires, with 15% in under 2% of rows (summary_tests.rs).
pub const UNSTABLE_SPREAD: f64 = 1.5;

/// "Unstable" when the 95% interval reaches beyond this factor of the value on either side (four
/// processes or more, positive values): a number known no better than [0.8, 1.25] of itself
/// cannot be said to agree with another within that band (the criterion drop-in's promise), nor
/// to have moved by less. Between 5 processes it fires with probability
/// P(chi2_4 > 4 (ln 1.25 / 1.24 sigma)^2): 1.2% at 10% noise, 84% at 30%, never seen at 5%
/// (summary_tests.rs).
pub const UNSTABLE_WIDTH: f64 = 1.25;

/// Everything the reports say about one scenario x metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of processes (per-process values).
    pub n: usize,
    /// Arithmetic mean of the per-process values.
    pub mean: f64,
    /// Median of the per-process values.
    pub median: f64,
    /// Sample standard deviation (n - 1); 0 when n = 1.
    pub std_dev: f64,
    /// Coefficient of variation `std_dev / |mean|`; 0 when the mean is 0.
    pub cv: f64,
    /// Smallest per-process value.
    pub min: f64,
    /// Largest per-process value.
    pub max: f64,
    /// Which center `center_value` and `ci` describe.
    pub center: Center,
    /// The geometric or arithmetic mean, per `center`.
    pub center_value: f64,
    /// Student-t interval for the center (on logs, then exponentiated, for the geometric mean).
    /// `None` when n < 2 or the values are exact.
    pub ci: Option<Interval>,
    /// All values identical (a deterministic counter): the value is exact, not estimated.
    pub exact: bool,
    /// `(high - low) / 2 / |center_value|`; `Some(0.0)` when exact, so a stopping rule on it
    /// stops; `None` when n < 2 or the center is 0.
    pub rel_half_width: Option<f64>,
    /// Distribution-free interval for the median (order statistics); `None` when n < 2 or exact.
    pub median_ci: Option<Interval>,
    /// Tukey-fence outliers among the per-process values (on logs for a geometric center).
    pub outliers: Vec<Outlier>,
    /// Between/within-process variance components of the iterations, on the same scale as the
    /// center (logs for a geometric center, so the components are relative variances).
    pub variance_split: Option<VarianceSplit>,
    /// Mean lag-1 autocorrelation of the within-process series, same scale.
    pub lag1_autocorr: Option<f64>,
    /// At least [`UNSTABLE_MIN_SEVERE`] severe outliers making up at least
    /// [`UNSTABLE_SEVERE_SHARE`] of n, or `lag1_autocorr` above [`UNSTABLE_AUTOCORR`].
    pub unstable: bool,
    /// Why it is unstable, in words for the terminal, the HTML and results.json; `None` when
    /// stable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unstable_reason: Option<String>,
}

/// Summarizes one value per process, with the in-process iterations for diagnostics.
///
/// `positive` asks for the geometric mean; it falls back to the arithmetic mean when any value
/// is <= 0. `level` is the confidence of both intervals (0.95 in reports). `within`, when given,
/// needs one series per process. n = 1 gives point values only; n = 0 is an error.
pub fn summarize(per_process: &[f64], within: Option<&[Vec<f64>]>, positive: bool, level: f64) -> Result<Summary, StatsError> {
    check_inputs(per_process, within, level)?;
    let n = per_process.len();
    let geometric = positive && per_process.iter().all(|&x| x > 0.0);
    let center = if geometric { Center::GeometricMean } else { Center::ArithmeticMean };
    let to_scale = |x: f64| if geometric { x.ln() } else { x };
    let from_scale = |y: f64| if geometric { y.exp() } else { y };

    let (diag_split, diag_autocorr) = within_diagnostics(within, geometric);
    let Ok(sample) = Sample::new(per_process) else {
        return Ok(single_value(per_process[0], center, diag_split, diag_autocorr));
    };

    let scaled: Vec<f64> = per_process.iter().map(|&x| to_scale(x)).collect();
    let scaled = Sample::new(&scaled).expect("ln of finite positive values is finite");
    let (mean, std_dev) = (sample.mean(), sample.std_dev());
    let (min, max) = (sample.min(), sample.max());
    let exact = min == max;
    // exp(ln x) need not return x exactly; an exact value must be reported as given.
    let center_value = if exact { min } else { from_scale(scaled.mean()) };

    // Student-t interval on the working scale: ybar +- t(1 - a/2, n - 1) s / sqrt(n), mapped
    // back with exp for the geometric mean (the interval for exp(E ln X)).
    let ci = (!exact).then(|| {
        let t = t_quantile(0.5 + level / 2.0, (n - 1) as f64);
        let half = t * scaled.std_err();
        Interval {
            low: from_scale(scaled.mean() - half),
            high: from_scale(scaled.mean() + half),
            level,
        }
    });
    let rel_half_width = match &ci {
        _ if exact => Some(0.0),
        Some(ci) if center_value != 0.0 => Some(ci.half_width() / center_value.abs()),
        _ => None,
    };
    let median_ci = if exact { None } else { Some(median_interval(&sample, level)?) };
    let outliers = tukey_outliers(&sample, to_scale);
    let severe = outliers.iter().filter(|o| o.severity == Severity::Severe).count();
    let many_severe = severe >= UNSTABLE_MIN_SEVERE && severe as f64 >= UNSTABLE_SEVERE_SHARE * n as f64;
    let mut reasons = Vec::new();
    if many_severe {
        reasons.push(format!("{severe} of {n} processes are severe outliers"));
    }
    reasons.extend(geometric.then(|| spread_reason(per_process)).flatten());
    reasons.extend(
        ci.as_ref()
            .filter(|_| geometric && n >= 4)
            .and_then(|ci| width_reason(ci, center_value)),
    );
    reasons.extend(autocorr_reason(diag_autocorr));
    reasons.extend(within.filter(|_| positive).and_then(spike_reason));
    let unstable = !reasons.is_empty();

    Ok(Summary {
        n,
        mean,
        median: sample.median(),
        std_dev,
        cv: if mean != 0.0 { std_dev / mean.abs() } else { 0.0 },
        min,
        max,
        center,
        center_value,
        ci,
        exact,
        rel_half_width,
        median_ci,
        outliers,
        variance_split: diag_split,
        lag1_autocorr: diag_autocorr,
        unstable,
        unstable_reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
    })
}

/// The checks every summary starts with: a valid level, finite values, and one finite
/// iteration series per process when iterations are given.
fn check_inputs(per_process: &[f64], within: Option<&[Vec<f64>]>, level: f64) -> Result<(), StatsError> {
    check_probability("level", level)?;
    check_finite(per_process)?;
    let n = per_process.len();
    if n == 0 {
        return Err(StatsError::TooFew { needed: 1, got: 0 });
    }
    let Some(w) = within else {
        return Ok(());
    };
    if w.len() != n {
        return Err(StatsError::WithinMismatch {
            series: w.len(),
            values: n,
        });
    }
    for (series, s) in w.iter().enumerate() {
        if let Some(index) = s.iter().position(|x| !x.is_finite()) {
            return Err(StatsError::NonFiniteWithin {
                series,
                index,
                value: s[index],
            });
        }
    }
    Ok(())
}

/// One process: its value, no interval (nothing to say about spread between processes).
fn single_value(x: f64, center: Center, variance_split: Option<VarianceSplit>, lag1_autocorr: Option<f64>) -> Summary {
    Summary {
        n: 1,
        mean: x,
        median: x,
        std_dev: 0.0,
        cv: 0.0,
        min: x,
        max: x,
        center,
        center_value: x,
        ci: None,
        exact: false,
        rel_half_width: None,
        median_ci: None,
        outliers: Vec::new(),
        variance_split,
        lag1_autocorr,
        unstable: lag1_autocorr.is_some_and(|r| r > UNSTABLE_AUTOCORR),
        unstable_reason: autocorr_reason(lag1_autocorr),
    }
}

fn autocorr_reason(lag1: Option<f64>) -> Option<String> {
    lag1.filter(|&r| r > UNSTABLE_AUTOCORR)
        .map(|r| format!("iterations strongly autocorrelated (lag-1 {r:.2})"))
}

/// Share of a series' total held by its spikes, the samples over twice its median; `None` for
/// fewer than 10 samples or a non-positive total.
pub fn spike_share(series: &[f64]) -> Option<f64> {
    let total: f64 = series.iter().sum();
    if series.len() < 10 || total <= 0.0 {
        return None;
    }
    let median = Sample::new(series).ok()?.median();
    let spikes: f64 = series.iter().filter(|&&x| x > 2.0 * median).sum();
    Some(spikes / total)
}

/// The spike check of [`UNSTABLE_SPIKE_SHARE`], in words when it trips.
fn spread_reason(per_process: &[f64]) -> Option<String> {
    if per_process.len() < 4 {
        return None;
    }
    let mut sorted = per_process.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile_sorted(&sorted, 0.25), quantile_sorted(&sorted, 0.75));
    (q3 > UNSTABLE_SPREAD * q1).then(|| format!("processes disagree: the middle half of them span {:.1}x", q3 / q1))
}

/// The interval check of [`UNSTABLE_WIDTH`], in words when it trips.
fn width_reason(ci: &Interval, center: f64) -> Option<String> {
    let reach = (ci.high / center).max(center / ci.low);
    (reach > UNSTABLE_WIDTH).then(|| {
        format!(
            "imprecise: the 95% interval reaches {:.0}% from the value; more processes narrow it",
            100.0 * (ci.high / center - 1.0).max(1.0 - ci.low / center)
        )
    })
}

fn spike_reason(within: &[Vec<f64>]) -> Option<String> {
    let n = within.len();
    let spiky = within
        .iter()
        .filter(|s| spike_share(s).is_some_and(|x| x > UNSTABLE_SPIKE_SHARE))
        .count();
    (spiky >= UNSTABLE_MIN_SEVERE && spiky as f64 >= UNSTABLE_SEVERE_SHARE * n as f64).then(|| {
        format!("a few samples carry most of the time: in {spiky} of {n} processes samples over twice the median hold over a fifth of it")
    })
}

/// Variance split and mean lag-1 autocorrelation of the iterations, on log scale when the
/// center is geometric and every iteration value is positive.
fn within_diagnostics(within: Option<&[Vec<f64>]>, geometric: bool) -> (Option<VarianceSplit>, Option<f64>) {
    let Some(w) = within else { return (None, None) };
    let logs = geometric && w.iter().flatten().all(|&x| x > 0.0);
    let scaled: Vec<Vec<f64>> = w
        .iter()
        .map(|s| s.iter().map(|&x| if logs { x.ln() } else { x }).collect())
        .collect();
    (variance_split(&scaled).ok(), mean_lag1_autocorrelation(&scaled))
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
