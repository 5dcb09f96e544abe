//! `--list` in libtest's formats, and the JSON listing other harness processes read.

use crate::errors::Error;
use crate::execute::protocol::ListLine;
use crate::model::Listed;
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
/// `name: test` lines only (what cargo-nextest parses).
pub(crate) fn print_list(args: &RunArgs, listed: &[Listed]) -> Result<u8, Error> {
    let selection = args.names.selection();
    let shown: Vec<&Listed> = listed
        .iter()
        .filter(|l| selection.matches_name(&l.name) && (!args.ignored || l.ignored.is_some()))
        .collect();
    for l in &shown {
        println!("{}: test", l.name);
    }
    if args.format == Format::Pretty {
        println!();
        println!("{} tests, 0 benchmarks", shown.len());
    }
    Ok(ExitCodes::OK)
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
