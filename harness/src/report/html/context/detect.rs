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
    /// `(affected, cause, letters)`: how the cause acts, one capital per mechanism kind
    /// (`E`nv, `C`wd, `F`ile, `M`emory), for the matrix cells.
    pub marks: Vec<(String, String, String)>,
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
        let mut marks: Vec<(String, String, String)> = Vec::new();
        for e in &entries {
            for m in &e.mechanism {
                let letter = m.kind.chars().next().map_or(String::new(), |c| c.to_ascii_uppercase().to_string());
                match marks.iter_mut().find(|(a, c, _)| *a == e.name && *c == m.culprit) {
                    Some((_, _, l)) if !l.contains(&letter) => l.push_str(&letter),
                    Some(_) => {}
                    None => marks.push((e.name.clone(), m.culprit.clone(), letter)),
                }
            }
        }
        DetectContext {
            run,
            entries,
            edges,
            marks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_edges_come_from_every_relation() {
        let entries: Vec<DetectEntry> = serde_json::from_str(
            r#"[{"name":"v","verdict":"victim","polluters":["p"],"cleaners":["c"],"failure_rate":null,"evidence":[],
                  "mechanism":[{"kind":"env","name":"K","culprit":"p","fix":"f"},{"kind":"file","name":"/x","culprit":"p","fix":"f"},
                               {"kind":"env","name":"L","culprit":"p","fix":"f"}]},
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
        assert_eq!(d.marks, vec![("v".to_string(), "p".to_string(), "EF".to_string())]);
    }
}
