//! `detect` end to end on real processes: the fixture suite (`fixture_order`) and the plain
//! `#[test]` fixture (`fixture_planted`), each compared with a model of expected verdicts,
//! culprits, cleaners and hazards; a crash, a hang and a grandchild holding the output open.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[path = "common/interpose.rs"]
mod common;

/// name -> (verdict, polluters, state_setters, cleaners)
type Model = &'static [(
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
)];

const SUITE_MODEL: Model = &[
    ("a_pass", "pass", &[], &[], &[]),
    ("b_victim_of_late", "victim", &["z_polluter_late"], &[], &[]),
    ("c_polluter_one", "pass", &[], &[], &[]),
    ("d_state_setter", "pass", &[], &[], &[]),
    ("e_polluter_env", "pass", &[], &[], &[]),
    ("f_cleaner", "pass", &[], &[], &[]),
    ("g_victim_env", "victim", &["e_polluter_env"], &[], &["f_cleaner"]),
    ("h_crasher", "fail", &[], &[], &[]),
    ("i_flaky", "flaky", &[], &[], &[]),
    ("j_always_fails", "fail", &[], &[], &[]),
    ("k_brittle", "brittle", &[], &["d_state_setter"], &[]),
    ("l_measure_knob", "pass", &[], &[], &[]),
    ("m_victim_two", "victim", &["c_polluter_one", "x_polluter_two"], &[], &[]),
    ("n_env_mutator", "pass", &[], &[], &[]),
    ("o_cwd_changer", "pass", &[], &[], &[]),
    ("p_victim_cwd", "victim", &["o_cwd_changer"], &[], &[]),
    ("r_knob_setter", "pass", &[], &[], &[]),
    ("x_polluter_two", "pass", &[], &[], &[]),
    ("z_polluter_late", "pass", &[], &[], &[]),
];

const LIBTEST_MODEL: Model = &[
    ("alpha_victim_of_zulu", "victim", &["zulu_polluter"], &[], &[]),
    ("bravo_polluter_one", "pass", &[], &[], &[]),
    ("charlie_state_setter", "pass", &[], &[], &[]),
    ("echo_polluter_env", "pass", &[], &[], &[]),
    ("foxtrot_cleaner", "pass", &[], &[], &[]),
    ("golf_victim_env", "victim", &["echo_polluter_env"], &[], &["foxtrot_cleaner"]),
    ("hotel_crasher", "fail", &[], &[], &[]),
    ("india_flaky", "flaky", &[], &[], &[]),
    ("juliet_always_fails", "fail", &[], &[], &[]),
    ("kilo_brittle", "brittle", &[], &["charlie_state_setter"], &[]),
    ("lima_cwd_changer", "pass", &[], &[], &[]),
    ("mike_victim_two", "victim", &["bravo_polluter_one", "xray_polluter_two"], &[], &[]),
    ("november_background_sleeper", "pass", &[], &[], &[]),
    ("oscar_hangs", "pass", &[], &[], &[]),
    ("papa_victim_cwd", "victim", &["lima_cwd_changer"], &[], &[]),
    ("quebec_pass", "pass", &[], &[], &[]),
    ("xray_polluter_two", "pass", &[], &[], &[]),
    ("zulu_polluter", "pass", &[], &[], &[]),
];

fn out_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("harness-detect-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn read(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("detect.json")).expect("detect.json written");
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("detect-run.json")).unwrap()).unwrap();
    assert_eq!(run["format_version"], 1);
    assert!(run["runs"]["total"].as_u64().unwrap() > 0);
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

fn strings(v: &Value) -> Vec<String> {
    let mut s: Vec<String> = v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect();
    s.sort();
    s
}

fn entry<'a>(entries: &'a [Value], name: &str) -> &'a Value {
    entries
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

fn check_model(entries: &[Value], model: Model) {
    assert_eq!(entries.len(), model.len());
    for (name, verdict, polluters, setters, cleaners) in model {
        let e = entry(entries, name);
        let ctx = format!("{name}: {}", serde_json::to_string_pretty(e).unwrap());
        assert_eq!(e["verdict"], *verdict, "{ctx}");
        assert_eq!(strings(&e["polluters"]), *polluters, "{ctx}");
        assert_eq!(strings(&e["state_setters"]), *setters, "{ctx}");
        assert_eq!(strings(&e["cleaners"]), *cleaners, "{ctx}");
        assert_eq!(e["failure_rate"].is_null(), *verdict != "flaky", "{ctx}");
        assert!(!e["evidence"].as_array().unwrap().is_empty(), "{ctx}");
    }
}

