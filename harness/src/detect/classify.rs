//! Verdicts from observations: [`initial`] sorts a scenario by its isolated and shared outcomes
//! into pass / fail / flaky or a victim / brittle candidate that localization then settles;
//! [`failure_rate`] gives a flaky scenario's rate with its 95% Wilson interval.

use super::probe::Observation;
use crate::model::FailureRate;
use crate::stats::wilson;

/// Isolated runs a victim or brittle candidate gets before it is called order-dependent, unless
/// its culprits explain every run of it and fewer suffice (`settle::confirm_bound`): a 50% flaky
/// scenario shows the same outcome in 10 isolated runs with probability 0.2%.
pub const CANDIDATE_ISOLATED: usize = 10;
/// Observations a flaky scenario gets at least, for its failure-rate interval.
pub const FLAKY_MIN_RUNS: usize = 20;

/// What the observations so far say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initial {
    /// Passed alone and in every shared run.
    Pass,
    /// Failed alone and in every shared run.
    Fail,
    /// Passed alone, failed in some shared run.
    VictimCandidate,
    /// Failed alone, passed in some shared run.
    BrittleCandidate,
    /// Alone, it both passed and failed.
    Flaky,
}

/// Classify from isolated and shared observations (`not_run` ignored; a skip counts as not failing).
pub fn initial(isolated: &[&Observation], shared: &[&Observation]) -> Initial {
    let iso: Vec<bool> = isolated.iter().filter(|o| o.ran()).map(|o| o.failed()).collect();
    let sh: Vec<bool> = shared.iter().filter(|o| o.ran()).map(|o| o.failed()).collect();
    let iso_fail = iso.iter().any(|&f| f);
    let iso_pass = iso.iter().any(|&f| !f);
    match (iso_pass, iso_fail) {
        (true, true) => Initial::Flaky,
        (false, true) => {
            if sh.iter().any(|&f| !f) {
                Initial::BrittleCandidate
            } else {
                Initial::Fail
            }
        }
        // No isolated result at all counts as passing alone: shared runs decide.
        _ => {
            if sh.iter().any(|&f| f) {
                if iso.is_empty() && sh.iter().all(|&f| f) {
                    Initial::Fail
                } else {
                    Initial::VictimCandidate
                }
            } else {
                Initial::Pass
            }
        }
    }
}

/// Failures among all observations that ran, with the 95% Wilson interval.
pub fn failure_rate(observations: &[&Observation]) -> FailureRate {
    let ran: Vec<&&Observation> = observations.iter().filter(|o| o.ran()).collect();
    let n = ran.len() as u64;
    let k = ran.iter().filter(|o| o.failed()).count() as u64;
    let ci = wilson(k, n, 0.95);
    FailureRate {
        estimate: if n == 0 { 0.0 } else { k as f64 / n as f64 },
        low: ci.low,
        high: ci.high,
        k,
        n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EvidenceKind, Outcome};

    fn obs(pass: bool) -> Observation {
        Observation {
            name: "x".into(),
            prefix: Default::default(),
            outcome: if pass {
                Outcome::Passed
            } else {
                Outcome::Failed { message: "boom".into() }
            },
            metrics: vec![],
            env_changes: vec![],
            kind: EvidenceKind::Isolated,
            seed: None,
            output: String::new(),
            seq: 0,
            wall: Default::default(),
        }
    }

    fn classify(iso: &[bool], sh: &[bool]) -> Initial {
        let i: Vec<Observation> = iso.iter().map(|&p| obs(p)).collect();
        let s: Vec<Observation> = sh.iter().map(|&p| obs(p)).collect();
        initial(&i.iter().collect::<Vec<_>>(), &s.iter().collect::<Vec<_>>())
    }

    #[test]
    fn the_five_shapes() {
        assert_eq!(classify(&[true, true], &[true, true]), Initial::Pass);
        assert_eq!(classify(&[false, false], &[false]), Initial::Fail);
        assert_eq!(classify(&[true, true], &[true, false]), Initial::VictimCandidate);
        assert_eq!(classify(&[false, false], &[false, true]), Initial::BrittleCandidate);
        assert_eq!(classify(&[true, false], &[true]), Initial::Flaky);
        // Crashes are failures; not-run is no evidence.
        let mut c = obs(true);
        c.outcome = Outcome::Crashed {
            signal: "SIGABRT".into(),
            signal_number: 6,
        };
        let mut nr = obs(true);
        nr.outcome = Outcome::NotRun;
        assert_eq!(initial(&[&c, &nr], &[&c]), Initial::Fail);
    }

    #[test]
    fn failure_rate_interval_covers_the_estimate() {
        let o: Vec<Observation> = (0..20).map(|i| obs(i % 4 != 0)).collect();
        let r = failure_rate(&o.iter().collect::<Vec<_>>());
        assert_eq!((r.k, r.n), (5, 20));
        assert!(r.low < 0.25 && 0.25 < r.high && r.low > 0.05 && r.high < 0.5);
    }
}
