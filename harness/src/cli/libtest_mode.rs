//! Under cargo-nextest, behave as a libtest binary (libtest-mimic): nextest already gives each
//! test its own process, and each trial still runs its scenario in a fresh child with its
//! variant's env set before the child starts.

use libtest_mimic::{Arguments, Failed, Trial};

use super::args::RunArgs;
use super::exit_code::ExitCodes;
use crate::errors::Error;
use crate::execute::{SuiteBinary, Target, TargetRequest};
use crate::model::Listed;
use crate::model::{Outcome, ScenarioKind};

/// nextest sets `NEXTEST_RUN_ID` (and `NEXTEST`) in every test process it starts.
pub(crate) fn invoked_by_nextest() -> bool {
    std::env::var_os("NEXTEST_RUN_ID").is_some() || std::env::var_os("NEXTEST").is_some()
}

pub(crate) fn run(args: &RunArgs, own: &[Listed]) -> Result<u8, Error> {
    let target = SuiteBinary::current(own.to_vec())?;
    let scratch = std::env::temp_dir().join(format!("harness-nextest-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| Error::Io {
        what: format!("creating {}", scratch.display()),
        source: e,
    })?;
    let trials = own
        .iter()
        .map(|l| {
            let target = target.clone();
            let l = l.clone();
            let scratch = scratch.clone();
            let kind = if l.kind == ScenarioKind::Measure { "measure" } else { "check" };
            let (name, ignored) = (l.name.clone(), l.ignored.is_some());
            Trial::test(name, move || run_one(&target, &l, &scratch))
                .with_kind(kind)
                .with_ignored_flag(ignored)
        })
        .collect();
    let mimic = Arguments {
        filter: args.names.filters.first().cloned(),
        exact: args.names.exact,
        skip: args.names.skip.clone(),
        ignored: args.ignored,
        include_ignored: args.include_ignored,
        nocapture: args.nocapture,
        test_threads: Some(1),
        ..Arguments::default()
    };
    let conclusion = libtest_mimic::run(&mimic, trials);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(if conclusion.has_failed() {
        ExitCodes::FAILURES
    } else {
        ExitCodes::OK
    })
}

fn run_one(target: &SuiteBinary, l: &Listed, scratch: &std::path::Path) -> Result<(), Failed> {
    let request = TargetRequest {
        names: vec![l.name.clone()],
        env: l.env.clone(),
        iterations: 20,
        warmup: 3,
        timeout: l.timeout,
        scratch: scratch.to_owned(),
        id: "nextest".into(),
    };
    let result = target
        .run(&request)
        .map_err(|e| Failed::from(format!("could not run the child: {e}")))?;
    print!("{}", result.process.stdout);
    eprint!("{}", result.process.stderr);
    let r = &result.results[0];
    for m in &r.metrics {
        println!("{}: {} {}", m.name, m.value, m.unit.symbol());
    }
    match &r.outcome {
        Outcome::Passed | Outcome::Skipped { .. } => Ok(()),
        Outcome::Failed { message } => Err(message.as_str().into()),
        other => Err(other.short().into()),
    }
}
