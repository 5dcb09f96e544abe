//! Processes that measured on a slowed machine (the speed probe, `suite/speed_probe.rs`), and
//! what a row does with them.
//!
//! The run's full speed is the 2nd percentile of every timed process's faster reading: low, so
//! a run that met the fast machine in only a few percent of its processes still finds it (at the
//! 10th percentile a run with 5% of them fast took a slowed speed for full and flagged nothing),
//! and not the minimum, so one reading from a rare faster state does not set it. A process whose
//! readings were both over [`SLOWED_FACTOR`] times that, or one over [`SLOWED_ONE_END`], met a
//! slowed machine. They are left out of the row's statistics and named where enough processes
//! ran at full speed to stand for the row: [`MIN_FULL_SPEED`], or a majority of at least two (a
//! row of 3 processes). On a VM whose core's neighbour takes its throughput most of the time, a
//! row's 30 processes spread over the run would otherwise mix two machines in proportions set by
//! chance, `ok` at either speed or between (docs/criterion.md). With fewer at full speed every
//! process is kept and the row is `unstable`, never `ok`; a row slowed in most of its processes
//! is `unstable` either way ([`Slowed::flags_row`](super::Slowed::flags_row)).

use serde::{Deserialize, Serialize};

use super::{MetricSample, Outcome, RunRecord, Slowed};
use crate::stats::sample::quantile_sorted;

/// A process met a slowed machine when both its probe readings were over this factor of the
/// run's fastest...
pub const SLOWED_FACTOR: f64 = 1.25;
/// ...or one of them was over this factor. One reading alone is held to more because an end
/// reading ran 1.2-1.45x slow right after some routines that had themselves run at full speed
/// (unicode-segmentation's `chars/scalar/*`, start reading at full speed, the value equal to
/// processes with both at full speed), while readings where the code ran 1.3-1.8x slower were
/// 1.55-2.75x (docs/speed-probe-2026-12-06/scalar-ends.txt). With 5% noise on a steady machine neither trips in 1% of processes (tests).
pub const SLOWED_ONE_END: f64 = 1.6;
/// The quantile of the run's probes taken as its full speed.
const FASTEST_QUANTILE: f64 = 0.02;
/// Processes at full speed that stand for a row whatever the number slowed: as many as a
/// measurement gets by default (`--repeat`), so the interval is no weaker than a default row's.
pub const MIN_FULL_SPEED: usize = 5;

/// The run's full-speed probe: `None` with fewer than three probes (too few to tell a slowed
/// machine from a fast moment).
pub fn fastest_probe(records: &[RunRecord]) -> Option<f64> {
    let mut probes: Vec<f64> = records
        .iter()
        .filter(|r| r.outcome == Outcome::Passed)
        .filter_map(RunRecord::speed_probe)
        .map(|[start, end]| start.min(end))
        .filter(|p| p.is_finite() && *p > 0.0)
        .collect();
    if probes.len() < 3 {
        return None;
    }
    probes.sort_by(f64::total_cmp);
    Some(quantile_sorted(&probes, FASTEST_QUANTILE))
}

/// A full speed met by an earlier run on this host since it booted (`run/speed_memory.rs`). A run
/// spent wholly on a slowed machine has no full speed of its own to judge against: its fastest
/// is a slowed one, and it flags nothing (unicode-segmentation's `unicode_word_indices`, whose 3 s
/// run read the probe at 42.8 µs at its fastest against its sibling binaries' 24.5 µs, was
/// 1.41-1.47x criterion's and `ok`: docs/criterion-agreement-2026-12-07b).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RememberedSpeed {
    /// The speed probe at full speed, ns: the lowest run's [`fastest_probe`] on this boot.
    pub probe_ns: f64,
    /// The boot it holds for (`/proc/sys/kernel/random/boot_id`): another boot may be another
    /// machine under the same name.
    pub boot_id: String,
    /// The CPU model it was met on.
    pub cpu: String,
    /// When a run last met it (RFC 3339).
    pub confirmed_at: String,
    /// The same, in seconds since the epoch: what the age check reads.
    pub confirmed_unix_s: u64,
    /// The output directory of that run.
    pub by: String,
}

/// The full speed a run's processes are judged against, and whether it is the remembered one:
/// the run's own fastest, unless the run never met the remembered speed (its fastest over
/// [`SLOWED_FACTOR`] times that) or has too few probes for a fastest of its own. A run that met
/// full speed is judged as it was before any memory, whatever an earlier run saw.
pub fn full_speed(records: &[RunRecord], remembered: Option<f64>) -> Option<(f64, bool)> {
    let probed = || records.iter().any(|r| r.outcome == Outcome::Passed && r.speed_probe().is_some());
    match (fastest_probe(records), remembered) {
        (Some(own), Some(m)) if own > SLOWED_FACTOR * m => Some((m, true)),
        (Some(own), _) => Some((own, false)),
        (None, Some(m)) if probed() => Some((m, true)),
        (None, _) => None,
    }
}

/// Splits a row's `(run index, sample)` pairs: the slowed ones are removed from `samples` when
/// enough stay (at least [`MIN_FULL_SPEED`], or at least two and as many as were slowed); the returned
/// [`Slowed`] names them. `None` when no process met a slowed machine.
/// `fastest_of(run index)` is the full speed that process is judged against, and whether it is
/// remembered (`summarize.rs`: one for a run, one per host for merged shards).
pub(super) fn split_slowed(samples: &mut Vec<(usize, &MetricSample)>, fastest_of: &dyn Fn(usize) -> Option<(f64, bool)>) -> Option<Slowed> {
    // The slowed ones, each with its probe over the full speed it was judged against.
    let over = |(i, m): &(usize, &MetricSample)| -> Option<(f64, bool)> {
        let (fastest, remembered) = fastest_of(*i)?;
        let probe = m.speed_probe_ns.filter(|p| is_slowed(*p, fastest))?;
        Some((probe[0].max(probe[1]) / fastest, remembered))
    };
    let (slow, fast): (Vec<_>, Vec<_>) = samples.iter().copied().partition(|s| over(s).is_some());
    let (k, n) = (slow.len(), samples.len());
    if k == 0 {
        return None;
    }
    let remembered = slow.iter().any(|s| over(s).is_some_and(|o| o.1));
    let mut ratios: Vec<f64> = slow.iter().filter_map(|s| over(s).map(|o| o.0)).collect();
    ratios.sort_by(f64::total_cmp);
    let left_out = if full_speed_stands(n - k, k) {
        *samples = fast;
        slow.iter().map(|(i, m)| (*i, m.value)).collect()
    } else {
        Vec::new()
    };
    Some(Slowed {
        processes: k,
        of: n,
        probe_ratio: quantile_sorted(&ratios, 0.5),
        left_out,
        remembered,
    })
}

/// A process whose probe read `[start, end]` met a slowed machine, against the run's `fastest`.
pub(crate) fn is_slowed([start, end]: [f64; 2], fastest: f64) -> bool {
    start.min(end) > SLOWED_FACTOR * fastest || start.max(end) > SLOWED_ONE_END * fastest
}

/// `fast` processes at full speed stand for a row beside `slow` slowed ones: at least
/// [`MIN_FULL_SPEED`], or at least two and no fewer than the slowed.
pub(crate) fn full_speed_stands(fast: usize, slow: usize) -> bool {
    fast >= 2 && (fast >= slow || fast >= MIN_FULL_SPEED)
}

#[cfg(test)]
#[path = "slowed_tests.rs"]
mod tests;
