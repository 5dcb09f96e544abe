//! Explain the change points of counted `instructions` series: the functions whose instructions
//! per call changed from the last run before the change to the first run after it.

use super::store::{Store, StoredRun};
use super::{Change, Series};
use crate::errors::Error;
use crate::explain::{SideProfile, explain};

/// Fill `explain` of each change of an `instructions` series with a counter source, where both
/// runs around it kept profiles. The totals are the two runs' levels, so the entries and
/// `other` add up to the step between those runs.
pub(crate) fn attach(changes: &mut [Change], series: &[Series], runs: &[StoredRun], store: &Store) -> Result<(), Error> {
    for c in changes.iter_mut().filter(|c| c.metric == "instructions") {
        let Some(source) = c.source.clone() else { continue };
        let Some(s) = series
            .iter()
            .find(|s| s.scenario == c.name && s.metric == c.metric && s.source.as_deref() == Some(source.as_str()))
        else {
            continue;
        };
        // `c.run` is 1-based: the first run after the change is at position c.run - 1.
        let Some(k) = s.points.iter().position(|p| p.run + 1 == c.run).filter(|k| *k > 0) else {
            continue;
        };
        let (before, after) = (&s.points[k - 1], &s.points[k]);
        let side =
            |run: usize| -> Result<Option<SideProfile>, Error> { Ok(SideProfile::mean(&store.profiles(runs[run].id, &c.name, &source)?)) };
        if let (Some(b), Some(a)) = (side(before.run)?, side(after.run)?) {
            c.explain = Some(explain(&b, &a, before.level, after.level));
            c.explain_note = b.note.or(a.note);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::model::{ExplainStatus, ResultsFile};

    /// A counted run: `checksum` costs `work` per call, `extra` (if any) runs too.
    fn counted(k: usize, work: f64, extra: Option<f64>) -> ResultsFile {
        let mut functions = vec![serde_json::json!(["app::checksum", work]), serde_json::json!(["app::main", 500.0])];
        functions.extend(extra.map(|e| serde_json::json!(["app::extra", e])));
        // `main` wobbles a little, as a hash map's seed makes it.
        let main = 500.0 + (k % 3) as f64;
        functions[1] = serde_json::json!(["app::main", main]);
        let total = work + main + extra.unwrap_or(0.0);
        let at = format!("2026-01-{:02}T00:00:00Z", k + 1);
        let runs: Vec<serde_json::Value> = (0..2)
            .map(|i| {
                serde_json::json!({"run_index": i, "scenario": "s", "kind": "measure", "repetition": i,
                    "outcome": {"status": "passed"}, "wall_ns": 1, "started_ms": 0.0,
                    "metrics": [{"name": "instructions", "unit": "count", "better": "lower", "value": total,
                        "source": "valgrind-callgrind 3.19",
                        "profile": {"functions": functions, "rest": 0.0, "note": extra.map(|_| "no symbols in /lib/x.so")}}]})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "meta": {"format_version": 1, "harness_version": "0", "binary": "suite", "command": ["suite"], "seed": k,
                "order": [], "repeat": 2, "iterations": 1, "warmup": 0, "target_ci": null, "test_threads": 1,
                "started_at": at, "finished_at": at,
                "host": {"hostname": "h", "cpu": "c", "logical_cores": 1, "os": "o", "kernel": "k", "arch": "a", "rustc": "r",
                    "git_commit": format!("c{k}"), "load_start": null, "load_end": null, "gpu_driver": null}},
            "summaries": [], "runs": runs
        }))
        .expect("test results parse")
    }

    #[test]
    fn a_change_point_of_a_counted_series_names_the_functions_behind_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.sqlite");
        let mut store = super::Store::open(&db).unwrap();
        for k in 0..12 {
            let r = if k < 6 {
                counted(k, 1000.0, None)
            } else {
                counted(k, 1500.0, Some(100.0))
            };
            store.add(&r, None).unwrap();
        }
        drop(store);
        let (changes, _) = crate::history::commands::check(&db, &dir.path().join("out"), 3).unwrap();
        let c = changes
            .iter()
            .find(|c| c.metric == "instructions")
            .unwrap_or_else(|| panic!("the step is found: {changes:?}"));
        assert_eq!(c.commit.as_deref(), Some("c6"));
        let x = c.explain.as_ref().expect("a counted change is explained");
        assert_eq!((x[0].function.as_str(), x[0].delta), ("app::checksum", 500.0));
        assert_eq!((x[1].function.as_str(), x[1].status), ("app::extra", Some(ExplainStatus::New)));
        let sum: f64 = x.iter().map(|e| e.delta).sum();
        let step = 600.0 + (6 % 3) as f64 - (5 % 3) as f64;
        assert!((sum - step).abs() < 1e-6, "entries + other = the step between the runs: {sum}");
        let printed = crate::history::commands::change_text(c);
        let under: Vec<&str> = printed.lines().skip(1).collect();
        assert!(under[0].starts_with("    app::checksum +500 instr/call"), "{printed}");
        assert!(under[1].starts_with("    app::extra (new) +100"), "{printed}");
        assert_eq!(
            c.explain_note.as_deref(),
            Some("no symbols in /lib/x.so"),
            "the after side's no-symbols note"
        );
        assert!(printed.ends_with("\n    note: no symbols in /lib/x.so"), "{printed}");
        let json = std::fs::read_to_string(dir.path().join("out/changes.json")).unwrap();
        assert!(json.contains("\"explain\"") && json.contains("app::checksum"), "{json}");
    }
}
