//! History, shards and resume through real runs of the fixture suites: `history add/check`,
//! `run --partition` + `merge`, and `run --resume` after a `kill -9`.

#[path = "common/kill_mid_run.rs"]
mod kill_mid_run;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use harness::model::{ResultsFile, RunRecord};

const HISTORY: &str = env!("CARGO_BIN_EXE_fixture_history");
const OUTCOMES: &str = env!("CARGO_BIN_EXE_fixture_outcomes");

fn harness(bin: &str, args: &[&str], envs: &[(&str, String)]) -> Output {
    Command::new(bin)
        .args(args)
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("fixture runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn results(dir: &Path) -> ResultsFile {
    harness::report::read_results(dir).expect("results read back")
}

fn keys(r: &ResultsFile) -> BTreeSet<(String, usize)> {
    r.runs.iter().map(|x| (x.scenario.clone(), x.repetition)).collect()
}

/// 12 real runs of `history/` into one database, `history/work` scaled by `step` from run 7 on.
fn history_of_12(root: &Path, seed: u64, step: f64) -> PathBuf {
    let db = root.join("history.sqlite");
    for i in 1..=12u64 {
        let dir = root.join(format!("run{i}"));
        let scale = if i >= 7 { step } else { 1.0 };
        let seed = (seed * 1000 + i).to_string();
        let label = format!("run-{i}");
        let args = [
            "history/",
            "--repeat",
            "5",
            "--iterations",
            "3",
            "--warmup",
            "0",
            "--seed",
            &seed,
            "--out",
            p(&dir),
            "--history",
            p(&db),
            "--history-label",
            &label,
        ];
        let o = harness(HISTORY, &args, &[("FIXTURE_HISTORY_SCALE", scale.to_string())]);
        assert_eq!(o.status.code(), Some(0), "run {i}: {}", stderr(&o));
    }
    db
}

fn check(db: &Path, out: &Path) -> (Option<i32>, Vec<serde_json::Value>) {
    let o = harness(HISTORY, &["history", "check", "--db", p(db), "--out", p(out), "--window", "6"], &[]);
    let text = std::fs::read_to_string(out.join("changes.json")).unwrap_or_else(|_| panic!("changes.json written: {}", stderr(&o)));
    assert!(std::fs::read_to_string(out.join("index.html")).unwrap().contains("<svg"));
    (o.status.code(), serde_json::from_str(&text).unwrap())
}

#[test]
fn a_planted_ten_percent_step_at_run_7_is_reported_there_and_no_step_reports_nothing() {
    for seed in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let db = history_of_12(dir.path(), seed, 1.10);
        let (code, changes) = check(&db, &dir.path().join("check"));
        assert_eq!(code, Some(1), "seed {seed}: a change in the newest 6 runs exits 1: {changes:?}");
        assert_eq!(changes.len(), 1, "seed {seed}: only history/work changed: {changes:?}");
        let c = &changes[0];
        assert_eq!(c["name"], "history/work");
        assert_eq!(c["metric"], "latency_ns");
        assert_eq!(c["label"], "run-7", "seed {seed}: {c}");
        assert_eq!(c["run"], 7);
        let ratio = c["ratio"].as_f64().unwrap();
        assert!((1.07..1.13).contains(&ratio), "seed {seed}: ratio {ratio}");
        assert!(c["commit"].is_string() || c["commit"].is_null());

        let flat = tempfile::tempdir().unwrap();
        let db = history_of_12(flat.path(), seed, 1.0);
        let (code, changes) = check(&db, &flat.path().join("check"));
        assert_eq!((code, changes.len()), (Some(0), 0), "seed {seed}: no step, no change: {changes:?}");
    }
}

