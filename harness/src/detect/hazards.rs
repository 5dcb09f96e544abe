//! Environment hazards: every env var or current-directory change a scenario made, merged over
//! its runs (first `before`, last `after` per variable), reported even when nothing failed.

use super::probe::Observation;
use crate::model::EnvChange;

/// The changes `name` made across `observations`, one per variable, sorted by variable.
pub fn hazards(observations: &[&Observation]) -> Vec<EnvChange> {
    let mut out: Vec<EnvChange> = Vec::new();
    for o in observations {
        for c in &o.env_changes {
            match out.iter_mut().find(|h| h.name == c.name) {
                Some(h) => h.after = c.after.clone(),
                None => out.push(c.clone()),
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EvidenceKind, Outcome};

    #[test]
    fn merges_runs_per_variable() {
        let mk = |changes: Vec<EnvChange>| Observation {
            name: "x".into(),
            prefix: Default::default(),
            outcome: Outcome::Passed,
            metrics: vec![],
            env_changes: changes,
            kind: EvidenceKind::Order,
            seed: None,
            output: String::new(),
            seq: 0,
            wall: Default::default(),
        };
        let ch = |n: &str, b: Option<&str>, a: Option<&str>| EnvChange {
            name: n.into(),
            before: b.map(Into::into),
            after: a.map(Into::into),
        };
        let a = mk(vec![ch("V", None, Some("1")), ch("<cwd>", Some("/a"), Some("/tmp"))]);
        let b = mk(vec![ch("V", Some("0"), Some("2"))]);
        let h = hazards(&[&a, &b]);
        assert_eq!(h, vec![ch("<cwd>", Some("/a"), Some("/tmp")), ch("V", None, Some("2"))]);
    }
}
