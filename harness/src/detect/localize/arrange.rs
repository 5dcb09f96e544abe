//! Arranging one probe: run the anchor, a candidate set and the target in one process, in
//! that order as nearly as the target allows (exactly; by name order; by a libtest seed chosen
//! by prediction or tried), and read back which candidates ran in between.

use std::collections::{HashMap, HashSet};

use super::super::libtest_shuffle;
use super::super::probe::Observation;
use super::{Localizer, MAX_SEED_TRIES, PREDICTED_TRIES};
use crate::errors::Error;
use crate::model::{Evidence, EvidenceKind};

/// What one probe showed.
pub(super) struct Probe {
    /// Members of T seen between the anchor (or the start) and the target.
    pub between: Vec<String>,
    /// The target's observation, if it ran.
    pub target: Option<Observation>,
    /// Members of T that did not finish normally before the target (they cannot be culprits).
    pub crashed: Vec<String>,
}

impl Localizer<'_, '_, '_> {
    /// libtest, once its shuffles are predicted right: the run that puts the most of `t` between
    /// the anchor and the target (name order when it puts all of them there), chosen without
    /// running anything. `None`: predictions are not trusted.
    fn predicted_seed(
        &mut self,
        set: &[String],
        anchor: Option<&str>,
        (in_t, t_order): (&HashSet<&str>, &[String]),
        target: &str,
    ) -> Option<Option<u64>> {
        if self.unpredicted || !self.prober.shuffles_predicted() {
            return None;
        }
        // First as many of t as possible between anchor and target, then as much of t's own
        // order (the flipping run's) kept as possible, so a cleaner stays where it was.
        let rank: HashMap<&str, usize> = t_order.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        let m = t_order.len();
        let score = |order: &[String]| between_count(order, anchor, in_t, target) * (m * m + 1) + agreement(order, &rank);
        let mut sorted = set.to_vec();
        sorted.sort();
        let whole = between_count(&sorted, anchor, in_t, target) == in_t.len();
        if whole && (m > 64 || agreement(&sorted, &rank) == m * m.saturating_sub(1) / 2) {
            return Some(None);
        }
        // About 20 000 hashed names a probe: a thorough search for small sets, a few tries for big.
        let tries = (20_000 / set.len().max(1)).clamp(4, PREDICTED_TRIES);
        let (seed, _) = libtest_shuffle::best_seed(set, self.next_seed, tries, score)?;
        self.next_seed = self.next_seed.wrapping_add(tries as u64);
        Some(Some(seed))
    }

    /// Run `anchor`, then `t`, then `target`, as nearly as the target allows.
    pub(super) fn probe(&mut self, anchor: Option<&str>, t: &[String], target: &str, evidence: &mut Vec<Evidence>) -> Result<Probe, Error> {
        let in_t: HashSet<&str> = t.iter().map(String::as_str).collect();
        let mut set: Vec<String> = anchor.map(str::to_owned).into_iter().collect();
        set.extend(t.iter().cloned());
        set.push(target.to_owned());
        let mut key = set.clone();
        key.sort();
        let honours = self.target().honours_order();
        let attempts: Vec<Option<u64>> = if honours {
            vec![None]
        } else if let Some(seed) = self.predicted_seed(&set, anchor, (&in_t, t), target) {
            vec![seed]
        } else {
            let mut a = Vec::new();
            // A seed already seen to arrange this very set goes first.
            let known = self.orders.get(&key).and_then(|seen| {
                seen.iter()
                    .find(|(_, order)| arranged_in(order, anchor, &in_t, target))
                    .map(|(seed, _)| *seed)
            });
            a.extend(known);
            // Name order is known in advance: only run it when it puts candidates before the target.
            if known.is_none() && arranged(anchor, t, target) {
                a.push(None);
            }
            a.extend((0..MAX_SEED_TRIES).map(|_| {
                self.next_seed = self.next_seed.wrapping_add(1);
                Some(self.next_seed % 1_000_000_000)
            }));
            a
        };
        let mut last = Probe {
            between: vec![],
            target: None,
            crashed: vec![],
        };
        for seed in attempts {
            let Some(obs) = self.run(&set, seed, EvidenceKind::Localize)? else {
                break;
            };
            let executed: Vec<String> = obs.iter().filter(|o| o.ran()).map(|o| o.name.clone()).collect();
            if !honours && executed.len() == set.len() {
                self.orders.entry(key.clone()).or_default().push((seed, executed.clone()));
            }
            let tgt = obs.iter().find(|o| o.name == target && o.ran()).cloned();
            let crashed: Vec<String> = obs
                .iter()
                .filter(|o| {
                    o.ran() && o.name != target && o.outcome.is_failure() && !matches!(o.outcome, crate::model::Outcome::Failed { .. })
                })
                .map(|o| o.name.clone())
                .collect();
            let between: Vec<String> = match &tgt {
                Some(o) => {
                    let from = match anchor {
                        Some(a) => o.prefix.iter().position(|x| x == a).map(|i| i + 1),
                        None => Some(0),
                    };
                    from.map(|f| o.prefix[f..].iter().filter(|x| in_t.contains(x.as_str())).cloned().collect())
                        .unwrap_or_default()
                }
                None => vec![],
            };
            let (order, order_skipped) = Evidence::order_tail(&executed);
            evidence.push(Evidence {
                kind: EvidenceKind::Localize,
                order,
                order_skipped,
                seed,
                outcome: tgt
                    .as_ref()
                    .map_or("not_run".to_owned(), |o| o.outcome.status().as_str().to_owned()),
                detail: format!("{} of {} candidates ran before {target}", between.len(), t.len()),
                message: tgt.as_ref().and_then(Observation::message),
            });
            last = Probe {
                between,
                target: tgt,
                crashed,
            };
            if last.target.is_none() || !last.between.is_empty() || t.is_empty() {
                break;
            }
        }
        Ok(last)
    }
}

/// Pairs of `t` (up to 64 of them) that `order` runs in `t`'s own order (`rank`).
fn agreement(order: &[String], rank: &HashMap<&str, usize>) -> usize {
    if rank.len() > 64 {
        return 0;
    }
    let seq: Vec<usize> = order.iter().filter_map(|n| rank.get(n.as_str()).copied()).collect();
    (0..seq.len()).map(|i| seq[i + 1..].iter().filter(|&&b| b > seq[i]).count()).sum()
}

/// How many of `t` `order` runs between the anchor (or the start) and the target.
fn between_count(order: &[String], anchor: Option<&str>, t: &HashSet<&str>, target: &str) -> usize {
    let Some(tp) = order.iter().position(|x| x == target) else {
        return 0;
    };
    let from = match anchor {
        Some(a) => match order[..tp].iter().position(|x| x == a) {
            Some(i) => i + 1,
            None => return 0,
        },
        None => 0,
    };
    order[from..tp].iter().filter(|x| t.contains(x.as_str())).count()
}

/// Whether `order` ran the anchor, then at least one of `t`, then the target.
fn arranged_in(order: &[String], anchor: Option<&str>, t: &HashSet<&str>, target: &str) -> bool {
    between_count(order, anchor, t, target) > 0
}

/// Whether name order runs the anchor, then at least one of `t`, then the target.
fn arranged(anchor: Option<&str>, t: &[String], target: &str) -> bool {
    t.iter().any(|x| x.as_str() < target && anchor.is_none_or(|a| a < x.as_str()))
}
