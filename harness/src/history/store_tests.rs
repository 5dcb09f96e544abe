use super::*;

/// A finished run of one measurement with `values` (one per process), built from JSON so the
/// test reads like the file it stands for.
pub(crate) fn results(started_at: &str, seed: u64, commit: &str, values: &[f64]) -> ResultsFile {
    let runs: Vec<serde_json::Value> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::json!({"run_index": i, "scenario": "m/<x>", "kind": "measure", "repetition": i,
                "outcome": {"status": "passed"}, "wall_ns": 1, "started_ms": 0.0,
                "metrics": [{"name": "latency_ns", "unit": "ns", "better": "lower", "value": v}]})
        })
        .collect();
    serde_json::from_value(serde_json::json!({
        "meta": {"format_version": 1, "harness_version": "0", "binary": "suite", "command": ["suite"], "seed": seed,
            "order": [], "repeat": values.len(), "iterations": 1, "warmup": 0, "target_ci": null, "test_threads": 1,
            "started_at": started_at, "finished_at": started_at,
            "host": {"hostname": "h", "cpu": "c", "logical_cores": 1, "os": "o", "kernel": "k", "arch": "a", "rustc": "r",
                "git_commit": commit, "load_start": null, "load_end": null, "gpu_driver": null}},
        "summaries": [], "runs": runs
    }))
    .expect("test results parse")
}

#[test]
fn a_run_is_stored_with_every_process_value_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let mut s = Store::open(&db).unwrap();
    let id = s
        .add(&results("2026-01-01T00:00:00Z", 1, "abc-dirty", &[1.0, 2.0, 3.0]), Some("v1"))
        .unwrap();
    let runs = s.runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, id);
    assert_eq!(runs[0].commit.as_deref(), Some("abc"));
    assert!(runs[0].dirty);
    assert_eq!(runs[0].label.as_deref(), Some("v1"));
    let values: Vec<f64> = s.values().unwrap().iter().map(|v| v.value).collect();
    assert_eq!(values, vec![1.0, 2.0, 3.0]);
    drop(s);
    // Reopening keeps everything and does not migrate again.
    let s = Store::open(&db).unwrap();
    assert_eq!(s.runs().unwrap().len(), 1);
    let version: u32 = s.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn the_same_run_twice_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let mut s = Store::open(&db).unwrap();
    let r = results("2026-01-01T00:00:00Z", 1, "abc", &[1.0, 2.0]);
    s.add(&r, None).unwrap();
    let err = s.add(&r, Some("again")).unwrap_err();
    assert!(matches!(err, Error::HistoryDuplicate { .. }), "{err}");
    assert!(err.to_string().contains("h.sqlite"), "{err}");
    assert_eq!(s.values().unwrap().len(), 2);
    // Another seed is another run.
    s.add(&results("2026-01-01T00:00:00Z", 2, "abc", &[1.0]), None).unwrap();
    assert_eq!(s.runs().unwrap().len(), 2);
}

#[test]
fn a_damaged_or_newer_database_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let err = Store::open(&junk).err().expect("junk refused");
    assert!(matches!(err, Error::History { .. }));
    assert!(err.to_string().contains("junk.sqlite"), "{err}");
    assert_eq!(std::fs::read(&junk).unwrap(), vec![b'x'; 4096], "the file is left as it was");

    let newer = dir.path().join("newer.sqlite");
    Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let err = Store::open(&newer).err().expect("newer refused");
    assert!(
        err.to_string().contains("newer.sqlite") && err.to_string().contains("newer than"),
        "{err}"
    );
}

#[test]
fn a_locked_database_fails_clearly_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let mut s = Store::open(&db).unwrap();
    s.add(&results("2026-01-01T00:00:00Z", 1, "abc", &[1.0, 2.0]), None).unwrap();
    // Another connection holds the write lock; ours waits BUSY_TIMEOUT, then gives up.
    let other = Connection::open(&db).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    s.conn.busy_timeout(std::time::Duration::from_millis(50)).unwrap();
    let err = s.add(&results("2026-01-02T00:00:00Z", 1, "abc", &[3.0]), None).unwrap_err();
    assert!(
        matches!(err, Error::History { .. }) && err.to_string().contains("h.sqlite"),
        "{err}"
    );
    assert!(err.to_string().contains("locked"), "{err}");
    other.execute_batch("ROLLBACK").unwrap();
    assert_eq!(s.runs().unwrap().len(), 1, "the stored run is intact");
    assert_eq!(s.values().unwrap().len(), 2);
    // And the next add works.
    s.add(&results("2026-01-02T00:00:00Z", 1, "abc", &[3.0]), None).unwrap();
    assert_eq!(s.values().unwrap().len(), 3);
}

/// A level shift stored across a runner change (kernel 6.1 -> 6.8) is labelled "environment
/// changed" with what differs, and does not fail the check; the same shift on one runner does.
#[test]
fn a_change_at_a_fingerprint_change_is_labelled_environment_changed() {
    for (after_kernel, expect_env) in [("6.8", true), ("6.1", false)] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.sqlite");
        let mut s = Store::open(&db).unwrap();
        for i in 0..16 {
            let level = if i < 8 { 100.0 } else { 130.0 };
            let values: Vec<f64> = (0..5).map(|k| level + f64::from(k) * 0.5).collect();
            let mut r = results(&format!("2026-01-{:02}T00:00:00Z", i + 1), 1, "abc", &values);
            let kernel = if i < 8 { "6.1" } else { after_kernel };
            r.meta.host.fingerprint = [("kernel".to_owned(), kernel.to_owned())].into();
            s.add(&r, None).unwrap();
        }
        assert_eq!(s.runs().unwrap()[15].fingerprint["kernel"], after_kernel);
        drop(s);
        let (changes, recent) = crate::history::commands::check(&db, &dir.path().join("out"), 8).unwrap();
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].run, 9);
        assert_eq!(changes[0].environment_changed(), expect_env, "{changes:?}");
        assert_eq!(recent, !expect_env, "an environment change does not fail the check");
        let json = std::fs::read_to_string(dir.path().join("out/changes.json")).unwrap();
        assert_eq!(json.contains("kernel: 6.1 -> 6.8"), expect_env, "{json}");
        let html = std::fs::read_to_string(dir.path().join("out/index.html")).unwrap();
        assert_eq!(html.contains("environment changed: kernel: 6.1 -&gt; 6.8"), expect_env);
    }
}
