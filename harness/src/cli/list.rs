//! `--list` in libtest's formats, and the JSON listing other harness processes read.

use crate::errors::Error;
use crate::execute::protocol::ListLine;
use crate::model::{Listed, ScenarioKind};
use crate::suite::Variant;

use super::args::{Format, RunArgs};
use super::exit_code::ExitCodes;

/// This binary's variants as a target lists them.
pub(crate) fn listed(variants: &[Variant]) -> Vec<Listed> {
    variants
        .iter()
        .map(|v| Listed {
            name: v.full_name.clone(),
            kind: v.scenario.kind(),
            ignored: v.scenario.ignored.clone(),
            env: v.env.clone(),
            timeout: v.scenario.timeout,
            uncounted: v.scenario.uncounted.clone(),
        })
        .collect()
}

/// Print `--list` output. Like libtest: `--ignored` lists only ignored scenarios; terse prints
/// `name: test` lines only (what cargo-nextest parses). Under `cargo bench` (`--bench`) in the
/// pretty format, like criterion 0.5: the measurements that would run, as `name: benchmark`
/// lines, with their count on stderr so stdout stays criterion's.
pub(crate) fn print_list(args: &RunArgs, listed: &[Listed]) -> Result<u8, Error> {
    let (lines, count) = list_lines(args, listed);
    for line in lines {
        println!("{line}");
    }
    match count {
        Some(ListCount::Libtest(n)) => {
            println!();
            println!("{n} tests, 0 benchmarks");
        }
        Some(ListCount::Benchmarks(n)) => eprintln!("{n} benchmark{}", if n == 1 { "" } else { "s" }),
        None => {}
    }
    Ok(ExitCodes::OK)
}

/// The count that follows a listing.
#[derive(Debug, PartialEq)]
enum ListCount {
    /// libtest's `N tests, 0 benchmarks` trailer (stdout).
    Libtest(usize),
    /// The benchmarks a criterion-style listing showed (stderr).
    Benchmarks(usize),
}

fn list_lines(args: &RunArgs, listed: &[Listed]) -> (Vec<String>, Option<ListCount>) {
    let selection = args.names.selection();
    let shown = listed
        .iter()
        .filter(|l| selection.matches_name(&l.name) && (!args.ignored || l.ignored.is_some()));
    if args.bench && args.format == Format::Pretty {
        // `cargo bench` runs the measurements only (`--bench`), so only they are listed.
        let lines: Vec<String> = shown
            .filter(|l| l.kind == ScenarioKind::Measure)
            .map(|l| format!("{}: benchmark", l.name))
            .collect();
        let n = lines.len();
        return (lines, Some(ListCount::Benchmarks(n)));
    }
    let lines: Vec<String> = shown.map(|l| format!("{}: test", l.name)).collect();
    let n = lines.len();
    (lines, (args.format == Format::Pretty).then_some(ListCount::Libtest(n)))
}

/// Print this binary's scenarios as JSON lines for [`SuiteBinary::list`](crate::execute::SuiteBinary).
pub(crate) fn print_json_list(variants: &[Variant]) {
    for (l, v) in listed(variants).into_iter().zip(variants) {
        let line = ListLine {
            name: l.name,
            kind: l.kind,
            ignored: l.ignored,
            env: l.env,
            timeout_s: l.timeout.map(|t| t.as_secs_f64()),
            source: Some(v.scenario.source.to_string()),
            uncounted: l.uncounted,
        };
        println!("{}", serde_json::to_string(&line).expect("list lines serialize"));
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::args::Args;

    fn listed(name: &str, kind: ScenarioKind) -> Listed {
        Listed {
            name: name.to_owned(),
            kind,
            ignored: None,
            env: Default::default(),
            timeout: None,
            uncounted: None,
        }
    }

    fn lines(argv: &[&str]) -> (Vec<String>, Option<ListCount>) {
        let args = Args::try_parse_from([&["suite"], argv].concat()).unwrap();
        let all = [listed("fib 20", ScenarioKind::Measure), listed("sane", ScenarioKind::Check)];
        list_lines(&args.run, &all)
    }

    #[test]
    fn cargo_bench_lists_benchmarks_as_criterion_does() {
        let (out, count) = lines(&["--list", "--bench"]);
        assert_eq!(out, ["fib 20: benchmark"]);
        assert_eq!(count, Some(ListCount::Benchmarks(1)));
    }

    #[test]
    fn test_runners_keep_libtests_listing() {
        let (out, count) = lines(&["--list"]);
        assert_eq!(out, ["fib 20: test", "sane: test"]);
        assert_eq!(count, Some(ListCount::Libtest(2)));
        // nextest: terse, no trailer, even with --bench.
        for argv in [&["--list", "--format", "terse"][..], &["--list", "--format", "terse", "--bench"]] {
            let (out, count) = lines(argv);
            assert_eq!(out, ["fib 20: test", "sane: test"], "{argv:?}");
            assert_eq!(count, None, "{argv:?}");
        }
    }
}