/// `(kind, name, culprit)` of each mechanism, sorted.
fn mechanisms(e: &Value) -> Vec<(String, String, String)> {
    let mut m: Vec<(String, String, String)> = e["mechanism"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let s = |k: &str| m[k].as_str().unwrap().to_owned();
            (s("kind"), s("name"), s("culprit"))
        })
        .collect();
    m.sort();
    m
}

fn memory(culprit: &str) -> (String, String, String) {
    (
        "memory".into(),
        "in-process state (no env, cwd or file effect observed)".into(),
        culprit.into(),
    )
}

fn hazard_names(e: &Value) -> Vec<String> {
    e["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn fixture_suite_verdicts_culprits_hazards_and_value_shift() {
    let dir = out_dir("suite");
    let status = Command::new(env!("CARGO_BIN_EXE_fixture_order"))
        .env("HARNESS_INTERPOSE_LIB", common::interpose_lib())
        .args([
            "detect",
            "--seed",
            "11",
            "--shuffles",
            "12",
            "--timeout",
            "30",
            "--no-fail",
            "--out",
        ])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    let entries = read(&dir);
    check_model(&entries, SUITE_MODEL);
    // Hazards: env and cwd mutations are reported even where nothing fails because of them.
    assert_eq!(hazard_names(entry(&entries, "n_env_mutator")), ["FIXTURE_ORDER_HARMLESS"]);
    assert_eq!(hazard_names(entry(&entries, "e_polluter_env")), ["FIXTURE_ORDER_POLLUTED"]);
    assert_eq!(hazard_names(entry(&entries, "o_cwd_changer")), ["<cwd>"]);
    assert!(hazard_names(entry(&entries, "a_pass")).is_empty());
    // Mechanisms: the interposer in the suite child plus the child's own snapshots.
    let s = |x: &str| x.to_owned();
    assert_eq!(
        mechanisms(entry(&entries, "g_victim_env")),
        [(s("env"), s("FIXTURE_ORDER_POLLUTED"), s("e_polluter_env"))]
    );
    let cwd = mechanisms(entry(&entries, "p_victim_cwd"));
    assert_eq!(cwd.len(), 1, "{cwd:?}");
    assert_eq!((cwd[0].0.as_str(), cwd[0].2.as_str()), ("cwd", "o_cwd_changer"));
    assert_eq!(Path::new(&cwd[0].1), std::env::temp_dir().canonicalize().unwrap());
    assert_eq!(mechanisms(entry(&entries, "b_victim_of_late")), [memory("z_polluter_late")]);
    assert_eq!(mechanisms(entry(&entries, "k_brittle")), [memory("d_state_setter")]);
    assert_eq!(
        mechanisms(entry(&entries, "m_victim_two")),
        [memory("c_polluter_one"), memory("x_polluter_two")]
    );
    // The crasher ended shared processes, yet everything after it got a verdict (the model above).
    let crash = &entry(&entries, "h_crasher")["evidence"];
    assert!(crash.as_array().unwrap().iter().any(|e| e["outcome"] == "crashed"));
    // The frozen knob: the measurement takes 10x longer after r_knob_setter.
    let shifts = entry(&entries, "l_measure_knob")["value_shifts"].as_array().unwrap().clone();
    assert_eq!(shifts.len(), 1, "{shifts:?}");
    assert_eq!(strings(&shifts[0]["culprits"]), ["r_knob_setter"]);
    assert!(shifts[0]["shift_pct"].as_f64().unwrap() > 50.0 && shifts[0]["p_adjusted"].as_f64().unwrap() < 0.05);
    for e in entries.iter().filter(|e| e["name"] != "l_measure_knob") {
        assert!(e["value_shifts"].as_array().unwrap().is_empty(), "{e}");
    }
    // A victim's reproduce line (the child protocol: culprit, then victim, in one process), run
    // as printed, fails and prints the victim's message; a brittle scenario's line runs it alone.
    for (name, message) in [("b_victim_of_late", "LATE was set"), ("k_brittle", "")] {
        let Some(line) = entry(&entries, name)["reproduce"].as_str().map(str::to_owned) else {
            panic!("{name} has no reproduce line");
        };
        let o = Command::new("sh").args(["-c", &line]).output().unwrap();
        assert!(!o.status.success(), "{line} passed");
        assert!(String::from_utf8_lossy(&o.stdout).contains(message), "{line}: {o:?}");
    }
    assert!(entry(&entries, "a_pass")["reproduce"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exit_status_says_whether_anything_but_pass_was_found() {
    let dir = out_dir("exit");
    let run = |names: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fixture_order"))
            .args(["detect", "--exact", "--seed", "1", "--shuffles", "1", "--isolated", "1", "--out"])
            .arg(&dir)
            .args(names)
            .status()
            .unwrap()
            .code()
    };
    assert_eq!(run(&["a_pass", "c_polluter_one"]), Some(0));
    assert_eq!(run(&["a_pass", "j_always_fails"]), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `fixture_planted` test binary cargo built next to this one.
fn planted_binary() -> PathBuf {
    common::test_binary("fixture_planted")
}

#[test]
fn libtest_binary_verdicts_and_culprits() {
    let dir = out_dir("libtest");
    let status = Command::new(env!("CARGO_BIN_EXE_harness"))
        .env("HARNESS_FIXTURE", "1")
        .env("HARNESS_INTERPOSE_LIB", common::interpose_lib())
        .env_remove("HARNESS_FIXTURE_HANG")
        .args([
            "detect",
            "--seed",
            "5",
            "--shuffles",
            "12",
            "--timeout",
            "30",
            "--no-fail",
            "--test-bin",
        ])
        .arg(planted_binary())
        .arg("--out")
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    let entries = read(&dir);
    // alpha_victim_of_zulu's polluter sorts after it: name order alone never shows it.
    check_model(&entries, LIBTEST_MODEL);
    // The harness predicts libtest's shuffles of this binary (built by this toolchain) and
    // chose localization seeds by them.
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("detect-run.json")).unwrap()).unwrap();
    let notes = run["notes"].to_string();
    assert!(notes.contains("shuffle order was predicted for all"), "{notes}");
    assert!(entries.iter().all(|e| e["hazards"].as_array().unwrap().is_empty()));
    let s = |x: &str| x.to_owned();
    assert_eq!(
        mechanisms(entry(&entries, "golf_victim_env")),
        [(s("env"), s("FIXTURE_PLANTED_POLLUTED"), s("echo_polluter_env"))]
    );
    let cwd = mechanisms(entry(&entries, "papa_victim_cwd"));
    assert_eq!(cwd.len(), 1, "{cwd:?}");
    assert_eq!((cwd[0].0.as_str(), cwd[0].2.as_str()), ("cwd", "lima_cwd_changer"));
    assert_eq!(mechanisms(entry(&entries, "alpha_victim_of_zulu")), [memory("zulu_polluter")]);
    assert_eq!(mechanisms(entry(&entries, "kilo_brittle")), [memory("charlie_state_setter")]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hanging_test_times_out_and_does_not_hang_detect() {
    let dir = out_dir("hang");
    let status = Command::new(env!("CARGO_BIN_EXE_harness"))
        .env("HARNESS_FIXTURE", "1")
        .env("HARNESS_FIXTURE_HANG", "1")
        .args([
            "detect",
            "--exact",
            "--seed",
            "2",
            "--shuffles",
            "1",
            "--isolated",
            "1",
            "--timeout",
            "3",
            "--no-fail",
            "--test-bin",
        ])
        .arg(planted_binary())
        .arg("--out")
        .arg(&dir)
        .args(["oscar_hangs", "november_background_sleeper", "quebec_pass"])
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    let entries = read(&dir);
    assert_eq!(entry(&entries, "oscar_hangs")["verdict"], "fail");
    assert!(entry(&entries, "oscar_hangs")["evidence"][0]["outcome"] == "timed_out");
    assert_eq!(entry(&entries, "november_background_sleeper")["verdict"], "pass");
    assert_eq!(entry(&entries, "quebec_pass")["verdict"], "pass");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spent_budget_leaves_unknown_verdicts_with_the_runs_that_would_decide_them() {
    let dir = out_dir("budget");
    let status = Command::new(env!("CARGO_BIN_EXE_fixture_order"))
        .args(["detect", "--seed", "3", "--budget", "0.001s", "--no-interpose", "--out"])
        .arg(&dir)
        .status()
        .unwrap();
    // `unknown` is not `pass`: the exit status says something is left.
    assert_eq!(status.code(), Some(1));
    let entries = read_unchecked(&dir);
    let unknown: Vec<&Value> = entries.iter().filter(|e| e["verdict"] == "unknown").collect();
    assert!(!unknown.is_empty(), "{entries:?}");
    for e in &unknown {
        let would = e["would_decide"].as_array().unwrap();
        assert!(!would.is_empty() && would.iter().all(|w| w["runs"].as_u64().unwrap() >= 1), "{e}");
    }
    let run: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("detect-run.json")).unwrap()).unwrap();
    assert_eq!(run["budget_s"], 0.001);
    assert_eq!(run["unknown"].as_u64().unwrap(), unknown.len() as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

/// detect.json's entries, with no claim about how many processes ran.
fn read_unchecked(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("detect.json")).expect("detect.json written");
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}
