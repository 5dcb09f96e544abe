//! `variance_split`: between-process and within-process variance components (one-way random-effects ANOVA).
//!
//! Model `y_ij = mu + b_i + e_ij` with process effect `b_i ~ (0, s_b^2)` and iteration noise
//! `e_ij ~ (0, s_w^2)`. Method-of-moments (ANOVA) estimators, which allow unequal series
//! lengths (Searle, Casella & McCulloch, *Variance Components*, 1992, §3.5):
//! `s_w^2 = MSW`, `s_b^2 = max(0, (MSB - MSW) / m0)` with
//! `m0 = (N - sum m_i^2 / N) / (k - 1)` (the plain series length when balanced).
//! Kalibera & Jones (ISMM 2013) use the same split to decide where repetition pays: when
//! `s_b^2` dominates, more iterations per process cannot narrow the interval; more processes can.

use serde::{Deserialize, Serialize};

use super::errors::StatsError;

/// Variance components of values grouped by process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarianceSplit {
    /// Between-process variance component `s_b^2` (>= 0).
    pub between: f64,
    /// Within-process (iteration-to-iteration) variance `s_w^2`.
    pub within: f64,
    /// `between / (between + within)`, in [0, 1]; 0 when both are 0.
    pub between_share: f64,
}

/// Splits the variance of `groups` (one series per process) into between and within parts.
/// Needs at least 2 groups, each with at least 2 finite values.
pub fn variance_split(groups: &[Vec<f64>]) -> Result<VarianceSplit, StatsError> {
    if groups.len() < 2 {
        return Err(StatsError::TooFew {
            needed: 2,
            got: groups.len(),
        });
    }
    for (series, g) in groups.iter().enumerate() {
        if g.len() < 2 {
            return Err(StatsError::TooFew { needed: 2, got: g.len() });
        }
        if let Some(index) = g.iter().position(|x| !x.is_finite()) {
            return Err(StatsError::NonFiniteWithin {
                series,
                index,
                value: g[index],
            });
        }
    }
    let k = groups.len() as f64;
    let sizes: Vec<f64> = groups.iter().map(|g| g.len() as f64).collect();
    let n_total: f64 = sizes.iter().sum();
    let means: Vec<f64> = groups.iter().map(|g| g.iter().sum::<f64>() / g.len() as f64).collect();
    let grand = groups.iter().flatten().sum::<f64>() / n_total;
    let ss_between: f64 = means.iter().zip(&sizes).map(|(m, s)| s * (m - grand).powi(2)).sum();
    let ss_within: f64 = groups
        .iter()
        .zip(&means)
        .map(|(g, m)| g.iter().map(|x| (x - m).powi(2)).sum::<f64>())
        .sum();
    let msb = ss_between / (k - 1.0);
    let msw = ss_within / (n_total - k);
    let m0 = (n_total - sizes.iter().map(|s| s * s).sum::<f64>() / n_total) / (k - 1.0);
    let between = ((msb - msw) / m0).max(0.0);
    let within = msw;
    let total = between + within;
    let between_share = if total > 0.0 { between / total } else { 0.0 };
    Ok(VarianceSplit {
        between,
        within,
        between_share,
    })
}

/// Three levels for runs spread over machines (`merge` of shards): between machines, between
/// processes on a machine, and within a process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreeLevelSplit {
    /// Between-machine component, from the per-process values grouped by machine.
    pub machines: f64,
    /// Between-process component, from the iterations grouped by process.
    pub processes: f64,
    /// Within-process (iteration) variance.
    pub iterations: f64,
}

impl ThreeLevelSplit {
    /// What to add to narrow the interval: the level with the largest component.
    pub fn advice(&self) -> &'static str {
        if self.machines >= self.processes && self.machines >= self.iterations {
            "machines (shards on more hosts, or one host type)"
        } else if self.processes >= self.iterations {
            "processes (--repeat)"
        } else {
            "iterations (--iterations)"
        }
    }
}

