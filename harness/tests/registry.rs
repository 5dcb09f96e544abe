//! The registry end to end: duplicate names are refused with both places named, and the JSON
//! listing says where each scenario was built.

use std::process::Command;

const DUPLICATE: &str = env!("CARGO_BIN_EXE_fixture_duplicate");
const DUPLICATE_SRC: &str = include_str!("../src/bin/fixture_duplicate.rs");
const OUTCOMES: &str = env!("CARGO_BIN_EXE_fixture_outcomes");
const OUTCOMES_SRC: &str = include_str!("../src/bin/fixture_outcomes.rs");

/// 1-based lines of `src` that contain `needle`.
fn lines_of(src: &str, needle: &str) -> Vec<usize> {
    src.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn a_duplicate_name_is_a_usage_error_naming_both_places() {
    let lines = lines_of(DUPLICATE_SRC, "Scenario::check(\"dup/same_name\"");
    assert_eq!(lines.len(), 2, "the fixture builds the name twice");
    // As a command line and as the listing another harness process asks for: both refuse.
    for args in [&[][..], &["--list"], &["__harness_list"]] {
        let o = Command::new(DUPLICATE).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("\"dup/same_name\""), "{args:?}: {err}");
        for line in &lines {
            assert!(err.contains(&format!("fixture_duplicate.rs:{line}")), "{args:?}: {err}");
        }
    }
}

#[test]
fn the_json_listing_gives_each_scenario_its_file_and_line() {
    let o = Command::new(OUTCOMES).arg("__harness_list").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let listed: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let source_of = |name: &str| {
        let entry = listed.iter().find(|v| v["name"] == name).unwrap_or_else(|| panic!("{name} listed"));
        entry["source"].as_str().unwrap().to_owned()
    };
    let line = lines_of(OUTCOMES_SRC, "Scenario::check(\"outcomes/panics\"")[0];
    assert!(source_of("outcomes/panics").ends_with(&format!("fixture_outcomes.rs:{line}")));
    assert!(
        listed
            .iter()
            .all(|v| v["source"].as_str().is_some_and(|s| s.contains("fixture_outcomes.rs:")))
    );
}
