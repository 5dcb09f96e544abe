//! The GitHub Action's comment step (scripts/action_local.sh with a fake `gh`): the body it
//! would post carries the marker, is compare.md's content, fits GitHub's 65,536-character limit,
//! and a previous marked comment is updated rather than a new one added.

use std::path::Path;
use std::process::Command;

fn run_local(out: &Path, comments: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/action_local.sh");
    let o = Command::new("bash")
        .arg(script)
        .arg(out)
        .env("FAKE_GH_COMMENTS", comments)
        .output()
        .expect("bash runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn the_comment_is_compare_md_with_the_marker_and_updates_the_previous_one() {
    let dir = tempfile::tempdir().unwrap();
    let md = "## Comparison\n\n| scenario | change |\n|---|---|\n| a & <b> | +3.1% |\n";
    std::fs::write(dir.path().join("compare.md"), md).unwrap();
    let log = run_local(dir.path(), "[]");
    let body = std::fs::read_to_string(dir.path().join("comment.md")).unwrap();
    assert_eq!(body, format!("<!-- harness-compare -->\n{}", md.trim_end()));
    assert!(log.contains("--method POST repos/example/repo/issues/7/comments"), "{log}");

    let previous = r#"[{"id":5,"body":"other"},{"id":42,"body":"<!-- harness-compare -->\nold"}]"#;
    let log = run_local(dir.path(), previous);
    assert!(log.contains("--method PATCH repos/example/repo/issues/comments/42"), "{log}");
    assert!(!log.contains("POST"), "{log}");
}

#[test]
fn a_compare_md_too_long_is_cut_to_fit_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let md = "| row é | +1% |\n".repeat(10_000);
    std::fs::write(dir.path().join("compare.md"), &md).unwrap();
    run_local(dir.path(), "[]");
    let body = std::fs::read_to_string(dir.path().join("comment.md")).unwrap();
    // GitHub counts characters; 'é' makes bytes and characters differ.
    assert!(body.chars().count() <= 65_536, "{}", body.chars().count());
    assert!(body.chars().count() > 60_000);
    assert!(body.starts_with("<!-- harness-compare -->\n| row é | +1% |\n"));
    assert!(body.ends_with("the full comparison is in the run's artifact._"));
}

#[test]
fn a_missing_compare_md_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/action_local.sh");
    let o = Command::new("bash").arg(script).arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("compare.md does not exist"));
}
