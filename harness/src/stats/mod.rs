//! Statistics over per-process values: `summarize` into a `Summary`, intervals, outliers, tests.
//!
//! One value per process is the unit of repetition; see `docs/statistics.md` for the method,
//! the constants and the simulations that back each claim. Each file holds one concept:
//! [`Sample`] (validated input), [`Interval`], [`summarize`] (the runner's entry point),
//! proportions, hypothesis tests with Benjamini-Hochberg, and power.
//!
//! Imports nothing of the crate: pure functions of numbers.

pub(crate) mod autocorr;
pub(crate) mod changepoint;
pub(crate) mod dist;
pub(crate) mod errors;
pub(crate) mod gpu_sampling;
pub(crate) mod hypothesis;
pub(crate) mod interval;
pub(crate) mod median_ci;
pub(crate) mod outliers;
pub(crate) mod power;
// Clopper-Pearson needs Beta quantiles (statrs); only detect, compare and bisect ask for them.
#[cfg(feature = "cli")]
pub(crate) mod proportion;
pub(crate) mod sample;
pub(crate) mod signed_rank;
pub(crate) mod summary;
pub(crate) mod trimmed;
pub(crate) mod variance_split;

#[cfg(test)]
pub(crate) mod testutil;
#[cfg(test)]
mod within_centre_tests;

pub use autocorr::{lag1_autocorrelation, mean_lag1_autocorrelation};
pub use changepoint::{ChangePoint, ChangePointConfig, change_points, run_level};
pub use errors::StatsError;
pub use hypothesis::{
    TestResult, benjamini_hochberg, mann_whitney_u, paired_t, t_interval, tost_equivalent, welch_interval, welch_parts, welch_t,
};
pub use interval::Interval;
pub use median_ci::median_interval;
pub use outliers::{MILD_IQR, MIN_N_FOR_OUTLIERS, Outlier, SEVERE_IQR, Severity, tukey_outliers};
pub use power::{minimal_detectable_effect, required_n_paired};
#[cfg(feature = "cli")]
pub use proportion::{clopper_pearson, clopper_pearson_upper, wilson};
pub use sample::Sample;
pub use signed_rank::{hodges_lehmann, wilcoxon_signed_rank};
pub use summary::{Center, Summary, UNSTABLE_AUTOCORR, UNSTABLE_MIN_SEVERE, UNSTABLE_SEVERE_SHARE, summarize};
pub use trimmed::{trimmed_mean, yuen, yuen_parts};
pub use variance_split::{ThreeLevelSplit, VarianceSplit, three_level_split, variance_split};