#[test]
fn history_add_stores_a_run_once_and_report_draws_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let db = dir.path().join("h.sqlite");
    let o = harness(HISTORY, &["history/", "--repeat", "3", "--seed", "5", "--out", p(&run)], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let add = |label: &str| harness(HISTORY, &["history", "add", p(&run), "--db", p(&db), "--label", label], &[]);
    assert_eq!(add("first").status.code(), Some(0));
    let again = add("second");
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("already holds this run") && stderr(&again).contains("h.sqlite"),
        "{}",
        stderr(&again)
    );
    let o = harness(
        HISTORY,
        &["history", "report", "--db", p(&db), "--out", p(&dir.path().join("rep"))],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(dir.path().join("rep/index.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 2, "one trend per measurement");
    // A history that is not there: an error naming it, and no file made.
    let missing = dir.path().join("missing.sqlite");
    let o = harness(
        HISTORY,
        &["history", "check", "--db", p(&missing), "--out", p(&dir.path().join("c"))],
        &[],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("missing.sqlite") && !missing.exists(), "{}", stderr(&o));
    // A database that is not one: an error naming it, exit 3.
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let o = harness(HISTORY, &["history", "add", p(&run), "--db", p(&junk)], &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("junk.sqlite"), "{}", stderr(&o));
}

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n);
    let base = ["history/", "--repeat", "4", "--seed", "9", "--out"];
    let whole = harness(HISTORY, &[&base[..], &[p(&d("whole"))]].concat(), &[]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    let mut shard_keys = Vec::new();
    for k in 1..=3 {
        let part = format!("{k}/3");
        let o = harness(
            HISTORY,
            &[&base[..], &[p(&d(&format!("s{k}"))), "--partition", &part]].concat(),
            &[],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        shard_keys.push(keys(&results(&d(&format!("s{k}")))));
    }
    for (i, a) in shard_keys.iter().enumerate() {
        assert!(!a.is_empty());
        for b in &shard_keys[i + 1..] {
            assert!(a.is_disjoint(b), "shards overlap");
        }
    }
    let o = harness(
        HISTORY,
        &["merge", p(&d("s3")), p(&d("s1")), p(&d("s2")), "--out", p(&d("merged"))],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let merged = results(&d("merged"));
    let whole = results(&d("whole"));
    assert_eq!(keys(&merged), keys(&whole));
    assert_eq!(merged.runs.len(), whole.runs.len());
    assert_eq!(
        merged.meta.plan.as_ref().unwrap().fingerprint,
        whole.meta.plan.as_ref().unwrap().fingerprint
    );
    assert_eq!(merged.meta.plan.as_ref().unwrap().shards.len(), 3);
    for f in ["results.jsonl", "results.csv", "index.html"] {
        assert!(d("merged").join(f).is_file(), "{f} written");
    }
    let jsonl = std::fs::read_to_string(d("merged/results.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), whole.runs.len());
    // junit.xml of the merged set: one testcase per scenario, as the unsharded run's.
    let junit = |dir: &str| {
        let xml = std::fs::read_to_string(d(dir).join("junit.xml")).unwrap();
        xml.matches("<testcase ").count()
    };
    assert_eq!(junit("merged"), junit("whole"));
    assert!(junit("merged") > 0);

    // A missing shard is named; a shard of another plan is refused.
    let o = harness(HISTORY, &["merge", p(&d("s1")), p(&d("s3")), "--out", p(&d("m2"))], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("2/3") && stderr(&o).contains("missing"), "{}", stderr(&o));
    let other = harness(
        HISTORY,
        &[
            "history/",
            "--repeat",
            "4",
            "--seed",
            "10",
            "--out",
            p(&d("o2")),
            "--partition",
            "2/3",
        ],
        &[],
    );
    assert_eq!(other.status.code(), Some(0));
    let o = harness(
        HISTORY,
        &["merge", p(&d("s1")), p(&d("o2")), p(&d("s3")), "--out", p(&d("m3"))],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("o2") && stderr(&o).contains("plan"), "{}", stderr(&o));
}

#[test]
fn resume_after_kill_9_finishes_the_plan_without_repeating_a_process() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let args = ["slow/", "--repeat", "10", "--test-threads", "1", "--seed", "4"];
    let jsonl = out_dir.join("results.jsonl");
    kill_mid_run::kill_after_runs(Command::new(OUTCOMES).args(args).arg("--out").arg(&out_dir), &jsonl, 3);
    let before: Vec<RunRecord> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(before.len() < 40, "killed before the end");

    // Another seed on the command line: --resume takes the interrupted run's.
    let o = harness(
        OUTCOMES,
        &["slow/", "--repeat", "10", "--test-threads", "1", "--resume", p(&out_dir)],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<RunRecord> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&lines[..before.len()], &before[..], "recorded runs are kept as they were");
    assert_eq!(lines.len(), 40, "exactly the plan: 4 scenarios x 10");
    let unique: BTreeSet<(String, usize)> = lines.iter().map(|r| (r.scenario.clone(), r.repetition)).collect();
    assert_eq!(unique.len(), 40, "no process ran twice");
    let r = results(&out_dir);
    assert_eq!(r.meta.seed, 4);
    assert_eq!(r.runs.len(), 40);
    let indices: BTreeSet<usize> = r.runs.iter().map(|x| x.run_index).collect();
    assert_eq!(indices.len(), 40, "run indices stay unique");

    // A different plan is refused, naming --resume.
    let o = harness(OUTCOMES, &["slow/", "--repeat", "3", "--resume", p(&out_dir)], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
}

#[test]
fn detect_shards_split_the_env_groups_and_cover_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let names = |d: &Path| -> BTreeSet<String> {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("detect.json")).unwrap()).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let detect = |tag: &str, extra: &[&str]| {
        let out = dir.path().join(tag);
        let args = [
            &[
                "detect",
                "history/ok",
                "history/env",
                "--shuffles",
                "1",
                "--isolated",
                "1",
                "--seed",
                "3",
                "--out",
                p(&out),
            ][..],
            extra,
        ]
        .concat();
        let o = harness(HISTORY, &args, &[]);
        assert_eq!(o.status.code(), Some(0), "{tag}: {}", stderr(&o));
        names(&out)
    };
    let whole = detect("whole", &[]);
    assert_eq!(whole.len(), 4, "history/ok and three env variants: {whole:?}");
    let a = detect("s1", &["--partition", "1/2"]);
    let b = detect("s2", &["--partition", "2/2"]);
    assert!(a.is_disjoint(&b), "{a:?} {b:?}");
    assert_eq!(a.len(), 2, "four groups, two a shard: {a:?}");
    assert_eq!(a.union(&b).cloned().collect::<BTreeSet<_>>(), whole);
}
