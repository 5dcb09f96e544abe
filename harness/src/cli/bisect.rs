//! `bisect`: check the range and build its ends (bad input fails before an output directory
//! exists), put results.jsonl on the seam, run the search in [`crate::bisect`], print the
//! conclusion, and map it to the exit status: 0 named with the asked confidence, 1 not.

use super::exit_code::ExitCodes;
use crate::bisect::{BisectOptions, files, plan_bisect, run_bisect};
use crate::errors::Error;
use crate::events::Reporters;
use crate::report::{JsonlWriter, OutDir};

/// Run `bisect`.
pub(crate) fn bisect(opts: &BisectOptions) -> Result<u8, Error> {
    let (range, builds) = plan_bisect(opts)?;
    eprintln!(
        "bisect: {} commits from {} to {}, {} of {:?}, {} search, seed {}",
        range.last(),
        opts.good,
        opts.bad,
        opts.metric,
        opts.scenario,
        if opts.counters.is_some() {
            "binary (counters)"
        } else {
            "probabilistic (wall time)"
        },
        opts.seed
    );
    let out = OutDir::create(Some(&opts.out))?;
    let mut jsonl = JsonlWriter::new(out.file("results.jsonl"));
    let mut reporters = Reporters::new();
    reporters.push(&mut jsonl);
    let outcome = run_bisect(opts, range, builds, &out, &mut reporters)?;
    println!("{}", outcome.file.message);
    if let Some(x) = &outcome.file.explain {
        println!("  where the instructions changed (self cost per call, top 3):");
        for line in crate::explain::terminal_lines(x, 3) {
            println!("{line}");
        }
    }
    for n in &outcome.file.notes {
        println!("  note: {n}");
    }
    println!("reproduce: {}", crate::reproduce::shell_line(&outcome.file.reproduce));
    for f in files(&out) {
        println!("bisect: {}", f.display());
    }
    Ok(if outcome.named() { ExitCodes::OK } else { ExitCodes::FAILURES })
}
