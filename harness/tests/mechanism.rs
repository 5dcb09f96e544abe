//! detect's `mechanism` end to end on a real libtest binary (`fixture_mechanism`) with the
//! interposer preloaded: each victim names how its polluter reaches it (env var, directory,
//! file, or memory for a static), and the same binary without the preload (off, or refused by
//! the loader) still gets every verdict, with a note saying why `mechanism` is empty.

#[path = "common/interpose.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const PREFIX: &str = "shared_prefix_module::";

/// victim -> (polluter, kind, name relative to the fixture dir where it is a path)
const MODEL: &[(&str, &str, &str)] = &[
    ("cwd_victim", "cwd_changer", "cwd"),
    ("env_victim", "env_polluter", "env"),
    ("file_victim", "file_polluter", "file"),
    ("static_victim", "static_polluter", "memory"),
];

struct Fixture {
    dir: PathBuf,
}

impl Fixture {
    fn new(tag: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("harness-mechanism-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
        Fixture { dir }
    }

    /// Run detect on the fixture binary with `lib` as the interposer (None: --no-interpose).
    fn detect(&self, lib: Option<&Path>) -> (Vec<Value>, Value, String) {
        let out = self.dir.join("out");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_harness"));
        cmd.env("HARNESS_FIXTURE", "1")
            .env("HARNESS_FIXTURE_DIR", &self.dir)
            .args([
                "detect",
                "--seed",
                "7",
                "--shuffles",
                "4",
                "--isolated",
                "2",
                "--timeout",
                "30",
                "--no-fail",
            ])
            .arg("--test-bin")
            .arg(common::test_binary("fixture_mechanism"))
            .arg("--out")
            .arg(&out);
        match lib {
            Some(lib) => cmd.env("HARNESS_INTERPOSE_LIB", lib),
            None => cmd.arg("--no-interpose"),
        };
        let o = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{}\n{stderr}", o.status);
        let read = |f: &str| serde_json::from_str::<Value>(&std::fs::read_to_string(out.join(f)).unwrap()).unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        (
            read("detect.json").as_array().unwrap().clone(),
            read("detect-run.json"),
            stdout + &stderr,
        )
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn entry<'a>(entries: &'a [Value], short: &str) -> &'a Value {
    let name = format!("{PREFIX}{short}");
    entries
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

/// Every victim has its polluter, every other test passes.
fn check_verdicts(entries: &[Value]) {
    assert_eq!(entries.len(), 2 * MODEL.len());
    for (victim, polluter, _) in MODEL {
        let v = entry(entries, victim);
        assert_eq!(v["verdict"], "victim", "{v}");
        assert_eq!(v["polluters"], serde_json::json!([format!("{PREFIX}{polluter}")]), "{v}");
        assert_eq!(entry(entries, polluter)["verdict"], "pass");
    }
}

#[test]
fn each_victim_names_how_its_polluter_reaches_it() {
    let fx = Fixture::new("on");
    let lib = common::interpose_lib();
    let (entries, run, terminal) = fx.detect(Some(&lib));
    check_verdicts(&entries);
    let elsewhere = fx.dir.join("elsewhere").display().to_string();
    for (victim, polluter, kind) in MODEL {
        let e = entry(&entries, victim);
        let m = e["mechanism"].as_array().unwrap();
        // Exactly one mechanism, from the confirmed polluter: nothing else is blamed.
        assert_eq!(m.len(), 1, "{victim}: {e}");
        assert_eq!(m[0]["kind"], *kind, "{victim}: {e}");
        assert_eq!(m[0]["culprit"], format!("{PREFIX}{polluter}"));
        let name = m[0]["name"].as_str().unwrap();
        match *kind {
            "env" => assert_eq!(name, "FIXTURE_MECHANISM_KEY"),
            "cwd" => assert_eq!(name, elsewhere),
            "file" => {
                let p = Path::new(name);
                assert_eq!(p.parent().unwrap(), fx.dir, "{name}");
                assert!(p.file_name().unwrap().to_string_lossy().starts_with("leftover-"), "{name}");
            }
            _ => {}
        }
        let fix = m[0]["fix"].as_str().unwrap();
        assert!(!fix.is_empty());
        if *kind == "memory" {
            assert!(fix.contains("own process"), "{fix}");
        }
        assert!(
            terminal.contains(&format!("{kind} {name}")) || *kind == "memory",
            "{kind} {name} not in:\n{terminal}"
        );
    }
    for (_, polluter, _) in MODEL {
        assert!(entry(&entries, polluter)["mechanism"].as_array().unwrap().is_empty());
    }
    // The report's table says the same, and the matrix cell carries the letter.
    let html = std::fs::read_to_string(fx.dir.join("out").join("index.html")).unwrap();
    assert!(html.contains("<code>env</code> FIXTURE_MECHANISM_KEY (from shared_prefix_module::env_polluter)"));
    assert!(html.contains("<code>memory</code>") && html.contains("E env, C cwd, F file, M memory"));
    let notes = run["notes"].to_string();
    assert!(!notes.contains("did not load") && !notes.contains("not found"), "{notes}");
}

#[test]
fn without_the_preload_verdicts_stay_and_a_note_says_why_mechanism_is_empty() {
    let fx = Fixture::new("off");
    // Turned off.
    let (entries, run, terminal) = fx.detect(None);
    check_verdicts(&entries);
    assert!(entries.iter().all(|e| e["mechanism"].as_array().unwrap().is_empty()));
    assert!(run["notes"].to_string().contains("--no-interpose"), "{}", run["notes"]);
    assert!(terminal.contains("--no-interpose"));
    // Refused by the loader: not a shared object, as a static binary ignores any preload.
    let bogus = fx.dir.join("libharness_interpose.so");
    std::fs::write(&bogus, "not an ELF file").unwrap();
    let (entries, run, terminal) = fx.detect(Some(&bogus));
    check_verdicts(&entries);
    assert!(entries.iter().all(|e| e["mechanism"].as_array().unwrap().is_empty()));
    assert!(run["notes"].to_string().contains("did not load"), "{}", run["notes"]);
    assert!(terminal.contains("did not load"), "{terminal}");
}
