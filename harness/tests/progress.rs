//! The progress bar of `detect` and `compare`: drawn on a terminal (checked under a
//! pseudo-terminal made by util-linux `script`), absent from a pipe.

use std::path::{Path, PathBuf};
use std::process::Command;

const ORDER: &str = env!("CARGO_BIN_EXE_fixture_order");
const COMPARE_FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_compare");
const HARNESS: &str = env!("CARGO_BIN_EXE_harness");

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("harness-progress-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Runs `args` with stdout and stderr on a pseudo-terminal; returns everything it wrote there.
fn on_tty(args: &[String]) -> String {
    let line = args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ");
    let out = Command::new("script")
        .args(["-qfec", &line, "/dev/null"])
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("util-linux `script` runs commands on a pseudo-terminal; install util-linux");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `args` with stdout and stderr on pipes; returns (stdout, stderr).
fn on_pipes(args: &[String]) -> (String, String) {
    let out = Command::new(&args[0]).args(&args[1..]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `text` without ANSI control sequences (ESC [ parameters final-byte).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A bar of `phase`: the phase, a bar, processes done out of planned and the time left.
fn has_bar(text: &str, phase: &str) -> bool {
    strip_ansi(text)
        .split(['\r', '\n'])
        .any(|l| l.contains(&format!("{phase} ")) && l.contains(" [") && l.contains(" processes, ") && l.contains(" left"))
}

fn assert_no_bar(text: &str) {
    assert!(
        !text.contains(" processes, ") && !text.contains('\u{1b}'),
        "bar leaked off a terminal: {text}"
    );
}

fn detect_args(out: &Path) -> Vec<String> {
    [
        ORDER,
        "detect",
        "--seed",
        "3",
        "--shuffles",
        "1",
        "--isolated",
        "1",
        "--no-fail",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect()
}

#[test]
fn detect_shows_its_phases_on_a_terminal_and_nothing_of_the_bar_on_a_pipe() {
    let dir = temp("detect");
    let tty = on_tty(&detect_args(&dir.join("tty")));
    for phase in ["isolated", "shared"] {
        assert!(has_bar(&tty, phase), "no {phase} bar in: {tty}");
    }
    // The verdicts phase runs its extra runs alone and its localizations as phases of their
    // own; which of them the bar catches depends on its refresh rate.
    assert!(
        ["verdicts", "extra_isolated", "localization"].iter().any(|p| has_bar(&tty, p)),
        "no bar of the verdicts phase in: {tty}"
    );
    assert!(tty.contains("verdicts: "), "the summary still prints");
    let (stdout, stderr) = on_pipes(&detect_args(&dir.join("pipe")));
    assert_no_bar(&stdout);
    assert_no_bar(&stderr);
    assert!(stdout.contains("verdicts: "));
    // Every finished process's records were written as it finished.
    let jsonl = std::fs::read_to_string(dir.join("pipe/results.jsonl")).unwrap();
    assert!(jsonl.lines().count() > 19, "{jsonl}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_shows_its_progress_on_a_terminal_and_nothing_of_the_bar_on_a_pipe() {
    let dir = temp("compare");
    let (a, b) = (dir.join("base"), dir.join("cand"));
    std::fs::copy(COMPARE_FIXTURE, &a).unwrap();
    std::fs::copy(COMPARE_FIXTURE, &b).unwrap();
    let args = |out: &str| -> Vec<String> {
        let mut v: Vec<String> = [
            HARNESS,
            "compare",
            "--runs",
            "2",
            "--iterations",
            "2",
            "--warmup",
            "0",
            "--seed",
            "1",
            "--null-control",
            "0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (flag, p) in [("--baseline", &a), ("--candidate", &b), ("--out", &dir.join(out))] {
            v.push(flag.into());
            v.push(p.display().to_string());
        }
        v.push("work/".into());
        v
    };
    let tty = on_tty(&args("tty"));
    assert!(has_bar(&tty, "compare"), "no compare bar in: {tty}");
    assert!(tty.contains("/4 processes"), "2 pairs of 1 scenario are 4 processes: {tty}");
    let (stdout, stderr) = on_pipes(&args("pipe"));
    assert_no_bar(&stdout);
    assert_no_bar(&stderr);
    assert!(stdout.contains("## Performance comparison"));
    let jsonl = std::fs::read_to_string(dir.join("pipe/results.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 4, "{jsonl}");
    let _ = std::fs::remove_dir_all(&dir);
}