/// The three-level split of `machines`, each a list of processes, each its iterations. The
/// machine component is the one-way split of per-process means by machine; the process and
/// iteration components are the one-way split of iterations by process on each machine,
/// averaged over machines (Kalibera & Jones's nested design, one level up). Needs 2 machines,
/// each with 2 processes of 2 iterations.
pub fn three_level_split(machines: &[Vec<Vec<f64>>]) -> Result<ThreeLevelSplit, StatsError> {
    let means: Vec<Vec<f64>> = machines
        .iter()
        .map(|procs| procs.iter().map(|its| its.iter().sum::<f64>() / its.len().max(1) as f64).collect())
        .collect();
    let m = variance_split(&means)?;
    let (mut processes, mut iterations) = (0.0, 0.0);
    for procs in machines {
        let s = variance_split(procs)?;
        processes += s.between / machines.len() as f64;
        iterations += s.within / machines.len() as f64;
    }
    Ok(ThreeLevelSplit {
        machines: m.between,
        processes,
        iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::testutil::{normal, rng};

    /// Hand-computed: groups {1,3}, {5,7}, {9,11}. Each group has variance 2 (MSW = 2); group
    /// means 2, 6, 10 give MSB = 2 * (16 + 0 + 16) / 2 = 32; s_b^2 = (32 - 2) / 2 = 15.
    #[test]
    fn constructed_split_matches_hand_computation() {
        let g = vec![vec![1.0, 3.0], vec![5.0, 7.0], vec![9.0, 11.0]];
        let s = variance_split(&g).unwrap();
        assert!((s.within - 2.0).abs() < 1e-12);
        assert!((s.between - 15.0).abs() < 1e-12);
        assert!((s.between_share - 15.0 / 17.0).abs() < 1e-12);
        // No between-process difference: the component clamps at 0, share 0.
        let g = vec![vec![1.0, 3.0], vec![1.0, 3.0]];
        assert_eq!(variance_split(&g).unwrap().between_share, 0.0);
        assert!(variance_split(&[vec![1.0, 2.0]]).is_err());
    }

    /// Simulated machine sd 3, process sd 1, iteration sd 0.5 on 4 machines x 10 processes x
    /// 10 iterations: averaged over 100 seeds the machine component is found near 9 (the
    /// process level adds 1 + 0.25/10 to its within part only) and the advice names machines.
    #[test]
    fn three_levels_recover_a_machine_effect() {
        let mut r = rng(11);
        let (mut mach, mut proc_, mut iter) = (0.0, 0.0, 0.0);
        let reps = 100;
        for _ in 0..reps {
            let machines: Vec<Vec<Vec<f64>>> = (0..4)
                .map(|_| {
                    let m = 3.0 * normal(&mut r);
                    (0..10)
                        .map(|_| {
                            let p = m + normal(&mut r);
                            (0..10).map(|_| p + 0.5 * normal(&mut r)).collect()
                        })
                        .collect()
                })
                .collect();
            let s = three_level_split(&machines).unwrap();
            assert!(s.machines >= 0.0 && s.processes >= 0.0);
            mach += s.machines / reps as f64;
            proc_ += s.processes / reps as f64;
            iter += s.iterations / reps as f64;
        }
        eprintln!("three levels, truth 9 / 1 / 0.25: mean estimates {mach:.2} / {proc_:.2} / {iter:.3}");
        assert!((mach - 9.0).abs() < 1.5, "machines {mach}");
        assert!((proc_ - 1.0).abs() < 0.15, "processes {proc_}");
        assert!((iter - 0.25).abs() < 0.02, "iterations {iter}");
        let s = ThreeLevelSplit {
            machines: mach,
            processes: 1.0,
            iterations: iter,
        };
        assert!(s.advice().starts_with("machines"));
    }

    /// Simulated s_b = 2, s_w = 1 (share 0.8), 40 processes of 20 iterations: the estimates
    /// land near the truth on average over 200 seeds.
    #[test]
    fn recovers_simulated_components() {
        let mut r = rng(7);
        let (mut b, mut w) = (0.0, 0.0);
        let reps = 200;
        for _ in 0..reps {
            let groups: Vec<Vec<f64>> = (0..40)
                .map(|_| {
                    let level = 10.0 + 2.0 * normal(&mut r);
                    (0..20).map(|_| level + normal(&mut r)).collect()
                })
                .collect();
            let s = variance_split(&groups).unwrap();
            b += s.between / reps as f64;
            w += s.within / reps as f64;
        }
        eprintln!("variance split, truth between 4 within 1: mean estimates {b:.3} / {w:.3}");
        assert!((b - 4.0).abs() < 0.25, "between {b}");
        assert!((w - 1.0).abs() < 0.03, "within {w}");
    }
}
