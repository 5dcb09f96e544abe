//! One shell line per finding (`reproduce` in detect.json): a victim's confirmed culprit and
//! then the victim in one process, or a brittle / failing scenario alone. Each line exits
//! non-zero while the finding holds.
//!
//! A libtest binary runs the tests it is given in name order; when the culprit sorts after the
//! victim, the shuffle seed of the confirming run (which put the culprit first) is replayed with
//! `-Zunstable-options --shuffle-seed` (`RUSTC_BOOTSTRAP=1` lets a stable-built binary accept it).
//! A suite binary is asked through the child protocol, which takes the order as given and writes
//! its result lines to stdout.

use super::subject::OrderTarget;
use crate::model::{DetectEntry, EvidenceKind, OrderVerdict};
use crate::reproduce::shell_line;

/// Fill `reproduce` of every victim, brittle and failing entry of `target`.
pub fn attach(entries: &mut [DetectEntry], target: &dyn OrderTarget) {
    let exe = target.describe();
    let libtest = target.kind_name() == "libtest";
    let backtrace: Vec<String> = user_backtrace().into_iter().map(|(v, x)| format!("{v}={x}")).collect();
    for e in entries.iter_mut() {
        e.reproduce = finding_order(e).map(|(names, seed)| {
            let line = if libtest {
                libtest_line(&exe, &names, seed)
            } else {
                suite_line(&exe, &names)
            };
            with_backtrace(line, &backtrace)
        });
    }
}

/// The scenarios (and libtest seed) of one process that shows the finding: a victim's first
/// confirmed culprit then the victim, a brittle or failing scenario alone.
pub fn finding_order(e: &DetectEntry) -> Option<(Vec<String>, Option<u64>)> {
    match e.verdict {
        OrderVerdict::Victim => e.polluters.iter().find_map(|p| {
            let pair = [p.clone(), e.name.clone()];
            e.evidence
                .iter()
                .find(|ev| ev.kind == EvidenceKind::Confirm && ev.order == pair && ev.message.is_some())
                .map(|ev| (pair.to_vec(), ev.seed))
        }),
        OrderVerdict::Brittle | OrderVerdict::Fail => Some((vec![e.name.clone()], None)),
        _ => None,
    }
}

/// The user's backtrace setting, (`VAR`, value) each, where one asks for a backtrace: detect's
/// own processes run without (see `probe::BACKTRACE_VARS`), the reproduce line and one final
/// run per finding have it.
pub fn user_backtrace() -> Vec<(String, String)> {
    super::probe::BACKTRACE_VARS
        .iter()
        .filter_map(|v| {
            std::env::var(v)
                .ok()
                .filter(|x| !x.is_empty() && x != "0")
                .map(|x| ((*v).to_owned(), x))
        })
        .collect()
}

fn with_backtrace(line: String, backtrace: &[String]) -> String {
    if backtrace.is_empty() {
        return line;
    }
    let prefix: Vec<String> = backtrace.iter().map(|b| shell_line(std::slice::from_ref(b))).collect();
    format!("{} {line}", prefix.join(" "))
}

/// Run `names` of a libtest binary in one process, in name order or under `seed`.
pub fn libtest_line(exe: &str, names: &[String], seed: Option<u64>) -> String {
    let mut args: Vec<String> = Vec::new();
    if seed.is_some() {
        args.push("RUSTC_BOOTSTRAP=1".into());
    }
    args.extend([
        exe.to_owned(),
        "--exact".into(),
        "--test-threads=1".into(),
        "--include-ignored".into(),
    ]);
    if let Some(s) = seed {
        args.extend(["-Zunstable-options".into(), format!("--shuffle-seed={s}")]);
    }
    args.extend(names.iter().cloned());
    shell_line(&args)
}

/// Run `names` of a suite binary in one process, in this order, result lines on stdout.
pub fn suite_line(exe: &str, names: &[String]) -> String {
    let request = serde_json::json!({
        "scenarios": names,
        "iterations": 1,
        "warmup": 0,
        "result_path": "/dev/stdout",
    });
    shell_line(&[exe.to_owned(), crate::execute::protocol::CHILD_ARG.to_owned(), request.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seeded_line_sets_rustc_bootstrap_and_quotes_names() {
        let l = libtest_line("/t/x-1", &["z culprit".into(), "a::victim".into()], Some(7));
        assert_eq!(
            l,
            "RUSTC_BOOTSTRAP=1 /t/x-1 --exact --test-threads=1 --include-ignored -Zunstable-options --shuffle-seed=7 'z culprit' a::victim"
        );
        assert!(!libtest_line("/t/x", &["a".into()], None).contains("RUSTC_BOOTSTRAP"));
        assert!(suite_line("/s", &["it's".into()]).contains(r"'\''"));
    }

    #[test]
    fn the_users_backtrace_setting_leads_the_line() {
        assert_eq!(with_backtrace("/t/x a".into(), &[]), "/t/x a");
        assert_eq!(
            with_backtrace("/t/x a".into(), &["RUST_BACKTRACE=full".into()]),
            "RUST_BACKTRACE=full /t/x a"
        );
    }
}
