//! `DetectContext`: the detect section's data, with the who-affects-whom edges drawn from every
//! entry's culprits.

use super::super::inputs::{DetectEntry, DetectRun};

/// The `detect` section.
#[derive(Debug, Clone)]
pub(crate) struct DetectContext {
    pub run: DetectRun,
    pub entries: Vec<DetectEntry>,
    /// `(affected, cause, relation)` edges for the matrix: relation is `polluter`,
    /// `state-setter` or `cleaner`.
    pub edges: Vec<(String, String, &'static str)>,
}

impl DetectContext {
    /// The detect section, with the matrix edges drawn from every entry's culprits.
    pub(crate) fn build(run: DetectRun, entries: Vec<DetectEntry>) -> Self {
        let mut edges = Vec::new();
        for e in &entries {
            for (list, relation) in [
                (&e.polluters, "polluter"),
                (&e.state_setters, "state-setter"),
                (&e.cleaners, "cleaner"),
            ] {
                for cause in list {
                    edges.push((e.name.clone(), cause.clone(), relation));
                }
            }
        }
        DetectContext { run, entries, edges }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_edges_come_from_every_relation() {
        let entries: Vec<DetectEntry> = serde_json::from_str(
            r#"[{"name":"v","verdict":"victim","polluters":["p"],"cleaners":["c"],"failure_rate":null,"evidence":[]},
                {"name":"b","verdict":"brittle","state_setters":["s"]},
                {"name":"ok","verdict":"pass"}]"#,
        )
        .unwrap();
        let d = DetectContext::build(DetectRun::default(), entries);
        assert_eq!(
            d.edges,
            vec![
                ("v".to_string(), "p".to_string(), "polluter"),
                ("v".to_string(), "c".to_string(), "cleaner"),
                ("b".to_string(), "s".to_string(), "state-setter")
            ]
        );
    }
}
